"""VAMS 2.6's execution routes as its clients call them, on both stores: the bare DELETE aborts
(a group's with `?groupId=`), the permanent delete has its own path and wants a confirmation.
The expected documents are written here from VAMS's handlers and models, not from wfx."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml

from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.authorization import Action
from domain.constraints import Operator
from domain.execution import OutputMetadata, StepOutputs
from domain.redaction import redact
from tests.http.conftest import ADMIN, DATABASE, WORKFLOW, WORKFLOW_FILE, Service, allow

GATED = {
    **yaml.safe_load((WORKFLOW_FILE.parent / "gated.yaml").read_text()),
    "databaseId": DATABASE,
}
RUNS = "/workflows/executions"


def _admin(service: Service) -> dict[str, str]:
    return service.as_user(ADMIN, ("admin",))


def _status(service: Service, execution_id: str) -> str:
    query = GetExecutionQuery(workflow_execution_id=execution_id)
    return str(service.container.get_execution().execute(query).status.value)


def _open_run(service: Service, group: str | None = None, user: str = ADMIN) -> str:
    """A run parked RUNNING at its approval gate."""
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=parse_workflow_document(GATED))
    )
    command = LaunchExecutionCommand(
        workflow_database_id=DATABASE,
        workflow_id=GATED["workflowId"],
        inputs=(f"{DATABASE}/inputs",),
        execution_group_id=group,
        user_id=user,
    )
    launched = service.container.launch_execution().execute(command)
    execution_id = str(launched.execution.workflow_execution_id)
    assert _status(service, execution_id) == "RUNNING"
    return execution_id


def _delete(service: Service, path: str, **options: Any) -> Any:
    return service.client.request("DELETE", path, headers=_admin(service), **options)


def test_a_vams_abort_of_a_finished_run_leaves_it_stored(service: Service) -> None:
    finished = service.execution_id
    before = _status(service, finished)

    answer = _delete(service, f"{RUNS}/{finished}")

    assert (answer.status_code, answer.json()) == (200, {"message": "Execution aborted"})
    assert _status(service, finished) == before  # not deleted, not changed
    read = service.client.get(f"{RUNS}/{finished}/details", headers=_admin(service))
    assert read.status_code == 200


def test_a_vams_abort_of_an_open_run_aborts_it(service: Service) -> None:
    running = _open_run(service)
    answer = _delete(service, f"{RUNS}/{running}")
    assert (answer.status_code, answer.json()) == (200, {"message": "Execution aborted"})
    assert _status(service, running) == "ABORTED"


def test_a_vams_abort_given_dates_or_other_fields_is_a_400_naming_them(service: Service) -> None:
    """VAMS's DELETE takes no body; seed 000's stop dates are the writers' own clock, and
    `finishingDate` is wfx's mark of a completion begun: a caller's value is refused, never
    silently dropped with the run aborted as if it had not been sent."""
    running = _open_run(service)
    for body in (
        {"finishingDate": "2026-12-05T09:00:00Z"},
        {"executionStopDate": "2020-01-01T00:00:00Z"},
        {"confirmDelete": True},  # meant for /permanent
    ):
        answer = _delete(service, f"{RUNS}/{running}", json=body)
        assert answer.status_code == 400, answer.text
        (field,) = body
        assert field in answer.json()["message"], answer.text
    assert _status(service, running) == "RUNNING"
    no_body: list[dict[str, Any]] = [{}, {"json": {}}]  # none, or an empty one, as VAMS sends
    for options in no_body:
        answer = _delete(service, f"{RUNS}/{running}", **options)
        assert (answer.status_code, answer.json()) == (200, {"message": "Execution aborted"})
    assert _status(service, running) == "ABORTED"


def test_an_abort_of_an_unknown_run_is_a_404(service: Service) -> None:
    answer = _delete(service, f"{RUNS}/0b9e2f4c6a1d4e0b9a573f2c1d0e8b71")
    assert answer.status_code == 404
    assert set(answer.json()) == {"message"}


def test_a_group_abort_stops_the_open_members_and_names_the_ended(service: Service) -> None:
    first, second = _open_run(service, "batch-7"), _open_run(service, "batch-7")
    answer = _delete(service, f"{RUNS}/{first}", params={"groupId": "batch-7"})
    assert answer.status_code == 200, answer.text
    message = answer.json()["message"]
    assert message["groupId"] == "batch-7"
    assert sorted(message["results"], key=lambda r: r["executionId"]) == sorted(
        [
            {"executionId": first, "status": "aborted"},
            {"executionId": second, "status": "aborted"},
        ],
        key=lambda r: r["executionId"],
    )
    assert "skippedInaccessibleCount" not in message and "moreRemaining" not in message
    assert {_status(service, first), _status(service, second)} == {"ABORTED"}

    again = _delete(service, f"{RUNS}/{first}", params={"groupId": "batch-7"}).json()["message"]
    assert {r["status"] for r in again["results"]} == {"skipped-terminal"}


def test_a_group_abort_counts_but_never_names_a_member_the_caller_may_not_abort(
    service: Service,
) -> None:
    mine = _open_run(service, "shared", user="carol")
    other = _open_run(service, "shared")
    # carol may call the route and read everything, but abort (POST on assets) nothing
    service.grant(
        "carol",
        "reader",
        [
            allow("reader", "routes", "api", Action.DELETE, Operator.STARTS_WITH, route__path="/"),
            allow("reader", "wf", "workflow", Action.GET, Operator.STARTS_WITH, databaseId=""),
            allow("reader", "assets", "asset", Action.GET, Operator.STARTS_WITH, databaseId=""),
        ],
    )
    answer = service.client.delete(
        f"{RUNS}/{mine}", params={"groupId": "shared"}, headers=service.as_user("carol")
    )
    assert answer.status_code == 200, answer.text
    message = answer.json()["message"]
    assert message["results"] == [] and message["skippedInaccessibleCount"] == 2
    assert mine not in answer.text and other not in answer.text
    assert {_status(service, mine), _status(service, other)} == {"RUNNING"}


def test_a_group_with_no_run_is_a_404(service: Service) -> None:
    answer = _delete(service, f"{RUNS}/{service.execution_id}", params={"groupId": "nobody"})
    assert (answer.status_code, answer.json()) == (
        404,
        {"message": "No executions found for group"},
    )


def test_a_permanent_delete_without_its_confirmation_is_a_400_and_deletes_nothing(
    service: Service,
) -> None:
    path = f"{RUNS}/{service.execution_id}/permanent"
    sent: list[dict[str, Any]] = [{}, {"json": {}}, {"json": {"confirmDelete": False}}]
    for options in sent:
        answer = _delete(service, path, **options)
        assert answer.status_code == 400, answer.text
        assert "confirmDelete" in answer.json()["message"]
    assert _status(service, service.execution_id) == "SUCCEEDED"


def test_a_permanent_delete_of_an_open_run_is_refused_unless_forced(service: Service) -> None:
    running = _open_run(service)
    path = f"{RUNS}/{running}/permanent"
    refused = _delete(service, path, json={"confirmDelete": True})
    assert refused.status_code == 409, refused.text
    forced = _delete(service, path, json={"confirmDelete": True}, params={"force": "true"})
    assert forced.json() == {"message": "Execution records permanently deleted"}
    assert service.client.get(f"{RUNS}/{running}", headers=_admin(service)).status_code == 404


def _ids(answer: Any) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [item["workflowExecutionId"] for item in answer.json()["message"]["Items"]]


def test_the_list_takes_vams_s_parameters_and_says_its_window(service: Service) -> None:
    grouped = _open_run(service, "batch-9")
    headers = _admin(service)
    listed = service.client.get(RUNS, params={"pageSize": "1"}, headers=headers)
    assert _ids(listed) == [grouped]
    page = listed.json()["message"]
    # VAMS: 90 days back by default, said back as YYYY-MM-DDTHH:MM:SSZ
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", page["filterStartDate"])
    assert "filterEndDate" not in page
    rest = service.client.get(
        RUNS, params={"pageSize": "1", "NextToken": page["NextToken"]}, headers=headers
    )
    assert _ids(rest) == [service.execution_id]

    for params, listed_ids in (
        ({"groupId": "batch-9"}, [grouped]),
        ({"status": "RUNNING"}, [grouped]),
        ({"triggerType": "Manual", "triggeredByUserId": ADMIN}, [grouped, service.execution_id]),
        ({"triggerType": "File-Upload"}, []),
        ({"triggeredByUserId": "someone-else"}, []),
        ({"workflowId": GATED["workflowId"]}, [grouped]),
        ({"workflowDatabaseId": DATABASE}, [grouped, service.execution_id]),
        ({"filterStartDate": "2999-01-01"}, []),
        ({"filterStartDate": "2000-01-01", "filterEndDate": "2000-12-31"}, []),
    ):
        assert _ids(service.client.get(RUNS, params=params, headers=headers)) == listed_ids, params
    window = service.client.get(
        RUNS,
        params={"filterStartDate": "2000-01-01", "filterEndDate": "2999-01-01"},
        headers=headers,
    ).json()["message"]
    assert (window["filterStartDate"], window["filterEndDate"]) == (
        "2000-01-01T00:00:00Z",
        "2999-01-01T00:00:00Z",
    )


def test_a_page_size_past_the_ceiling_is_served_as_the_ceiling(service: Service) -> None:
    answer = service.client.get(RUNS, params={"pageSize": "5000"}, headers=_admin(service))
    assert _ids(answer) == [service.execution_id]


def test_a_bad_list_parameter_is_a_400_naming_it(service: Service) -> None:
    for params, named in (
        ({"pageSize": "many"}, "pageSize"),
        ({"pageSize": "-1"}, "pageSize"),
        ({"filterStartDate": "31/01/2026"}, "filterStartDate"),
        ({"filterEndDate": "2026-13-01"}, "filterEndDate"),
        ({"filterStartDate": "2026-02-01", "filterEndDate": "2026-01-01"}, "filterEndDate"),
        ({"triggerType": "cron"}, "triggerType"),
        ({"status": "DONE"}, "status"),
        ({"NextToken": "not a token"}, "startingToken"),
    ):
        answer = service.client.get(RUNS, params=params, headers=_admin(service))
        assert answer.status_code == 400, (params, answer.text)
        assert named in answer.json()["message"], params


def test_an_asset_s_list_holds_the_runs_that_read_it_and_those_that_wrote_it(
    service: Service,
) -> None:
    reader = _open_run(service, "batch-3")  # reads http/inputs, writes nothing
    headers = _admin(service)
    inputs = f"/database/{DATABASE}/assets/inputs/workflows/executions"
    results = f"/database/{DATABASE}/assets/results/workflows/executions"
    assert _ids(service.client.get(inputs, headers=headers)) == [reader, service.execution_id]
    assert _ids(service.client.get(results, headers=headers)) == [service.execution_id]
    answer = service.client.get(inputs, params={"pageSize": "1"}, headers=headers)
    assert "filterStartDate" in answer.json()["message"]
    rest = service.client.get(
        inputs, params={"startingToken": answer.json()["message"]["NextToken"]}, headers=headers
    )
    assert _ids(rest) == [service.execution_id]

    one_workflow = f"{inputs}/{GATED['workflowId']}"
    assert _ids(service.client.get(one_workflow, headers=headers)) == [reader]
    with_database = {"workflowDatabaseId": "elsewhere"}
    assert _ids(service.client.get(one_workflow, params=with_database, headers=headers)) == []
    assert _ids(service.client.get(inputs, params={"groupId": "batch-3"}, headers=headers)) == [
        reader
    ]
    nothing = f"/database/{DATABASE}/assets/never-used/workflows/executions"
    assert _ids(service.client.get(nothing, headers=headers)) == []


def test_an_asset_s_list_shows_only_the_runs_the_caller_may_read(service: Service) -> None:
    inputs = f"/database/{DATABASE}/assets/inputs/workflows/executions"
    service.grant(
        "dave",
        "routes",
        [allow("routes", "r", "api", Action.GET, Operator.STARTS_WITH, route__path="/")],
    )
    answer = service.client.get(inputs, headers=service.as_user("dave"))
    assert _ids(answer) == []


EXECUTE = f"/workflows/{DATABASE}/{WORKFLOW['workflowId']}/execute"


def test_a_launch_at_vams_s_path_with_vams_s_keys_answers_as_vams(service: Service) -> None:
    body = {
        "inputFiles": [
            {"databaseId": DATABASE, "assetId": "inputs", "relativeFileKey": "/a.obj"},
            {"databaseId": DATABASE, "assetId": "inputs", "relativeFileKey": "/", "versionId": ""},
        ],
        "metadataSourceAssets": [],
        "outputDatabaseId": DATABASE,
        "outputAssetId": "results",
        "outputFileBaseExecutionPathExtension": "",
        "pipelineExecutionParameters": {},
        "executionGroupId": "nightly",
        "triggerType": "manual",
    }
    answer = service.client.post(EXECUTE, json=body, headers=_admin(service))
    assert answer.status_code == 200, answer.text
    message = answer.json()["message"]
    assert set(message) == {"executionId", "executionGroupId", "warnings"}
    assert (message["executionGroupId"], message["warnings"]) == ("nightly", None)
    run = service.container.get_execution().execute(
        GetExecutionQuery(workflow_execution_id=message["executionId"])
    )
    assert (run.workflow_id, run.execution_group_id, run.trigger_type.value) == (
        WORKFLOW["workflowId"],
        "nightly",
        "Manual",
    )
    listed = service.client.get(
        f"/database/{DATABASE}/assets/results/workflows/executions", headers=_admin(service)
    )
    assert message["executionId"] in _ids(listed)


def test_a_vams_launch_with_no_group_says_null(service: Service) -> None:
    body = {"inputFiles": [{"databaseId": DATABASE, "assetId": "inputs", "relativeFileKey": "/"}]}
    answer = service.client.post(EXECUTE, json=body, headers=_admin(service))
    assert answer.status_code == 200, answer.text
    assert answer.json()["message"]["executionGroupId"] is None


def test_a_vams_launch_wfx_cannot_do_yet_is_a_400_naming_the_key(service: Service) -> None:
    whole = {"databaseId": DATABASE, "assetId": "inputs", "relativeFileKey": "/"}
    for body, named in (
        ({"inputFiles": [{**whole, "relativeFileKey": "a.obj"}]}, "relativeFileKey"),
        ({"inputFiles": [{**whole, "relativeFileKey": "/../x"}]}, "relativeFileKey"),
        ({"inputFiles": [{**whole, "versionId": "v1"}]}, "inputFiles[0].versionId"),
        ({"metadataSourceDatabaseId": DATABASE}, "metadataSourceDatabaseId"),
        (
            {"pipelineExecutionParameters": {"p1": {"templateId": "t"}}},
            "pipelineExecutionParameters",
        ),
        (
            {"outputFileBaseExecutionPathExtension": "/{{x}}/"},
            "outputFileBaseExecutionPathExtension",
        ),
        ({"outputAssetId": "results"}, "outputDatabaseId"),
        ({"triggerType": "cron"}, "triggerType"),
        ({"surprise": 1}, "surprise"),
    ):
        answer = service.client.post(EXECUTE, json=body, headers=_admin(service))
        assert answer.status_code == 400, (body, answer.text)
        assert named in answer.json()["message"], (body, answer.json())


def _logs(service: Service, **params: str) -> Any:
    return service.client.get(
        f"{RUNS}/{service.execution_id}/logs", params=params, headers=_admin(service)
    )


def test_the_logs_take_vams_s_truncated_mode_and_narrowing(service: Service) -> None:
    truncated, summary = _logs(service, mode="truncated"), _logs(service, mode="summary")
    assert truncated.status_code == 200, truncated.text
    assert truncated.json() == summary.json() == _logs(service).json()
    assert set(truncated.json()) == {"message"}  # VAMS's envelope
    whole = truncated.json()["message"]
    assert whole["executionLog"] and len({a["pipelineExecutionId"] for a in whole["attempts"]}) > 1

    step = whole["attempts"][0]["pipelineExecutionId"]
    one = _logs(service, pipelineExecutionId=step).json()["message"]
    assert "executionLog" not in one  # that step's lines, not the run's log
    assert {a["pipelineExecutionId"] for a in one["attempts"]} == {step}
    assert one["attempts"] == [a for a in whole["attempts"] if a["pipelineExecutionId"] == step]
    full = _logs(service, mode="full", pipelineExecutionId=step).json()["message"]
    assert {s["pipelineExecutionId"] for s in full["logSources"]} <= {step}
    # said back as VAMS does: the mode, and the step asked for ("" on a whole run's full read)
    assert (whole["mode"], one["mode"], full["mode"]) == ("truncated", "truncated", "full")
    assert "pipelineExecutionId" not in whole
    assert one["pipelineExecutionId"] == full["pipelineExecutionId"] == step
    assert _logs(service, mode="full").json()["message"]["pipelineExecutionId"] == ""

    lines = [line for a in whole["attempts"] for line in a["lines"]]
    text = next(line for line in lines if " " in line).split(" ")[0]
    narrowed = _logs(service, filterPattern=f'"{text}"').json()["message"]
    kept = [line for a in narrowed["attempts"] for line in a["lines"]]
    assert kept == [line for line in lines if text in line]
    assert all(text in line for line in narrowed["executionLog"].splitlines())

    bounded = _logs(service, mode="full", limit="5000", startTime="0", endTime="4102444800000")
    assert bounded.status_code == 200, bounded.text


def _failed_run(service: Service) -> str:
    """A run whose one step failed."""
    failing = {
        "databaseId": DATABASE,
        "workflowId": "failing",
        "steps": [
            {
                "pipelineId": "fail",
                "executionType": "command",
                "command": [sys.executable, "-c", "raise SystemExit(3)"],
                "inputFileArity": "none",
            }
        ],
    }
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=parse_workflow_document(failing))
    )
    command = LaunchExecutionCommand(
        workflow_database_id=DATABASE, workflow_id="failing", user_id=ADMIN
    )
    failed = str(
        service.container.launch_execution().execute(command).execution.workflow_execution_id
    )
    assert _status(service, failed) == "FAILED"
    return failed


def test_the_truncated_whole_run_logs_say_the_run_s_error_as_vams_s_viewer_prints_it(
    service: Service,
) -> None:
    failed = _failed_run(service)
    error = service.container.get_execution().execute(
        GetExecutionQuery(workflow_execution_id=failed)
    )
    assert error.execution_error

    path = f"{RUNS}/{failed}/logs"
    whole = service.client.get(path, params={"mode": "truncated"}, headers=_admin(service))
    whole = whole.json()["message"]
    assert whole["executionError"] == error.execution_error
    # a run with no error says so with "" (VAMS always sends the key on this answer)
    assert _logs(service, mode="truncated").json()["message"]["executionError"] == ""
    # not on one step's answer, nor on a read of the sources
    step = service.container.execution_store().list_steps(failed)[0].pipeline_execution_id
    one = service.client.get(
        path, params={"pipelineExecutionId": step}, headers=_admin(service)
    ).json()["message"]
    full = service.client.get(path, params={"mode": "full"}, headers=_admin(service))
    full = full.json()["message"]
    assert "executionError" not in one and "executionError" not in full


def test_one_step_s_truncated_logs_say_its_stored_error_log_beside_its_result_log(
    service: Service,
) -> None:
    failed = _failed_run(service)
    (step,) = service.container.execution_store().list_steps(failed)
    assert step.error
    one = service.client.get(
        f"{RUNS}/{failed}/logs",
        params={"pipelineExecutionId": step.pipeline_execution_id},
        headers=_admin(service),
    ).json()["message"]
    # VAMS's errorLog: the failed step's stored log, which names its error
    assert step.error in one["errorLog"]
    assert isinstance(one["resultLog"], str) and "events" not in one

    succeeded = service.container.execution_store().list_steps(service.execution_id)
    assert all(s.status.value == "SUCCEEDED" for s in succeeded)
    ok = _logs(service, pipelineExecutionId=succeeded[0].pipeline_execution_id).json()["message"]
    assert ok["errorLog"] == "" and ok["resultLog"]  # a step that succeeded has none
    # only one step's truncated answer says it: not the whole run's, nor a read of the sources
    assert "errorLog" not in _logs(service).json()["message"]
    full = _logs(service, mode="full", pipelineExecutionId=succeeded[0].pipeline_execution_id)
    assert "errorLog" not in full.json()["message"]


def test_a_bad_logs_parameter_is_a_400_naming_it_and_a_foreign_step_a_404(
    service: Service,
) -> None:
    for params, named in (
        ({"limit": "lots"}, "limit"),
        ({"limit": "0"}, "limit"),
        ({"startTime": "yesterday"}, "startTime"),
        ({"startTime": "2000", "endTime": "1000"}, "endTime"),
        ({"mode": "verbose"}, "mode"),
    ):
        answer = _logs(service, **params)
        assert answer.status_code == 400, (params, answer.text)
        assert named in answer.json()["message"], params
    other = _open_run(service)
    foreign = service.container.execution_store().list_steps(other)[0].pipeline_execution_id
    assert _logs(service, pipelineExecutionId=foreign).status_code == 404


def test_details_metadata_pages_vams_s_collections(service: Service) -> None:
    store = service.container.execution_store()
    steps = store.list_steps(service.execution_id)
    for step in steps[:2]:  # three rows on each of two steps: pages cross a step
        common = {
            "pipeline_execution_id": step.pipeline_execution_id,
            "workflow_execution_id": service.execution_id,
        }
        store.add_step_outputs(
            StepOutputs(
                metadata=tuple(
                    OutputMetadata(**common, target_file_path="m.glb", metadata_key=k, value="1")
                    for k in ("a", "b", "c")
                )
            )
        )
    path = f"{RUNS}/{service.execution_id}/details/metadata"
    headers = _admin(service)
    every = service.client.get(path, params={"collection": "output"}, headers=headers)
    assert every.status_code == 200, every.text
    assert set(every.json()) == {"message"}  # VAMS's envelope
    rows = every.json()["message"]["Items"]
    assert every.json()["message"]["collection"] == "output"  # echoed, as VAMS does
    # one page holds them all: no token, not a null one
    assert "NextToken" not in every.json()["message"]
    assert len(rows) >= 6  # ours, after what the world's steps wrote
    # VAMS's output metadata row with its pipeline, as the details document shows it
    assert {frozenset(row) for row in rows} == {
        frozenset(
            {"targetFilePath", "metadataKey", "metadataValue", "pipelineId", "pipelineExecutionId"}
        )
    }
    details = service.client.get(f"{RUNS}/{service.execution_id}/details", headers=headers)
    assert rows == details.json()["message"]["outputs"]["metadata"]
    paged: list[Any] = []
    params = {"collection": "output", "pageSize": "4"}
    while True:
        page = service.client.get(path, params=params, headers=headers).json()["message"]
        paged += page["Items"]
        if "NextToken" not in page:  # as VAMS: the last page says no token, not a null one
            break
        params = {"collection": "output", "pageSize": "4", "NextToken": page["NextToken"]}
    assert paged == rows
    one = service.client.get(
        path, params={"collection": "output", "pipelineId": steps[1].pipeline_id}, headers=headers
    ).json()["message"]
    assert len(one["Items"]) >= 3
    assert {row["pipelineExecutionId"] for row in one["Items"]} == {steps[1].pipeline_execution_id}
    # input is the default collection; the world's steps took no metadata, nor of a database
    for params in ({}, {"collection": "inputDatabase"}):
        answer = service.client.get(path, params=params, headers=headers)
        assert (answer.status_code, answer.json()["message"]["Items"]) == (200, []), params
    refused = service.client.get(
        path, params={"collection": "inputs", "pipelineId": "p"}, headers=headers
    )
    assert refused.status_code == 400 and "pipelineId" in refused.json()["message"]


# VAMS's list row (executionService's global list; the web client's `Execution` type)
VAMS_ROW = {
    "workflowExecutionId",
    "workflowId",
    "workflowDatabaseId",
    "executionStatus",
    "executionStartDate",
    "executionStopDate",
    "triggerType",
    "triggeredByUserId",
    "executionGroupId",
    "outputLocationType",
    "outputAssetId",
    "outputDatabaseId",
}
# and what an asset's list adds: the asset listed, the key of the asset's selection the run read,
# the dates under their earlier names
VAMS_ASSET_ROW = VAMS_ROW | {"databaseId", "assetId", "inputAssetFileKey", "startDate", "stopDate"}
SECONDS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _rows(answer: Any) -> dict[str, dict[str, Any]]:
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"message"}
    return {row["workflowExecutionId"]: row for row in body["message"]["Items"]}


def test_a_list_row_has_vams_s_keys_and_formats(service: Service) -> None:
    finished, running = service.execution_id, _open_run(service)
    answer = service.client.get(RUNS, headers=_admin(service))
    assert "NextToken" not in answer.json()["message"]  # VAMS says it only when there is more
    rows = _rows(answer)
    for row in rows.values():
        assert set(row) >= VAMS_ROW, VAMS_ROW - set(row)
        assert SECONDS.fullmatch(row["executionStartDate"])
        assert "executionLog" not in row  # only the logs route returns the run log
    done, open_ = rows[finished], rows[running]
    assert SECONDS.fullmatch(done["executionStopDate"])
    assert (done["outputLocationType"], done["outputDatabaseId"], done["outputAssetId"]) == (
        "asset",
        DATABASE,
        "results",
    )
    # not set (yet): said as "", as VAMS writes and sends it
    assert (open_["executionStopDate"], open_["executionGroupId"]) == ("", "")
    assert (open_["outputLocationType"], open_["outputDatabaseId"], open_["outputAssetId"]) == (
        "none",
        "",
        "",
    )
    assert (open_["triggerType"], open_["triggeredByUserId"]) == ("Manual", ADMIN)


def test_an_asset_s_list_row_names_the_asset_and_says_the_dates_twice(service: Service) -> None:
    inputs = f"/database/{DATABASE}/assets/inputs/workflows/executions"
    (row,) = _rows(service.client.get(inputs, headers=_admin(service))).values()
    assert set(row) >= VAMS_ASSET_ROW, VAMS_ASSET_ROW - set(row)
    assert (row["databaseId"], row["assetId"]) == (DATABASE, "inputs")
    assert (row["startDate"], row["stopDate"]) == (
        row["executionStartDate"],
        row["executionStopDate"],
    )
    # the run selected the whole asset: VAMS's key of it, bucket-relative with one leading "/"
    key = row["inputAssetFileKey"]
    assert key.startswith("/") and not key.startswith("//") and key.endswith("/inputs/"), key
    results = f"/database/{DATABASE}/assets/results/workflows/executions"
    (wrote,) = _rows(service.client.get(results, headers=_admin(service))).values()
    assert (wrote["assetId"], wrote["inputAssetFileKey"]) == ("results", "")  # read none of it


def test_one_run_is_its_list_row_in_vams_s_envelope(service: Service) -> None:
    run = service.execution_id
    listed = _rows(service.client.get(RUNS, headers=_admin(service)))[run]
    answer = service.client.get(f"{RUNS}/{run}", headers=_admin(service))
    assert (answer.status_code, answer.json()) == (200, {"message": listed})


def test_the_openapi_document_requires_the_row_keys_vams_always_sends(service: Service) -> None:
    schemas = service.client.get("/openapi.json").json()["components"]["schemas"]
    row = schemas["ExecutionRow"]
    # said on every row, "" when unset, as VAMS sends them
    always = {"executionStopDate", "executionGroupId", "outputAssetId", "outputDatabaseId"}
    assert always | {"executionError", "outputLocationType"} <= set(row["required"])
    # said only when set: optional
    assert not {"lastSfnSyncCheckDate", "abortCause", "redriveDate"} & set(row["required"])
    assert {"inputAssetFileKey", "startDate", "stopDate"} <= set(
        schemas["AssetExecutionRow"]["required"]
    )
    details = schemas["VamsExecutionDetails"]["required"]
    assert {"workflowName", "workflowDescription", "inputFiles", "truncatedCollections"} <= set(
        details
    )
    assert {"name", "description", "pipelineType"} <= set(schemas["VamsPipeline"]["required"])


def test_the_openapi_document_declares_the_metadata_page_s_items(service: Service) -> None:
    schemas = service.client.get("/openapi.json").json()["components"]["schemas"]
    items = schemas["MetadataPage"]["properties"]["Items"]["items"]
    declared = {ref["$ref"].rsplit("/", 1)[-1] for ref in items["anyOf"]}
    # the details document's own item schemas, so a client reads both alike
    assert {"VamsInputMetadata", "VamsOutputMetadata", "VamsInputFile"} <= declared
    assert {"pipelineId", "scope", "attributes"} <= set(schemas["VamsInputMetadata"]["required"])
    assert "NextToken" not in schemas["MetadataPage"]["required"]  # absent on the last page


def test_a_step_log_pages_by_its_next_tokens_resumed_and_a_forged_one_is_a_400(
    service: Service, tmp_path: Path
) -> None:
    # the route shares the local reader: a deep page reads from its token's restart point, and
    # a token altered to point elsewhere (into a key block) is the caller's bad input
    full = _logs(service, mode="full").json()["message"]
    folder = tmp_path / "logs" / service.execution_id
    source = next(s for s in full["logSources"] if (folder / s["logStreamName"]).is_file())
    body = ["MIIEowIBAAKCAQEA" * 4, "q83vEjQ4d5pT0z" * 4]
    lines = [f"line {n} of the step {'x' * 200}" for n in range(3000)]  # 2 pieces and more
    lines[1500:1500] = ["-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"]
    text = "\n".join(lines) + "\n"
    (folder / source["logStreamName"]).write_text(text, encoding="utf-8")

    shown, token, tokens = [], None, []
    while True:
        params = {"logId": source["logId"], "limit": "1000"} | (
            {"nextToken": token} if token else {}
        )
        page = _logs(service, **params)
        assert page.status_code == 200, page.text
        shown += [event["message"] for event in page.json()["message"]["events"]]
        token = page.json()["message"].get("nextToken")
        if not token:
            break
        tokens.append(token)
    assert shown == redact(text).splitlines()
    assert len(tokens) == 3 and all(t.count(".") == 5 for t in tokens)  # with a restart point
    assert int(tokens[-1].split(".")[3]) > 0  # past the file's start

    fields = tokens[0].split(".")
    fields[3] = str(text.index(body[0]))  # the key's body
    forged = _logs(service, logId=source["logId"], nextToken=".".join(fields))
    assert forged.status_code == 400, forged.text
    assert "nextToken" in forged.json()["message"] and body[0] not in forged.text
