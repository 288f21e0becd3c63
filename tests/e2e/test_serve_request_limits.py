"""`wfx serve`'s request-body cap, over TCP: a body declared past WFX_MAX_REQUEST_BYTES is a 413
before it is read, one sent in chunks with no length is cut off at the cap, and a workflow's
description past its bound is a 400 naming it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.cli import USER, Wfx
from tests.e2e.served import serving

# one worker for the module: its tests share one service
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("serve-request-limits")]

CAP = 8192  # above a description at its bound, which has a rule of its own
# a bound, not a pace: a process's first request to a route builds it, which a machine loaded by
# the suite's other workers took past httpx's 5 s for
TIMEOUT = 30.0


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """One service for the module: each request its tests send is refused, so none of them
    changes what the next one meets."""
    home = tmp_path_factory.mktemp("limits") / "home"
    wfx = Wfx(home).with_environment(WFX_MAX_REQUEST_BYTES=str(CAP))
    token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()
    with serving(wfx) as (base, _):
        yield base, {"Authorization": f"Bearer {token}"}


def _launch_body(size: int) -> bytes:
    padding = "x" * size
    return f'{{"workflowDatabaseId": "demo", "workflowId": "{padding}"}}'.encode()


def test_a_body_past_the_cap_is_a_413_whether_its_length_is_declared_or_not(
    service: tuple[str, dict[str, str]],
) -> None:
    base, headers = service
    json_headers = headers | {"Content-Type": "application/json"}

    declared = httpx.post(
        f"{base}/workflows/executions",
        content=_launch_body(CAP),
        headers=json_headers,
        timeout=TIMEOUT,
    )
    assert declared.status_code == 413
    assert "WFX_MAX_REQUEST_BYTES" in declared.json()["message"]

    def chunks() -> Iterator[bytes]:
        body = _launch_body(CAP)
        yield from (body[i : i + 512] for i in range(0, len(body), 512))

    chunked = httpx.post(
        f"{base}/workflows/executions", content=chunks(), headers=json_headers, timeout=TIMEOUT
    )
    assert chunked.status_code == 413
    assert "WFX_MAX_REQUEST_BYTES" in chunked.json()["message"]

    within = httpx.post(
        f"{base}/workflows/executions",
        content=_launch_body(10),
        headers=json_headers,
        timeout=TIMEOUT,
    )
    assert within.status_code == 404, within.text  # read whole, and answered: no such workflow


def test_a_workflow_description_past_its_bound_is_a_400_naming_it(
    service: tuple[str, dict[str, str]],
) -> None:
    base, headers = service
    document = {
        "databaseId": "demo",
        "workflowId": "long",
        "description": "d" * 4097,
        "steps": [{"pipelineId": "p", "executionType": "command", "command": ["true"]}],
    }
    answer = httpx.put(f"{base}/workflows", json=document, headers=headers, timeout=TIMEOUT)
    assert answer.status_code == 400
    assert "description" in answer.json()["message"]


def test_an_unusable_cap_is_refused_naming_the_variable(tmp_path: Path) -> None:
    wfx = Wfx(tmp_path / "home").with_environment(WFX_MAX_REQUEST_BYTES="lots")
    outcome = wfx("serve", "--port", "1")
    assert outcome.code != 0
    assert "WFX_MAX_REQUEST_BYTES" in outcome.stderr
    assert "Traceback" not in outcome.stderr
