"""`wfx serve` as a user runs it: a real process on a free port, a token from `wfx auth token`,
requests over TCP, a run launched through the service going on in a detached worker, and Ctrl-C
stopping the service."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.cli import TRIVIAL_WORKFLOW, USER, Wfx
from tests.e2e.served import serving

pytestmark = pytest.mark.integration


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Wfx, str, subprocess.Popen[str]]]:
    wfx = Wfx(tmp_path / "home")
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    with serving(wfx) as (base, service):
        yield wfx, base, service


def test_a_token_from_the_cli_opens_the_service_and_none_does_not(
    served: tuple[Wfx, str, subprocess.Popen[str]],
) -> None:
    wfx, base, _ = served
    assert httpx.get(f"{base}/workflows/executions").status_code == 401
    token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()
    headers = {"Authorization": f"Bearer {token}"}

    launched = httpx.post(
        f"{base}/workflows/executions",
        json={"workflowDatabaseId": "demo", "workflowId": "trivial"},
        headers=headers,
    )
    assert launched.status_code == 201, launched.text
    execution_id = launched.json()["workflowExecutionId"]
    assert launched.json()["triggeredByUserId"] == USER

    deadline = time.monotonic() + 30
    while True:
        answer = httpx.get(f"{base}/workflows/executions/{execution_id}", headers=headers)
        shown = answer.json()["message"]
        if shown["executionStatus"] == "SUCCEEDED" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert shown["executionStatus"] == "SUCCEEDED"
    assert wfx.listed_ids() == [execution_id]  # the CLI reads what the service wrote


def test_ctrl_c_stops_the_service(served: tuple[Wfx, str, subprocess.Popen[str]]) -> None:
    _, base, service = served
    assert httpx.get(f"{base}/docs").status_code == 200
    service.send_signal(signal.SIGINT)
    assert service.wait(timeout=15) == 0
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{base}/openapi.json", timeout=2)
