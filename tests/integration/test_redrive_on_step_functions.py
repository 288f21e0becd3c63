"""RedriveExecution on Step Functions. moto has no RedriveExecution, ignores history paging
(notes/moto.md rows 11-12) and deletes a state machine at once (it never answers DELETING), so
these tests answer the client with `botocore.stub.Stubber`, in the service's own request and
response shapes; the store is a real SQLite file.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.stub import Stubber

from adapters.aws.stepfunctions import StepFunctionsOrchestrator
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.system import UuidGenerator
from application.use_cases.redrive_execution import RedriveExecution, RedriveExecutionCommand
from domain.errors import ConflictError, RedriveNotAllowedError
from domain.execution import PipelineExecution
from domain.run import RunChange, RunGuard
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import a_launch, write_change, write_launch
from tests.integration.stepfunctions_stub import stubbed_stepfunctions

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:wf"
ARN = "arn:aws:states:us-east-1:123456789012:execution:wf:exec-1"
REDRIVE_DATE = datetime(2026, 11, 29, 10, 0, 5, tzinfo=UTC)


class Clock:
    def now(self) -> datetime:
        return NOW


@pytest.fixture
def stubbed() -> Iterator[tuple[Any, Stubber]]:
    with stubbed_stepfunctions() as stubbed:
        yield stubbed


@pytest.fixture
def store(sqlite_file_execution_store: SqliteExecutionStore) -> SqliteExecutionStore:
    """exec-1 FAILED an hour ago on Step Functions: step 0 SUCCEEDED, 1 FAILED, 2 never ran."""
    records = a_launch("exec-1", steps=3, start=NOW - timedelta(hours=2))
    stopped = NOW - timedelta(hours=1)
    execution = records.execution.model_copy(
        update={
            "status": ExecutionStatus.FAILED,
            "execution_stop_date": stopped,
            "execution_error": "States.TaskFailed: boom",
            "orchestrator": "stepfunctions",
            "state_machine_arn": MACHINE,
            "execution_arn": ARN,
        }
    )
    first, second, third = records.steps
    steps = (
        first.model_copy(
            update={
                "status": StepStatus.SUCCEEDED,
                "start_date": NOW - timedelta(hours=2),
                "stop_date": NOW - timedelta(minutes=90),
            }
        ),
        second.model_copy(
            update={
                "status": StepStatus.FAILED,
                "start_date": NOW - timedelta(minutes=90),
                "stop_date": stopped,
                "error": "boom",
            }
        ),
        third,
    )
    write_launch(
        sqlite_file_execution_store,
        records.model_copy(update={"execution": execution, "steps": steps}),
    )
    return sqlite_file_execution_store


def _history(stubber: Stubber, pages: int, per_page: int) -> None:
    for page in range(pages):
        events = [
            {"timestamp": NOW, "type": "TaskStateEntered", "id": page * per_page + n + 1}
            for n in range(per_page)
        ]
        response: dict[str, Any] = {"events": events}
        request: dict[str, Any] = {"executionArn": ARN, "maxResults": 1000, "reverseOrder": False}
        if page:
            request["nextToken"] = f"page-{page}"
        if page < pages - 1:
            response["nextToken"] = f"page-{page + 1}"
        stubber.add_response("get_execution_history", response, request)


def _machine(stubber: Stubber, status: str = "ACTIVE") -> None:
    """DescribeStateMachine of the run's state machine, asked before the history is read."""
    stubber.add_response(
        "describe_state_machine",
        {
            "stateMachineArn": MACHINE,
            "name": "wf",
            "status": status,
            "definition": '{"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}',
            "roleArn": "arn:aws:iam::123456789012:role/wfx-sfn",
            "type": "STANDARD",
            "creationDate": NOW - timedelta(days=3),
        },
        {"stateMachineArn": MACHINE},
    )


def _steps(store: SqliteExecutionStore) -> dict[int, PipelineExecution]:
    return {step.step_index: step for step in store.list_steps("exec-1")}


def _use_case(store: SqliteExecutionStore, client: Any) -> RedriveExecution:
    return RedriveExecution(store, StepFunctionsOrchestrator(client), Clock(), UuidGenerator())


