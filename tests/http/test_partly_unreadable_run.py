"""A run whose main row reads but one of its step rows another writer left in a shape wfx cannot
read, over HTTP on each store: its details (and the viewer's page) show the rest and name the
row left out; a write that would decide on it still answers 409 naming the row; never a 500."""

from __future__ import annotations

import html
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from application.use_cases.launch_execution import LaunchExecutionCommand
from tests.http.conftest import ADMIN, DATABASE, Service
from tests.http.test_abort_meets_delete import launch_held
from tests.http.test_approval_routes import _routes as grant_approval_routes

pytestmark = pytest.mark.parametrize("inline_container", ["sqlite", "dynamodb"], indirect=True)

STEPS = "PipelineExecutionsStorageTable"
EVENTS = "WfxExecutionEventsTable"
BAD_DATE = "yesterday"


def _first_step_row(service: Service, execution_id: str) -> str:
    step = service.container.execution_store().list_steps(execution_id)[0]
    step_id: str = step.pipeline_execution_id
    return step_id


def stored_as(
    service: Service, tmp_path: Path, table: str, key: tuple[str, str], attribute: str, value: str
) -> None:
    """`attribute` of the first row of `table` whose `key` attribute holds `key`'s value set to
    `value` in the store, as another writer might."""
    name, wanted = key
    container: Any = service.container
    if container.config.store() == "dynamodb":
        client = container.dynamodb_client()
        schema = client.describe_table(TableName=table)["Table"]["KeySchema"]
        item = next(i for i in client.scan(TableName=table)["Items"] if i[name]["S"] == wanted)
        client.update_item(
            TableName=table,
            Key={part["AttributeName"]: item[part["AttributeName"]] for part in schema},
            UpdateExpression="SET #a = :v",
            ExpressionAttributeNames={"#a": attribute},
            ExpressionAttributeValues={":v": {"S": value}},
        )
        return
    with sqlite3.connect(tmp_path / "wfx.db") as connection:
        rows = connection.execute(f'SELECT rowid, item FROM "{table}" ORDER BY rowid').fetchall()
        rowid, text = next((r, t) for r, t in rows if json.loads(t)[name] == wanted)
        connection.execute(
            f'UPDATE "{table}" SET item = ? WHERE rowid = ?',
            (json.dumps({**json.loads(text), attribute: value}), rowid),
        )


def stop_date_stored_as(service: Service, tmp_path: Path, step_id: str, value: str) -> None:
    stored_as(
        service, tmp_path, STEPS, ("pipelineExecutionId", step_id), "executionStopDate", value
    )


def test_the_details_show_the_run_and_name_the_step_row_left_out(
    service: Service, tmp_path: Path
) -> None:
    step_id = _first_step_row(service, service.execution_id)
    stop_date_stored_as(service, tmp_path, step_id, BAD_DATE)
    headers = service.as_user(ADMIN, ["admin"])

    answer = service.client.get(
        f"/workflows/executions/{service.execution_id}/details", headers=headers
    )

    assert answer.status_code == 200, answer.text
    details = answer.json()["message"]
    assert details["workflowExecutionId"] == service.execution_id
    assert details["executionStatus"] == "SUCCEEDED"
    assert details["unreadableRows"] == [
        {
            "table": STEPS,
            "key": step_id,
            "attribute": "executionStopDate",
            "problem": f"executionStopDate is not a date (stored: '{BAD_DATE}')",
        }
    ]
    shown = [pipeline["pipelineExecutionId"] for pipeline in details["pipelines"]]
    assert step_id not in shown and len(shown) == 2, shown
    # a run with every row readable has no such field: the document is as it was
    readable = service.launch()
    other = service.client.get(f"/workflows/executions/{readable}/details", headers=headers)
    assert other.status_code == 200 and "unreadableRows" not in other.json()["message"]


def test_the_viewer_page_shows_the_run_with_a_note_naming_the_row_left_out(
    service: Service, tmp_path: Path
) -> None:
    step_id = _first_step_row(service, service.execution_id)
    stop_date_stored_as(service, tmp_path, step_id, BAD_DATE)
    page = service.viewer_page(f"/executions/{service.execution_id}")

    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert 'id="unreadable-rows"' in text
    assert f'{STEPS}</span> row <span class="mono">{step_id}</span>' in text, text
    assert f"executionStopDate is not a date (stored: '{BAD_DATE}')" in text


