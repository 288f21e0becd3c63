"""Rows of wfx's own tables (attempts, events) that another writer (a person, an older wfx) left
in a shape wfx cannot read, in a real SQLite file, read by a real `wfx`: a read of the run shows
the rest and names the row; a read that is nothing but such rows refuses naming it; never a
traceback; the row left as it was."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx

ATTEMPTS = "WfxTaskExecutionsTable"
EVENTS = "WfxExecutionEventsTable"
ENDING = "; mend or delete the row (another writer stored it)"


def _a_run(wfx: Wfx) -> str:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    return wfx.run_id("demo/trivial")


def _edit_first(wfx: Wfx, table: str, **changes: Any) -> dict[str, Any]:
    """The table's first row with `changes`, written over it; that row as it was."""
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        rowid, text = connection.execute(
            f'SELECT rowid, item FROM "{table}" ORDER BY rowid LIMIT 1'
        ).fetchone()
        item: dict[str, Any] = json.loads(text)
        connection.execute(
            f'UPDATE "{table}" SET item = ? WHERE rowid = ?', (json.dumps(item | changes), rowid)
        )
    return item


def _rows(wfx: Wfx, table: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        return connection.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall()


def test_show_and_logs_leave_out_an_attempt_row_wfx_cannot_read_and_name_it(wfx: Wfx) -> None:
    run = _a_run(wfx)
    first = _edit_first(wfx, ATTEMPTS, startDate="soon")
    before = _rows(wfx, ATTEMPTS)
    said = (
        f"{ATTEMPTS} row {first['pipelineExecutionId']} / 1 cannot be read: startDate is not a "
        "date (stored: 'soon'); left out of what is shown" + ENDING
    )

    shown = wfx("executions", "show", run)
    assert shown.code == 0, str(shown)
    assert shown.stderr_lines == [f"warning: {said}"], str(shown)
    as_json = wfx("executions", "show", run, "--json")
    assert as_json.code == 0, str(as_json)
    assert as_json.json()["unreadableRows"] == [
        {
            "table": ATTEMPTS,
            "key": f"{first['pipelineExecutionId']} / 1",
            "attribute": "startDate",
            "problem": "startDate is not a date (stored: 'soon')",
        }
    ]
    logs = wfx("executions", "logs", run)
    assert logs.code == 0, str(logs)
    assert f"warning: {said}" in logs.stderr_lines, str(logs)
    assert _rows(wfx, ATTEMPTS) == before


def test_events_of_a_run_with_an_event_row_wfx_cannot_read_refuse_naming_it(wfx: Wfx) -> None:
    run = _a_run(wfx)
    _edit_first(wfx, EVENTS, occurredAt="later")
    before = _rows(wfx, EVENTS)

    for args in (("events", run), ("events", run, "--json")):
        outcome = wfx("executions", *args)
        assert outcome.code == 2, str(outcome)
        assert outcome.stderr_lines == [
            f"error: {EVENTS} row {run} / 1 cannot be read: occurredAt is not a date (stored: "
            f"'later'){ENDING}"
        ], str(outcome)
    assert wfx("executions", "show", run).code == 0  # a show reads no event row
    assert _rows(wfx, EVENTS) == before


def test_events_of_a_run_with_an_event_type_wfx_has_no_name_for_name_the_row(wfx: Wfx) -> None:
    """Before, the refusal blamed `event_type` as if the caller had sent it."""
    run = _a_run(wfx)
    _edit_first(wfx, EVENTS, eventType="ExecutionPaused")

    outcome = wfx("executions", "events", run)

    assert outcome.code == 2, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith(
        f"error: {EVENTS} row {run} / 1 cannot be read: eventType holds the text "
        "'ExecutionPaused'; wfx expects 'ExecutionLaunched', "
    ), line
    assert line.endswith(ENDING), line


APPROVALS = "WfxApprovalRequestsTable"


def test_show_of_a_run_at_its_gate_whose_approval_row_wfx_cannot_read_names_it(
    wfx: Wfx, tmp_path: Any
) -> None:
    """The run, open at its gate (its read checks the gate), is shown with the rest and the
    approval row named; an approver's decision refuses naming it, nothing decided."""
    from tests.e2e.test_cli_approvals import _publish_gated

    _publish_gated(wfx, tmp_path / "shipped")
    run = wfx("run", "demo/gated").stdout.strip()
    first = _edit_first(wfx, APPROVALS, approvalStatus="MAYBE")
    before = _rows(wfx, APPROVALS)
    key = f"{run} / {first['approvalId']}"
    problem = (
        "approvalStatus holds the text 'MAYBE'; wfx expects 'PENDING', 'APPROVED', 'REJECTED', "
        "'TIMED_OUT' or 'CANCELLED'"
    )
    said = f"{APPROVALS} row {key} cannot be read: {problem}"

    shown = wfx("executions", "show", run)
    assert shown.code == 0, str(shown)
    assert shown.stderr_lines == [f"warning: {said}; left out of what is shown{ENDING}"], str(shown)
    as_json = wfx("executions", "show", run, "--json")
    assert as_json.code == 0, str(as_json)
    assert as_json.json()["executionStatus"] == "RUNNING"
    assert as_json.json()["unreadableRows"] == [
        {"table": APPROVALS, "key": key, "attribute": "approvalStatus", "problem": problem}
    ]
    decided = wfx.with_environment(WFX_USER="carol")("approvals", "approve", first["approvalId"])
    assert decided.code == 2, str(decided)
    assert decided.stderr_lines == [f"error: {said}{ENDING}"], str(decided)
    assert wfx.json("executions", "show", run)["executionStatus"] == "RUNNING"
    assert _rows(wfx, APPROVALS) == before


def _edit_approval_of(wfx: Wfx, execution_id: str, **changes: Any) -> dict[str, Any]:
    """The run's approval row with `changes`, written over it; that row as it was."""
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        rowid, text = connection.execute(
            f'SELECT rowid, item FROM "{APPROVALS}" WHERE item ->> ? = ?',
            ("$.workflowExecutionId", execution_id),
        ).fetchone()
        item: dict[str, Any] = json.loads(text)
        connection.execute(
            f'UPDATE "{APPROVALS}" SET item = ? WHERE rowid = ?',
            (json.dumps(item | changes), rowid),
        )
    return item


def test_approvals_list_leaves_out_a_row_wfx_cannot_read_naming_it_and_closes_the_overdue_rest(
    wfx: Wfx, tmp_path: Any
) -> None:
    """Two runs parked at their gates, the newer gate's row unreadable: every list names that
    row on stderr and lists the rest, a page ending on it pages on; the other gate, past its
    time, is closed as it is listed."""
    from tests.e2e.test_cli_approvals import _publish_gated

    _publish_gated(wfx, tmp_path / "shipped")
    good_run = wfx("run", "demo/gated").stdout.strip()
    bad_run = wfx("run", "demo/gated").stdout.strip()
    bad = _edit_approval_of(wfx, bad_run, approvalStatus="MAYBE")
    warning = (
        f"warning: {APPROVALS} row {bad_run} / {bad['approvalId']} cannot be read: "
        "approvalStatus holds the text 'MAYBE'; wfx expects 'PENDING', 'APPROVED', 'REJECTED', "
        f"'TIMED_OUT' or 'CANCELLED'{ENDING}; left out of the list"
    )

    for args in ((), ("--pending",)):
        listed = wfx("approvals", "list", *args, "--json")
        assert listed.code == 0, str(listed)
        assert [a["workflowExecutionId"] for a in listed.json()["Items"]] == [good_run], args
        assert listed.stderr_lines == [warning], str(listed)
    first = wfx("approvals", "list", "--limit", "1", "--json")
    assert first.code == 0, str(first)
    assert (first.json()["Items"], first.stderr_lines) == ([], [warning]), str(first)
    token = first.json()["NextToken"]
    second = wfx.json("approvals", "list", "--limit", "1", "--starting-token", token)
    assert [a["workflowExecutionId"] for a in second["Items"]] == [good_run]
    one_run = wfx("approvals", "list", "--execution", bad_run)
    assert one_run.code == 0, str(one_run)
    assert one_run.stdout.strip() == "no approvals", str(one_run)
    assert one_run.stderr_lines == [warning], str(one_run)

    _edit_approval_of(wfx, good_run, expiresAt="2020-01-01T00:00:00.000000Z")
    before = _rows(wfx, APPROVALS)[1]
    listed = wfx("approvals", "list", "--json")
    assert listed.code == 0, str(listed)
    assert [a["status"] for a in listed.json()["Items"]] == ["TIMED_OUT"], str(listed)
    assert _rows(wfx, APPROVALS)[1] == before  # the unreadable row as planted
    ended = wfx.wait_until(good_run, lambda d: d["executionStatus"] != "RUNNING", seconds=15)
    assert ended["executionStatus"] == "TIMED_OUT", ended


def _edit_run(wfx: Wfx, execution_id: str, **changes: Any) -> None:
    table = "WorkflowExecutionsStorageTableV2"
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        rowid, text = connection.execute(
            f'SELECT rowid, item FROM "{table}" WHERE item ->> ? = ?',
            ("$.workflowExecutionId", execution_id),
        ).fetchone()
        item = json.loads(text) | changes
        connection.execute(
            f'UPDATE "{table}" SET item = ? WHERE rowid = ?', (json.dumps(item), rowid)
        )


def test_approvals_list_closes_the_overdue_gates_whose_runs_it_reads_past_one_it_cannot(
    wfx: Wfx, tmp_path: Any
) -> None:
    """Two overdue gates, one run's main row unreadable: that gate is not closed on a run wfx
    cannot read (listed as stored, its run named); the other is closed and its run ends."""
    from tests.e2e.test_cli_approvals import _publish_gated

    _publish_gated(wfx, tmp_path / "shipped")
    good_run = wfx("run", "demo/gated").stdout.strip()
    bad_run = wfx("run", "demo/gated").stdout.strip()
    for run in (good_run, bad_run):
        _edit_approval_of(wfx, run, expiresAt="2020-01-01T00:00:00.000000Z")
    _edit_run(wfx, bad_run, executionStatus="CANCELLED")
    before = _rows(wfx, APPROVALS)[1]

    listed = wfx("approvals", "list", "--json")
    assert listed.code == 0, str(listed)
    statuses = {a["workflowExecutionId"]: a["status"] for a in listed.json()["Items"]}
    assert statuses == {good_run: "TIMED_OUT", bad_run: "PENDING"}, str(listed)
    [line] = listed.stderr_lines
    assert line.startswith(
        f"warning: WorkflowExecutionsStorageTableV2 row {bad_run} cannot be read: "
        "executionStatus holds the text 'CANCELLED'"
    ), line
    assert _rows(wfx, APPROVALS)[1] == before  # its gate is not closed
    ended = wfx.wait_until(good_run, lambda d: d["executionStatus"] != "RUNNING", seconds=15)
    assert ended["executionStatus"] == "TIMED_OUT", ended


def test_an_overdue_gate_whose_run_has_a_step_row_wfx_cannot_read_is_left_open_naming_it(
    wfx: Wfx, tmp_path: Any
) -> None:
    """The gate's time-out resumes the run, which reads every step: a step row it cannot read
    failed that resume after the gate was closed, so `approvals list` exited 2 for every run's
    gates and left this run RUNNING behind a TIMED_OUT gate. Now the gate is not closed on a run
    wfx cannot read whole (the row named), and the other gate closes and its run ends."""
    from tests.e2e.test_cli_approvals import _publish_gated

    _publish_gated(wfx, tmp_path / "shipped")
    good_run = wfx("run", "demo/gated").stdout.strip()
    bad_run = wfx("run", "demo/gated").stdout.strip()
    # read before the gates are made overdue: a show closes its run's overdue gate
    ship = wfx.json("executions", "show", bad_run)["pipelines"][2]["pipelineExecutionId"]
    _unreadable_step(wfx, ship)
    for run in (good_run, bad_run):
        _edit_approval_of(wfx, run, expiresAt="2020-01-01T00:00:00.000000Z")
    before = (_rows(wfx, APPROVALS)[1], _rows(wfx, "WorkflowExecutionsStorageTableV2"))
    said = (
        f"PipelineExecutionsStorageTable row {ship} cannot be read: executionStopDate is not a "
        "date (stored: 'yesterday')"
    )

    listed = wfx("approvals", "list", "--json")
    assert listed.code == 0, str(listed)
    statuses = {a["workflowExecutionId"]: a["status"] for a in listed.json()["Items"]}
    assert statuses == {good_run: "TIMED_OUT", bad_run: "PENDING"}, str(listed)
    [line] = listed.stderr_lines
    assert line.startswith(f"warning: {said}{ENDING}; approval "), line
    assert line.endswith("is past its time but left open until then"), line
    ended = wfx.wait_until(good_run, lambda d: d["executionStatus"] != "RUNNING", seconds=15)
    assert ended["executionStatus"] == "TIMED_OUT", ended
    shown = wfx("executions", "show", bad_run, "--json")  # its read checks its gate too
    assert shown.code == 0, str(shown)
    assert shown.json()["executionStatus"] == "RUNNING"
    assert shown.stderr_lines == [f"warning: {said}; left out of what is shown{ENDING}"]
    runs = _rows(wfx, "WorkflowExecutionsStorageTableV2")
    assert (_rows(wfx, APPROVALS)[1], [r for r in runs if bad_run in str(r)]) == (
        before[0],
        [r for r in before[1] if bad_run in str(r)],
    )


def _unreadable_step(wfx: Wfx, pipeline_execution_id: str) -> None:
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        rowid, text = connection.execute(
            'SELECT rowid, item FROM "PipelineExecutionsStorageTable" WHERE item ->> ? = ?',
            ("$.pipelineExecutionId", pipeline_execution_id),
        ).fetchone()
        connection.execute(
            'UPDATE "PipelineExecutionsStorageTable" SET item = ? WHERE rowid = ?',
            (json.dumps(json.loads(text) | {"executionStopDate": "yesterday"}), rowid),
        )


def test_a_decision_on_a_gate_whose_run_has_a_step_row_wfx_cannot_read_refuses_naming_it(
    wfx: Wfx, tmp_path: Any
) -> None:
    """The decision resumes the run, which reads every step: before, the gate was APPROVED (or
    closed TIMED_OUT, past its time), the resume died on the row with a traceback on stderr,
    and the run stayed RUNNING behind a closed gate. Now nothing is decided, the row named."""
    from tests.e2e.test_cli_approvals import _publish_gated

    _publish_gated(wfx, tmp_path / "shipped")
    run = wfx("run", "demo/gated").stdout.strip()
    ship = wfx.json("executions", "show", run)["pipelines"][2]["pipelineExecutionId"]
    _unreadable_step(wfx, ship)
    said = (
        f"error: PipelineExecutionsStorageTable row {ship} cannot be read: executionStopDate "
        f"is not a date (stored: 'yesterday'){ENDING}"
    )
    carol = wfx.with_environment(WFX_USER="carol")
    before = _rows(wfx, APPROVALS)
    approval_id = json.loads(before[0][-1])["approvalId"]

    for overdue in (False, True):
        if overdue:
            _edit_approval_of(wfx, run, expiresAt="2020-01-01T00:00:00.000000Z")
            before = _rows(wfx, APPROVALS)
        decided = carol("approvals", "approve", approval_id)
        assert decided.code == 2, str(decided)
        assert decided.stderr_lines == [said], str(decided)
        assert _rows(wfx, APPROVALS) == before
    assert wfx.json("executions", "show", run)["executionStatus"] == "RUNNING"
