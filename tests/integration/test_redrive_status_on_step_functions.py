"""redriveStatus of a Step Functions run is what DescribeExecution said: the reconciling poll
records it, and no read replaces it with the value the local rules would derive.

moto's DescribeExecution answers no redriveStatus or redriveStatusReason, so the client is
answered by `botocore.stub.Stubber` with the service's own response shape; the store is a real
SQLite file or DynamoDB on moto. The failed run's reason stubbed is one the local rules never
give (they would call a freshly failed run REDRIVABLE), so a read showing it took it from Step
Functions.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from botocore.stub import Stubber

from adapters.aws.stepfunctions import StepFunctionsOrchestrator
from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.sub_process_dispatch import DispatchingSubProcessController
from application.ports.executions import ExecutionStore
from application.use_cases.get_execution import GetExecution, GetExecutionQuery
from application.use_cases.get_execution_details import (
    GetExecutionDetails,
    GetExecutionDetailsQuery,
)
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.execution import WorkflowExecution
from domain.run import RunChange, RunGuard
from domain.statuses import ExecutionStatus
from tests.contract.builders import a_launch, write_change, write_launch
from tests.integration.stepfunctions_stub import stubbed_stepfunctions

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
STARTED = NOW - timedelta(hours=1)
MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:wf"
ARN = "arn:aws:states:us-east-1:123456789012:execution:wf:exec-1"
DELETING = "State machine is in DELETING status."


class Clock:
    def now(self) -> datetime:
        return NOW


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def store(request: pytest.FixtureRequest) -> ExecutionStore:
    """exec-1, RUNNING on Step Functions as far as the row knows, never polled."""
    store: ExecutionStore = request.getfixturevalue(f"{request.param}_execution_store")
    records = a_launch("exec-1", steps=2, start=STARTED)
    execution = records.execution.model_copy(
        update={
            "status": ExecutionStatus.RUNNING,
            "orchestrator": "stepfunctions",
            "state_machine_arn": MACHINE,
            "execution_arn": ARN,
        }
    )
    write_launch(store, records.model_copy(update={"execution": execution}))
    return store


@pytest.fixture
def stubbed() -> Iterator[tuple[Any, Stubber]]:
    with stubbed_stepfunctions() as stubbed:
        yield stubbed


def _described(status: str, **fields: Any) -> dict[str, Any]:
    """DescribeExecution's response, as Step Functions shapes it."""
    return {
        "executionArn": ARN,
        "stateMachineArn": MACHINE,
        "name": "exec-1",
        "status": status,
        "startDate": STARTED,
        "input": "{}",
        "inputDetails": {"included": True},
        "redriveCount": 0,
        **fields,
    }


def _reads(
    store: ExecutionStore, client: Any, tmp_path: Path
) -> tuple[GetExecution, GetExecutionDetails, ListExecutions]:
    reconcile = ReconcileExecution(
        store,
        StepFunctionsOrchestrator(client),
        FileLogStore(tmp_path / "logs"),
        FilesystemObjectStore(tmp_path / "objects"),
        Clock(),
        DispatchingSubProcessController({}),  # no run of these is lost: nothing to stop
    )
    return (
        GetExecution(store, reconcile, clock=Clock()),
        GetExecutionDetails(store, reconcile, clock=Clock()),
        ListExecutions(store, reconcile, clock=Clock()),
    )


def _every_read(
    reads: tuple[GetExecution, GetExecutionDetails, ListExecutions],
) -> list[WorkflowExecution]:
    get, details, listing = reads
    (listed,) = listing.execute(ListExecutionsQuery()).items
    return [
        get.execute(GetExecutionQuery(workflow_execution_id="exec-1")),
        details.execute(GetExecutionDetailsQuery(workflow_execution_id="exec-1")).execution,
        listed,
    ]


def test_a_poll_of_a_running_run_records_what_describe_execution_says(
    store: ExecutionStore, stubbed: tuple[Any, Stubber], tmp_path: Path
) -> None:
    client, stubber = stubbed
    stubber.add_response(
        "describe_execution",
        _described(
            "RUNNING",
            redriveStatus="NOT_REDRIVABLE",
            redriveStatusReason="Execution is RUNNING and cannot be redriven.",
        ),
        {"executionArn": ARN},
    )
    get, _, _ = _reads(store, client, tmp_path)

    read = get.execute(GetExecutionQuery(workflow_execution_id="exec-1"))

    stored = store.get_execution("exec-1")
    assert stored.last_sfn_sync_check_date == NOW
    assert (stored.redrive_status, stored.redrive_status_reason) == (
        "NOT_REDRIVABLE",
        "Execution is RUNNING and cannot be redriven.",
    )
    assert read == stored


def test_a_run_found_ended_keeps_describe_executions_values_through_every_read(
    store: ExecutionStore, stubbed: tuple[Any, Stubber], tmp_path: Path
) -> None:
    client, stubber = stubbed
    # the only Step Functions call: once the row is FAILED, no read asks again
    stubber.add_response(
        "describe_execution",
        _described(
            "FAILED",
            stopDate=NOW - timedelta(minutes=5),
            error="States.TaskFailed",
            cause="boom",
            redriveStatus="NOT_REDRIVABLE",
            redriveStatusReason=DELETING,
        ),
        {"executionArn": ARN},
    )
    reads = _reads(store, client, tmp_path)

    seen = _every_read(reads)

    stored = store.get_execution("exec-1")
    assert stored.status is ExecutionStatus.FAILED
    assert (stored.redrive_status, stored.redrive_status_reason) == ("NOT_REDRIVABLE", DELETING)
    for read in seen:
        assert (read.status, read.redrive_status, read.redrive_status_reason) == (
            ExecutionStatus.FAILED,
            "NOT_REDRIVABLE",
            DELETING,
        )


def test_a_step_functions_run_never_described_is_not_given_a_derived_status(
    store: ExecutionStore, stubbed: tuple[Any, Stubber], tmp_path: Path
) -> None:
    """The end-state callback recorded it FAILED; no read asks Step Functions about a finished
    run, so it has no redriveStatus, rather than the local rules' REDRIVABLE."""
    client, _ = stubbed  # nothing stubbed: any Step Functions call fails the test
    running = store.get_execution("exec-1")
    failed = running.complete(ExecutionStatus.FAILED, NOW - timedelta(minutes=5), "log", "boom")
    assert write_change(store, RunChange(running, failed, RunGuard()))

    for read in _every_read(_reads(store, client, tmp_path)):
        assert (read.redrive_status, read.redrive_status_reason) == (None, None)