@pytest.mark.parametrize(
    ("method", "route", "body"),
    [
        ("POST", "/abort", {}),
        ("DELETE", "", {}),
        ("DELETE", "/permanent?force=true", {"confirmDelete": True}),
    ],
    ids=["abort", "vams-abort", "forced-delete"],
)
def test_a_write_of_the_run_still_refuses_naming_the_row_it_cannot_read(
    service: Service, tmp_path: Path, method: str, route: str, body: dict[str, Any]
) -> None:
    """A write decides on every step of the run: it does not act on a partial picture. An
    abort has recorded its request first, as it always does (from then on no step starts), and
    its refusal says so: once the row is mended, an abort again finishes the job."""
    execution_id = launch_held(service)
    step_id = _first_step_row(service, execution_id)
    stop_date_stored_as(service, tmp_path, step_id, BAD_DATE)

    answer = service.client.request(
        method,
        f"/workflows/executions/{execution_id}{route}",
        headers=service.as_user(ADMIN, ("admin",)),
        json=body,
    )

    assert answer.status_code == 409, answer.text
    assert answer.json()["message"] == (
        f"{STEPS} row {step_id} cannot be read: executionStopDate is not a date (stored: "
        f"'{BAD_DATE}'); mend or delete the row (another writer stored it); the abort request "
        "is recorded (no step of the run starts from now on), but the run cannot be ended on a "
        "row wfx cannot read: mend or delete the row, then abort again to finish"
    )
    details = service.client.get(
        f"/workflows/executions/{execution_id}/details", headers=service.as_user(ADMIN, ("admin",))
    )
    assert details.status_code == 200, details.text
    shown = details.json()["message"]
    assert shown["executionStatus"] == "RUNNING"  # nothing ended, nothing deleted
    assert shown["abortRequestedDate"], shown  # as the refusal says
    assert [row["key"] for row in shown["unreadableRows"]] == [step_id]  # left as stored


def test_the_viewer_page_says_in_its_event_log_which_event_row_it_cannot_read(
    service: Service, tmp_path: Path
) -> None:
    """The event log is one read of the page among others: refused, it says why in its place."""
    run = service.execution_id
    stored_as(service, tmp_path, EVENTS, ("workflowExecutionId", run), "occurredAt", "later")
    page = service.viewer_page(f"/executions/{run}")

    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert 'id="run-status">SUCCEEDED<' in text
    event_log = text[text.index('id="events-h"') :]
    assert f"{EVENTS} row {run} / " in event_log, event_log[:600]
    assert "cannot be read: occurredAt is not a date (stored: 'later')" in event_log


def test_a_redrive_still_refuses_naming_the_row_and_a_delete_removes_the_run_with_it(
    service: Service, tmp_path: Path
) -> None:
    """A redrive decides which steps run again: on every step or not at all. A permanent
    delete is the remedy the note names: it takes the row with the rest of the run."""
    from tests.http.test_vams_execution_routes import _failed_run

    failed = _failed_run(service)
    step_id = _first_step_row(service, failed)
    stop_date_stored_as(service, tmp_path, step_id, BAD_DATE)
    headers = service.as_user(ADMIN, ("admin",))

    redrive = service.client.post(f"/workflows/executions/{failed}/redrive", headers=headers)

    assert redrive.status_code == 409, redrive.text
    assert redrive.json()["message"].startswith(f"{STEPS} row {step_id} cannot be read: ")
    store = service.container.execution_store()
    assert store.get_execution(failed).status.value == "FAILED"
    deleted = service.client.request(
        "DELETE",
        f"/workflows/executions/{failed}/permanent",
        headers=headers,
        json={"confirmDelete": True},
    )
    assert deleted.status_code == 200, deleted.text
    assert store.list_readable_steps(failed) == ([], ())


APPROVALS = "WfxApprovalRequestsTable"


