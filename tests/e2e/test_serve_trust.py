"""What a caller of `wfx serve` may not take over (issue 26, item 1): publishing a step that runs
code on the service's machine is a right of its own, and a step runs with only what it needs.
A real `wfx serve` on a free port, tokens from `wfx auth token`, requests over TCP."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.cli import Wfx

pytestmark = pytest.mark.integration

DATABASE = "demo"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def serving(wfx: Wfx, *options: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`wfx serve` listening; its base URL and process (stopped with Ctrl-C after)."""
    port = _free_port()
    service = wfx.start("serve", "--port", str(port), *options)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{base}/openapi.json", timeout=1)
            break
        except httpx.TransportError:
            assert service.poll() is None, service.communicate()
            assert time.monotonic() < deadline, "wfx serve did not start listening in 30 s"
            time.sleep(0.1)
    try:
        yield base, service
    finally:
        if service.poll() is None:
            service.send_signal(signal.SIGINT)
        _, stderr = service.communicate(timeout=20)
        assert "Traceback" not in stderr, stderr


def _token(wfx: Wfx, user: str, role: str) -> dict[str, str]:
    token = wfx.ok("auth", "token", user, "--role", role, "--ttl", "10m").stdout.strip()
    return {"Authorization": f"Bearer {token}"}


def _database_admin(wfx: Wfx, user: str = "dana") -> dict[str, str]:
    wfx.ok(
        "auth", "templates", "apply", "Database Admin", "--role", "keepers", "--database", DATABASE
    )
    return _token(wfx, user, "keepers")


def command_workflow(workflow_id: str, code: str) -> dict[str, object]:
    return {
        "databaseId": DATABASE,
        "workflowId": workflow_id,
        "steps": [
            {
                "pipelineId": "step",
                "executionType": "command",
                "command": [sys.executable, "-c", code],
                "inputFileArity": "none",
            }
        ],
    }


def test_a_database_admin_publishes_code_for_the_host_only_once_granted_the_right(
    tmp_path: Path,
) -> None:
    wfx = Wfx(tmp_path / "home")
    headers = _database_admin(wfx)
    workflow = command_workflow("escalate", "print('hello')")

    with serving(wfx) as (base, _):
        refused = httpx.put(f"{base}/workflows", json=workflow, headers=headers)
        assert refused.status_code == 403, refused.text
        message = refused.json()["message"]
        assert "PUT on hostCode" in message and "command step" in message
        assert "Host Code Publisher" in message

        wfx.ok(
            "auth",
            "templates",
            "apply",
            "Host Code Publisher",
            "--role",
            "keepers",
            "--database",
            DATABASE,
        )
        time.sleep(1.2)  # a grant reaches a running service within a second

        accepted = httpx.put(f"{base}/workflows", json=workflow, headers=headers)
        assert accepted.status_code == 201, accepted.text
    assert [row["workflowId"] for row in wfx.json("workflows", "list")["Items"]] == ["escalate"]
