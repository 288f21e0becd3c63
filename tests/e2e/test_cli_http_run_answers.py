"""An abort's or a redrive's answer shows the run as a read does (its derived redriveStatus),
on the command line and over HTTP alike: the rule is applied once, by the use cases."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from domain.redrive import NOT_REDRIVABLE, REDRIVABLE, RUNNING_REASON
from entrypoints.container import Container, build_container
from entrypoints.settings import Settings
from tests.e2e.cli import TERMINAL, USER, Wfx

_FIELDS = ("executionStatus", "redriveStatus", "redriveStatusReason")


def _publish_failing(wfx: Wfx) -> None:
    document = {
        "databaseId": "demo",
        "workflowId": "fails",
        "steps": [
            {
                "pipelineId": "only",
                "executionType": "command",
                "command": [sys.executable, "-c", "import sys; sys.exit(3)"],
                "inputFileArity": "none",
            }
        ],
    }
    path = wfx.home / "fails.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


@pytest.fixture
def container(wfx: Wfx) -> Iterator[Container]:
    """The service's container on the CLI's SQLite file; its runs run in threads of this test."""
    settings = Settings.from_environment({"WFX_HOME": str(wfx.home), "WFX_USER": USER})
    yield build_container(settings, runner_mode="thread")


def _post(container: Container, path: str) -> Any:
    from entrypoints.http.app import create_app
    from entrypoints.http.identity import verified_by

    token = container.token_issuer().issue(USER, timedelta(minutes=5), ("admin",))
    app = create_app(container, verified_by(container.token_verifier()))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.post(path, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _status(answer: dict[str, Any]) -> dict[str, Any]:
    return {name: answer.get(name) for name in _FIELDS}


def test_an_abort_answers_the_run_as_a_read_shows_it(wfx: Wfx, container: Container) -> None:
    _publish_failing(wfx)
    execution_id = wfx.run_id("demo/fails", expect_code=1)
    read = wfx.json("executions", "show", execution_id)
    assert read["redriveStatus"] == REDRIVABLE, read

    by_cli = wfx.json("executions", "abort", execution_id)
    by_http = _post(container, f"/workflows/executions/{execution_id}/abort")

    assert _status(by_cli) == _status(by_http) == _status(read)
    assert by_http == by_cli


def test_a_redrive_answers_the_run_as_a_read_shows_it(wfx: Wfx, container: Container) -> None:
    _publish_failing(wfx)
    execution_id = wfx.run_id("demo/fails", expect_code=1)
    running = {"redriveStatus": NOT_REDRIVABLE, "redriveStatusReason": RUNNING_REASON}

    by_cli = wfx.json("executions", "redrive", execution_id, "--no-wait")
    wfx.wait_until(execution_id, lambda d: d["executionStatus"] in TERMINAL)
    by_http = _post(container, f"/workflows/executions/{execution_id}/redrive")
    container.local_runner().join(execution_id, timeout=60)

    for answer in (by_cli, by_http):
        assert answer["executionStatus"] == "RUNNING", answer
        assert {name: answer.get(name) for name in running} == running, answer
    assert (by_cli["redriveCount"], by_http["redriveCount"]) == (1, 2)