def test_a_run_whose_approval_row_wfx_cannot_read_is_shown_and_a_decision_on_it_refused(
    service: Service, tmp_path: Path
) -> None:
    """The run, parked at its gate (open: its read checks the gate), is shown with the rest and
    the approval row named, as any other row; a decision on the gate still refuses naming it,
    nothing decided."""
    execution_id = launch_held(service)
    [request] = service.container.approvals().list_for_execution(execution_id)
    stored_as(
        service,
        tmp_path,
        APPROVALS,
        ("workflowExecutionId", execution_id),
        "approvalStatus",
        "MAYBE",
    )
    headers = service.as_user(ADMIN, ("admin",))

    run = service.client.get(f"/workflows/executions/{execution_id}", headers=headers)
    assert run.status_code == 200, run.text
    details = service.client.get(f"/workflows/executions/{execution_id}/details", headers=headers)
    assert details.status_code == 200, details.text
    shown = details.json()["message"]
    assert shown["executionStatus"] == "RUNNING"
    assert shown["unreadableRows"] == [
        {
            "table": APPROVALS,
            "key": f"{execution_id} / {request.approval_id}",
            "attribute": "approvalStatus",
            "problem": "approvalStatus holds the text 'MAYBE'; wfx expects 'PENDING', "
            "'APPROVED', 'REJECTED', 'TIMED_OUT' or 'CANCELLED'",
        }
    ]
    page = service.viewer_page(f"/executions/{execution_id}")
    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    assert 'id="unreadable-rows"' in text
    key = f"{execution_id} / {request.approval_id}"
    assert f'{APPROVALS}</span> row <span class="mono">{key}</span>' in text, text

    grant_approval_routes(service, "carol")
    decided = service.client.post(
        f"/approvals/{request.approval_id}/decision",
        headers=service.as_user("carol", ()),
        json={"decision": "approve"},
    )
    assert decided.status_code == 409, decided.text
    assert decided.json()["message"].startswith(
        f"{APPROVALS} row {execution_id} / {request.approval_id} cannot be read: approvalStatus"
    )
    again = service.client.get(f"/workflows/executions/{execution_id}/details", headers=headers)
    assert again.json()["message"]["executionStatus"] == "RUNNING"  # nothing decided


def test_the_approvals_list_leaves_out_a_row_wfx_cannot_read_and_logs_it(
    service: Service, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two runs held at their gates, one gate's row unreadable: the list (all runs, one run's,
    page by page) answers the other, the row named in the service's log; never a 409."""
    bad_run = launch_held(service)
    good_run = (
        service.container.launch_execution()
        .execute(
            LaunchExecutionCommand(workflow_database_id=DATABASE, workflow_id="held", user_id=ADMIN)
        )
        .execution.workflow_execution_id
    )
    [bad] = service.container.approvals().list_for_execution(bad_run)
    stored_as(
        service, tmp_path, APPROVALS, ("workflowExecutionId", bad_run), "approvalStatus", "MAYBE"
    )
    headers = service.as_user(ADMIN, ("admin",))
    warning = (
        f"warning: {APPROVALS} row {bad_run} / {bad.approval_id} cannot be read: approvalStatus "
        "holds the text 'MAYBE'"
    )

    def listed(**params: Any) -> dict[str, Any]:
        caplog.clear()
        with caplog.at_level("WARNING", logger="wfx.rows"):
            answer = service.client.get("/approvals", params=params, headers=headers)
        assert answer.status_code == 200, answer.text
        assert [r.getMessage()[: len(warning)] for r in caplog.records] == [warning]
        page: dict[str, Any] = answer.json()
        return page

    for params in ({}, {"pending": "true"}):
        page = listed(**params)
        assert [a["workflowExecutionId"] for a in page["Items"]] == [good_run], params
    assert listed(execution=bad_run)["Items"] == []
    seen: list[str] = []
    token: dict[str, str] = {}
    for _ in range(3):
        answer = service.client.get("/approvals", params={"limit": 1, **token}, headers=headers)
        assert answer.status_code == 200, answer.text
        seen += [a["workflowExecutionId"] for a in answer.json()["Items"]]
        if not answer.json()["NextToken"]:
            break
        token = {"startingToken": answer.json()["NextToken"]}
    assert seen == [good_run]
