"""Approval gates from the command line, as users do it: `wfx run` stops at the gate and exits,
nothing of wfx stays alive for the waiting run, and `wfx approvals approve` (by an approver, in
another process) carries the run on to its end; a non-approver is refused even as admin."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from adapters.sqlite.approvals import SqliteApprovals
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema
from adapters.tables import TableNames
from domain.approvals import Decision
from domain.run_write import RunWrite
from tests.e2e.cli import TERMINAL, Wfx

pytestmark = pytest.mark.xdist_group("approvals_cli")


def _publish_gated(wfx: Wfx, marker: Path) -> None:
    after = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')"
    document = {
        "databaseId": "demo",
        "workflowId": "gated",
        "steps": [
            {
                "pipelineId": "build",
                "executionType": "command",
                "command": [sys.executable, "-c", "print('built')"],
                "inputFileArity": "none",
            },
            {
                "pipelineId": "sign-off",
                "executionType": "approval",
                "approvers": ["carol", "role::release-managers"],
                "message": "Ship the build?",
                "timeoutSeconds": 600,
            },
            {
                "pipelineId": "ship",
                "executionType": "command",
                "command": [sys.executable, "-c", after],
                "inputFileArity": "none",
            },
        ],
    }
    path = wfx.home / "gated.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def _wfx_processes_of(execution_id: str) -> list[int]:
    """Processes on this host whose command line names the run (a worker would)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if execution_id in command:
            found.append(int(entry.name))
    return found


def test_a_run_parks_at_its_gate_and_an_approver_carries_it_on(tmp_path: Path) -> None:
    wfx = Wfx(tmp_path / "home")
    marker = tmp_path / "shipped"
    _publish_gated(wfx, marker)

    started = wfx("run", "demo/gated")
    assert started.code == 0, str(started)
    execution_id = started.stdout.strip()
    assert "waiting for approval" in started.stderr, str(started)
    assert "wfx approvals approve" in started.stderr

    # parked: RUNNING, the gate's step RUNNING, the next one not started, nothing alive for it
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == "RUNNING", shown
    statuses = [(s["pipelineId"], s["executionStatus"]) for s in shown["pipelines"]]
    assert statuses == [("build", "SUCCEEDED"), ("sign-off", "RUNNING"), ("ship", "NEW")]
    assert _wfx_processes_of(execution_id) == []
    assert not marker.exists()
    pending = wfx.json("approvals", "list", "--pending")["Items"]
    assert [(a["pipelineId"], a["status"]) for a in pending] == [("sign-off", "PENDING")]
    approval_id = pending[0]["approvalId"]
    assert "taskToken" not in pending[0]

    # the CLI user holds admin, which does not make mallory an approver
    refused = wfx.with_environment(WFX_USER="mallory")("approvals", "approve", approval_id)
    assert refused.code != 0, str(refused)
    assert "mallory may not decide" in refused.stderr
    # who wfx took the caller to be, where from, and how to be someone else
    assert "wfx takes you to be mallory (WFX_USER)" in refused.stderr, refused.stderr
    assert "set WFX_USER to decide as another user" in refused.stderr, refused.stderr
    assert len(refused.stderr_lines) == 1, refused.stderr
    assert "Traceback" not in refused.stderr
    assert wfx.json("approvals", "list", "--pending")["Items"][0]["status"] == "PENDING"

    carol = wfx.with_environment(WFX_USER="carol")
    approved = carol("approvals", "approve", approval_id, "--reason", "build looks right")
    assert approved.code == 0, str(approved)
    assert f"{execution_id} SUCCEEDED" in approved.stdout, str(approved)
    assert marker.read_text() == "ran"

    again = carol("approvals", "reject", approval_id, "--reason", "too late")
    assert again.code != 0 and "APPROVED by carol" in again.stderr, str(again)
    decided = wfx.json("approvals", "list", "--execution", execution_id)["Items"]
    assert [(a["status"], a["decidedBy"], a["reason"]) for a in decided] == [
        ("APPROVED", "carol", "build looks right")
    ]
    events = wfx.ok("executions", "events", execution_id).stdout
    assert "ApprovalRequested" in events and "ApprovalDecided" in events, events
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == "SUCCEEDED"
    # a run's decisions are listed with it
    assert [(a["status"], a["decidedBy"]) for a in shown["approvals"]] == [("APPROVED", "carol")]
    text = wfx.ok("executions", "show", execution_id).stdout
    assert "Approvals" in text and "APPROVED by carol" in text, text


def test_a_rejection_needs_a_reason_and_fails_the_run_with_it(tmp_path: Path) -> None:
    wfx = Wfx(tmp_path / "home")
    marker = tmp_path / "shipped"
    _publish_gated(wfx, marker)
    execution_id = wfx("run", "demo/gated").stdout.strip()
    approval_id = wfx.json("approvals", "list", "--pending")["Items"][0]["approvalId"]
    carol = wfx.with_environment(WFX_USER="carol")

    missing = carol("approvals", "reject", approval_id)
    assert missing.code == 2 and "--reason" in missing.stderr, str(missing)

    rejected = carol("approvals", "reject", approval_id, "--reason", "wrong branch")
    assert rejected.code == 0, str(rejected)
    assert f"{execution_id} FAILED" in rejected.stdout
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == "FAILED"
    assert "rejected by carol: wrong branch" in shown["executionError"], shown
    assert not marker.exists()


@pytest.mark.parametrize(
    ("decision", "ended"), [(Decision.APPROVE, "SUCCEEDED"), (Decision.REJECT, "FAILED")]
)
def test_a_run_an_older_wfx_left_parked_at_the_gate_it_decided_goes_on_at_the_next_read(
    tmp_path: Path, decision: Decision, ended: str
) -> None:
    """An older wfx wrote a decision and the run's handover apart, and died between the two:
    the request decided, the run still parked at it, no runner. A read hands it on."""
    wfx = Wfx(tmp_path / "home")
    marker = tmp_path / "shipped"
    _publish_gated(wfx, marker)
    execution_id = wfx("run", "demo/gated").stdout.strip()
    (pending,) = wfx.json("approvals", "list", "--pending")["Items"]
    database = SqliteDatabase(wfx.home / "wfx.db")
    try:  # the decision's write alone, as that wfx made it
        approvals = SqliteApprovals(database, build_schema(TableNames()))
        request = approvals.get(pending["approvalId"])
        decided = request.decide(decision, "carol", (), "decided before", datetime.now(UTC))
        assert SqliteExecutionStore(database, TableNames()).commit(RunWrite.deciding(decided))
    finally:
        database.close()

    shown = wfx.wait_until(execution_id, lambda d: d["executionStatus"] in TERMINAL, seconds=15)

    assert shown["executionStatus"] == ended, shown
    statuses = [s["executionStatus"] for s in shown["pipelines"]]
    if decision is Decision.APPROVE:
        assert statuses == ["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"] and marker.exists()
    else:
        assert statuses == ["SUCCEEDED", "FAILED", "NEW"] and not marker.exists(), statuses
        assert "rejected by carol: decided before" in shown["executionError"], shown