def test_a_failed_run_is_redriven_with_a_client_token_and_records_the_redrive(
    store: SqliteExecutionStore, stubbed: tuple[Any, Stubber]
) -> None:
    client, stubber = stubbed
    before = _steps(store)
    _machine(stubber)
    _history(stubber, pages=2, per_page=3)
    token = UuidGenerator().derived_id("exec-1:redrive:0")
    stubber.add_response(
        "redrive_execution",
        {"redriveDate": REDRIVE_DATE},
        {"executionArn": ARN, "clientToken": token},
    )
    stubber.add_response(
        "describe_execution",
        {
            "executionArn": ARN,
            "stateMachineArn": MACHINE,
            "status": "RUNNING",
            "startDate": NOW - timedelta(hours=2),
            "redriveCount": 1,
            "redriveDate": REDRIVE_DATE,
            "redriveStatus": "NOT_REDRIVABLE",
            "redriveStatusReason": "Execution is RUNNING and cannot be redriven.",
        },
        {"executionArn": ARN},
    )

    redriven = _use_case(store, client).execute(
        RedriveExecutionCommand(workflow_execution_id="exec-1")
    )

    stored = store.get_execution("exec-1")
    assert stored == redriven
    assert stored.status is ExecutionStatus.RUNNING
    assert (stored.redrive_count, stored.redrive_date) == (1, REDRIVE_DATE)
    assert stored.redrive_status == "NOT_REDRIVABLE"
    assert stored.redrive_status_reason == "Execution is RUNNING and cannot be redriven."
    assert (stored.execution_stop_date, stored.execution_error) == (None, None)
    steps = _steps(store)
    assert steps[0] == before[0]  # a succeeded step keeps its row and is not run again
    assert (steps[1].status, steps[1].start_date, steps[1].stop_date, steps[1].error) == (
        StepStatus.NEW,
        None,
        None,
        None,
    )
    assert steps[2] == before[2]


def test_a_history_that_reaches_24999_events_is_refused_after_reading_just_that_far(
    store: SqliteExecutionStore, stubbed: tuple[Any, Stubber]
) -> None:
    client, stubber = stubbed
    before = (store.get_execution("exec-1"), _steps(store))
    _machine(stubber)
    _history(stubber, pages=25, per_page=1000)  # a 26th page would be an unstubbed call

    with pytest.raises(RedriveNotAllowedError) as refused:
        _use_case(store, client).execute(RedriveExecutionCommand(workflow_execution_id="exec-1"))

    assert str(refused.value) == "Execution history event limit exceeded."
    assert (store.get_execution("exec-1"), _steps(store)) == before


def test_a_redrive_step_functions_refuses_leaves_the_run_and_its_steps_as_they_were(
    store: SqliteExecutionStore, stubbed: tuple[Any, Stubber]
) -> None:
    client, stubber = stubbed
    before = (store.get_execution("exec-1"), _steps(store))
    _machine(stubber)
    _history(stubber, pages=1, per_page=5)
    stubber.add_client_error(
        "redrive_execution",
        service_error_code="ExecutionNotRedrivable",
        service_message="Execution redrivable period exceeded.",
    )

    with pytest.raises(ConflictError, match="redrivable period exceeded"):
        _use_case(store, client).execute(RedriveExecutionCommand(workflow_execution_id="exec-1"))

    assert (store.get_execution("exec-1"), _steps(store)) == before


def test_a_second_redrive_of_the_same_attempt_is_refused_without_asking_step_functions(
    store: SqliteExecutionStore, stubbed: tuple[Any, Stubber]
) -> None:
    client, _ = stubbed  # no response stubbed: any call to Step Functions would fail
    failed = store.get_execution("exec-1")
    running = failed._evolve(status=ExecutionStatus.RUNNING, execution_stop_date=None)
    guard = RunGuard(statuses=frozenset({ExecutionStatus.FAILED}))
    assert write_change(store, RunChange(failed, running, guard))

    with pytest.raises(RedriveNotAllowedError, match=r"^Execution is RUNNING and cannot be"):
        _use_case(store, client).execute(RedriveExecutionCommand(workflow_execution_id="exec-1"))


def test_a_run_whose_state_machine_is_being_deleted_is_refused_before_its_history_is_read(
    store: SqliteExecutionStore, stubbed: tuple[Any, Stubber]
) -> None:
    client, stubber = stubbed
    before = (store.get_execution("exec-1"), _steps(store))
    _machine(stubber, status="DELETING")  # no history stubbed: reading it would fail the test

    with pytest.raises(RedriveNotAllowedError) as refused:
        _use_case(store, client).execute(RedriveExecutionCommand(workflow_execution_id="exec-1"))

    assert str(refused.value) == "State machine is in DELETING status."
    assert (store.get_execution("exec-1"), _steps(store)) == before


def test_a_run_started_before_redrive_execution_existed_is_refused_without_asking_step_functions(
    store: SqliteExecutionStore, stubbed: tuple[Any, Stubber]
) -> None:
    client, _ = stubbed  # no response stubbed: any call to Step Functions would fail
    # a run the V1 migration brought in, started the day before RedriveExecution's launch
    started = datetime(2023, 11, 14, tzinfo=UTC)
    records = a_launch("exec-old", steps=1, start=started)
    failed = records.execution.model_copy(
        update={
            "status": ExecutionStatus.FAILED,
            "execution_stop_date": started + timedelta(hours=1),
            "orchestrator": "stepfunctions",
            "state_machine_arn": MACHINE,
            "execution_arn": ARN.replace("exec-1", "exec-old"),
        }
    )
    write_launch(store, records.model_copy(update={"execution": failed}))

    with pytest.raises(RedriveNotAllowedError) as refused:
        _use_case(store, client).execute(RedriveExecutionCommand(workflow_execution_id="exec-old"))

    assert str(refused.value) == "Execution was started before the launch of RedriveExecution."
