"""`kill -9` of the worker running a run launched through `wfx serve`, read over HTTP (issue 28).

The service launches the run in a detached worker of its own; the worker is killed once its
step runs, and the first read over HTTP (the run's detail, or a page of the list) answers FAILED
wfx.RunnerLost, with the lease and the interval at their 30 s: the worker's record and /proc
tell the read, not an expired lease. One service for the module; one worker a test.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from adapters.local.supervisor import RunFolder
from tests.e2e.cli import USER, Wfx
from tests.e2e.run_processes import command_line, kill_what_is_left, wait_until_nothing_is_left
from tests.e2e.served import serving

pytestmark = pytest.mark.integration

LOST = "wfx.RunnerLost: the local runner (worker, pid"


class Service:
    """The served home, its base URL and the admin's headers."""

    def __init__(self, wfx: Wfx, base: str) -> None:
        self.wfx, self.base = wfx, base
        token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()
        self.headers = {"Authorization": f"Bearer {token}"}

    def get(self, path: str) -> Any:
        answer = httpx.get(f"{self.base}{path}", headers=self.headers, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def detail(self, execution_id: str) -> dict[str, Any]:
        shown: dict[str, Any] = self.get(f"/workflows/executions/{execution_id}")["message"]
        return shown

    def listed(self, execution_id: str) -> dict[str, Any]:
        page = self.get("/workflows/executions")["message"]["Items"]
        (row,) = [row for row in page if row["workflowExecutionId"] == execution_id]
        return dict(row)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    # no WFX_RUNNER_LEASE_SECONDS, no interval setting: both at their 30 s
    wfx = Wfx(tmp_path_factory.mktemp("served") / "home")
    wfx.publish_command_step("sleeper", "import time; time.sleep(300)")
    try:
        with serving(wfx) as (base, _):
            yield Service(wfx, base)
    finally:
        kill_what_is_left(wfx.home)  # a test that failed before its kill leaves its worker


def _launched_and_killed(service: Service) -> tuple[str, int]:
    """A run of demo/sleeper launched over HTTP, its worker killed with -9 once its step runs
    (the worker holds the lease then), and nothing of it left (/proc). Its id and the pid."""
    launched = httpx.post(
        f"{service.base}/workflows/executions",
        json={"workflowDatabaseId": "demo", "workflowId": "sleeper"},
        headers=service.headers,
        timeout=30,
    )
    assert launched.status_code == 201, launched.text
    execution_id = launched.json()["workflowExecutionId"]
    folder = RunFolder(service.wfx.home / "runs" / execution_id)
    deadline = time.monotonic() + 60
    while (worker := folder.runner()) is None or not _step_runs(service, execution_id):
        assert time.monotonic() < deadline, "the worker never ran the step"
        time.sleep(0.1)
    assert worker.mode == "detached", worker
    assert "internal-run-worker" in command_line(worker.pid), command_line(worker.pid)

    os.kill(worker.pid, signal.SIGKILL)

    # the step's guard stops its group once its runner is gone
    wait_until_nothing_is_left(execution_id, {"the killed worker": worker.pid})
    return execution_id, worker.pid


def _step_runs(service: Service, execution_id: str) -> bool:
    # the CLI's read (its own process): the service's reads are the test's
    details = service.wfx.json("executions", "show", execution_id)
    return bool(details["pipelines"][0]["executionStatus"] == "RUNNING")


def _assert_lost(row: dict[str, Any], pid: int) -> None:
    assert row["executionStatus"] == "FAILED", row
    assert row["executionError"].startswith(f"{LOST} {pid})"), row


@pytest.mark.parametrize("first", ["detail", "list"])
def test_kill_9_of_the_worker_reads_runner_lost_on_the_first_http_read(
    service: Service, first: str
) -> None:
    execution_id, pid = _launched_and_killed(service)

    if first == "detail":
        _assert_lost(service.detail(execution_id), pid)
        _assert_lost(service.listed(execution_id), pid)
    else:
        _assert_lost(service.listed(execution_id), pid)
        _assert_lost(service.detail(execution_id), pid)
    (step,) = service.wfx.json("executions", "show", execution_id)["pipelines"]
    assert step["executionStatus"] == "FAILED", step
    assert step["errorMessage"].startswith(f"{LOST} {pid})"), step
