"""DescribeExecution of a run on Step Functions: on moto (in-process) for the fields moto keeps,
and with botocore's `Stubber` in the service's own response shape for those moto 5 leaves out
(redriveCount / redriveDate / redriveStatus / redriveStatusReason, mapRunArn, the version and
alias ARNs, traceHeader, inputDetails / outputDetails). The store is a real SQLite file."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import boto3
from moto import mock_aws

from adapters.aws.stepfunctions import StepFunctionsOrchestrator
from adapters.sqlite.execution_store import SqliteExecutionStore
from application.use_cases.describe_execution import DescribeExecution, DescribeExecutionQuery
from application.use_cases.get_execution import GetExecution
from domain.statuses import ExecutionStatus
from entrypoints.responses import DescribeResponse
from tests.contract.builders import a_launch, write_launch
from tests.integration.stepfunctions_stub import stubbed_stepfunctions

REGION, ACCOUNT = "us-east-1", "123456789012"
MACHINE = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:wfx-db1-wf1"
ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:wfx-db1-wf1:exec-1"
NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


class _Clock:
    def now(self) -> datetime:
        return NOW


def _store_run(store: SqliteExecutionStore, execution_arn: str | None, machine: str) -> None:
    records = a_launch("exec-1", steps=2)
    execution = records.execution.model_copy(
        update={
            "orchestrator": "stepfunctions",
            "state_machine_arn": machine,
            "execution_arn": execution_arn,
            "status": ExecutionStatus.FAILED,
            "execution_stop_date": NOW,
            "execution_error": "States.TaskFailed: stored cause",
            "execution_cause": "stored cause",
        }
    )
    write_launch(store, records.model_copy(update={"execution": execution}))


def _describe(store: SqliteExecutionStore, client: Any) -> DescribeResponse:
    # no reconcile: the row is terminal, and the describe is what is under test
    use_case = DescribeExecution(
        store, GetExecution(store, None, clock=_Clock()), StepFunctionsOrchestrator(client)
    )
    description = use_case.execute(DescribeExecutionQuery(workflow_execution_id="exec-1"))
    return DescribeResponse.of(description)


def test_a_run_on_moto_is_described_with_what_step_functions_answers(
    sqlite_file_execution_store: SqliteExecutionStore,
) -> None:
    with mock_aws():
        client = boto3.client("stepfunctions", region_name=REGION)
        machine = client.create_state_machine(
            name="wfx-db1-wf1",
            definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/wfx",
        )["stateMachineArn"]
        started = client.start_execution(
            stateMachineArn=machine, name="exec-1", input='{"workflowExecutionId":"exec-1"}'
        )
        _store_run(sqlite_file_execution_store, started["executionArn"], machine)

        shown = _describe(sqlite_file_execution_store, client).dump()

    assert shown["name"] == "exec-1"
    assert shown["executionArn"] == started["executionArn"]
    assert shown["stateMachineArn"] == machine
    assert shown["status"] in {"RUNNING", "SUCCEEDED"}  # moto's own progression
    assert json.loads(shown["input"]) == {"workflowExecutionId": "exec-1"}
    assert shown["inputDetails"] == {"included": True}


def test_the_fields_moto_lacks_come_through_as_the_service_gives_them(
    sqlite_file_execution_store: SqliteExecutionStore,
) -> None:
    _store_run(sqlite_file_execution_store, ARN, MACHINE)
    response = {
        "executionArn": ARN,
        "stateMachineArn": MACHINE,
        "name": "exec-1",
        "status": "FAILED",
        "startDate": datetime(2026, 11, 29, 9, 0, tzinfo=UTC),
        "stopDate": datetime(2026, 11, 29, 9, 30, tzinfo=UTC),
        "input": '{"workflowExecutionId":"exec-1"}',
        "inputDetails": {"included": True},
        "outputDetails": {"included": False},
        "traceHeader": "Root=1-5759e988-bd862e3fe1be46a994272793",
        "mapRunArn": f"arn:aws:states:{REGION}:{ACCOUNT}:mapRun:wfx-db1-wf1/map:run-1",
        "error": "States.TaskFailed",
        "cause": "the step exited 3",
        "stateMachineVersionArn": f"{MACHINE}:4",
        "stateMachineAliasArn": f"{MACHINE}:prod",
        "redriveCount": 2,
        "redriveDate": datetime(2026, 11, 29, 9, 10, tzinfo=UTC),
        "redriveStatus": "REDRIVABLE_BY_MAP_RUN",
        "redriveStatusReason": "Execution is FAILED and can be redriven by its map run.",
    }
    with stubbed_stepfunctions() as (client, stubber):
        stubber.add_response("describe_execution", response, {"executionArn": ARN})

        shown = _describe(sqlite_file_execution_store, client).dump()

    assert shown == {
        "name": "exec-1",
        "status": "FAILED",
        "startDate": "2026-11-29T09:00:00.000000Z",
        "stopDate": "2026-11-29T09:30:00.000000Z",
        "error": "States.TaskFailed",
        "cause": "the step exited 3",
        "input": '{"workflowExecutionId":"exec-1"}',
        "inputDetails": {"included": True},
        "outputDetails": {"included": False},
        "executionArn": ARN,
        "stateMachineArn": MACHINE,
        "stateMachineVersionArn": f"{MACHINE}:4",
        "stateMachineAliasArn": f"{MACHINE}:prod",
        "mapRunArn": response["mapRunArn"],
        "redriveCount": 2,
        "redriveDate": "2026-11-29T09:10:00.000000Z",
        "redriveStatus": "REDRIVABLE_BY_MAP_RUN",
        "redriveStatusReason": "Execution is FAILED and can be redriven by its map run.",
        "traceHeader": "Root=1-5759e988-bd862e3fe1be46a994272793",
    }


def test_a_run_step_functions_never_started_is_described_from_its_rows(
    sqlite_file_execution_store: SqliteExecutionStore,
) -> None:
    _store_run(sqlite_file_execution_store, None, MACHINE)
    with stubbed_stepfunctions() as (client, _):  # no call at all
        shown = _describe(sqlite_file_execution_store, client).dump()

    assert (shown["status"], shown["error"], shown["cause"]) == (
        "FAILED",
        "States.TaskFailed",
        "stored cause",
    )
    assert shown["stateMachineArn"] == MACHINE
    assert shown["executionArn"].startswith("arn:wfx:local:execution:db1/wf1:exec-1")
    assert json.loads(shown["input"])["workflowExecutionId"] == "exec-1"
