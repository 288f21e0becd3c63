"""HandleExecutionError and AbortExecution reach inside the steps: the Step Functions
sub-executions a running step registered are stopped (moto, in-process), any other type is left
running with a warning, and the rows end FAILED or ABORTED. SQLite file store, real file stores.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.aws.stepfunctions import StepFunctionsOrchestrator
from adapters.aws.subprocesses import (
    BatchSubProcessController,
    StepFunctionsSubProcessController,
)
from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.sqlite.catalogs import SqliteAssetCatalog
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sub_process_dispatch import DispatchingSubProcessController
from application.use_cases.abort_execution import AbortExecution, AbortExecutionCommand
from application.use_cases.complete_execution import CompleteExecution
from application.use_cases.handle_execution_error import (
    HandleExecutionError,
    HandleExecutionErrorCommand,
)
from domain.execution import LaunchRecords, PipelineExecution
from domain.logs import RegisteredSubExecution
from domain.statuses import ExecutionStatus, StepStatus
from domain.sub_processes import StopOutcome
from tests.contract.builders import a_launch, a_step, write_launch

NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
DEFINITION = {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}


class Clock:
    def now(self) -> datetime:
        return NOW


@dataclass
class World:
    store: SqliteExecutionStore
    stepfunctions: Any
    complete: CompleteExecution
    logs: FileLogStore
    objects: FilesystemObjectStore
    state_machine_arn: str

    def start(self, name: str) -> str:
        started = self.stepfunctions.start_execution(
            stateMachineArn=self.state_machine_arn, name=name, input="{}"
        )
        return str(started["executionArn"])

    def status_on_step_functions(self, arn: str) -> str:
        return str(self.stepfunctions.describe_execution(executionArn=arn)["status"])


@pytest.fixture
def world(
    sqlite_file_execution_store: SqliteExecutionStore,
    sqlite_file_asset_catalog: SqliteAssetCatalog,
    tmp_path: Path,
) -> Iterator[World]:
    import boto3
    from moto import mock_aws

    with mock_aws():
        client = boto3.client("stepfunctions", region_name="us-east-1")
        machine = client.create_state_machine(
            name="child",
            definition=json.dumps(DEFINITION),
            roleArn="arn:aws:iam::123456789012:role/wfx-tests",
        )
        logs = FileLogStore(tmp_path / "logs")
        objects = FilesystemObjectStore(tmp_path / "objects")
        complete = CompleteExecution(
            sqlite_file_execution_store, objects, sqlite_file_asset_catalog, logs, Clock()
        )
        yield World(
            sqlite_file_execution_store,
            client,
            complete,
            logs,
            objects,
            machine["stateMachineArn"],
        )


def _a_run_with_a_running_step(world: World, execution_id: str) -> tuple[LaunchRecords, str]:
    """Step 0 SUCCEEDED, step 1 RUNNING with a Step Functions child and a Batch job, step 2
    NEW; the run itself is a Step Functions execution too."""
    child_arn = world.start(f"{execution_id}-child")
    records = a_launch(execution_id, steps=3)
    running = records.steps[1].model_copy(
        update={
            "status": StepStatus.RUNNING,
            "start_date": NOW - timedelta(minutes=1),
            # typed locators, as a VAMS pipeline registers them
            "registered_sub_executions": (
                RegisteredSubExecution(
                    resource_type="stepFunctionsExecution", execution_arn=child_arn
                ),
                RegisteredSubExecution(resource_type="batchJob", job_id="job-7"),
            ),
        }
    )
    done = records.steps[0].model_copy(
        update={
            "status": StepStatus.SUCCEEDED,
            "start_date": NOW - timedelta(minutes=3),
            "stop_date": NOW - timedelta(minutes=2),
        }
    )
    execution = records.execution.model_copy(
        update={"orchestrator": "stepfunctions", "execution_arn": world.start(execution_id)}
    )
    records = records.model_copy(
        update={"execution": execution, "steps": (done, running, records.steps[2])}
    )
    write_launch(world.store, records)
    return records, child_arn


def _steps(world: World, execution_id: str) -> dict[int, PipelineExecution]:
    return {step.step_index: step for step in world.store.list_steps(execution_id)}


def _step_functions_only(world: World) -> DispatchingSubProcessController:
    """Stops Step Functions children only: a Batch one is then an unsupported type."""
    return DispatchingSubProcessController(
        {
            "stepFunctionsExecution": lambda: StepFunctionsSubProcessController(
                lambda: world.stepfunctions
            )
        }
    )


def _handler(world: World) -> HandleExecutionError:
    controller = _step_functions_only(world)
    return HandleExecutionError(world.store, controller, world.complete, Clock())


def test_the_error_handler_stops_the_running_steps_children_and_fails_the_run(
    world: World,
) -> None:
    _, child_arn = _a_run_with_a_running_step(world, "exec-1")
    command = HandleExecutionErrorCommand(
        workflow_execution_id="exec-1", error="States.TaskFailed", cause="boom"
    )

    result = _handler(world).execute(command)

    assert world.status_on_step_functions(child_arn) == "ABORTED"
    assert result.status is ExecutionStatus.FAILED
    assert len(result.warnings) == 1 and "batchJob job-7" in result.warnings[0], result.warnings
    execution = world.store.get_execution("exec-1")
    assert execution.status is ExecutionStatus.FAILED
    assert execution.execution_error == "States.TaskFailed: boom"
    assert execution.execution_stop_date == NOW
    steps = _steps(world, "exec-1")
    assert [steps[i].status for i in range(3)] == [
        StepStatus.SUCCEEDED,
        StepStatus.FAILED,
        StepStatus.NEW,
    ]
    assert steps[1].error == "States.TaskFailed: boom" and steps[1].stop_date == NOW
    logs = {
        log.log_type: log
        for entry in world.store.get_details("exec-1").steps
        if entry.step.step_index == 1
        for log in entry.outputs.logs
    }
    assert set(logs) == {"error", "summary"}, logs
    assert "States.TaskFailed: boom" in logs["error"].message
    assert "job-7" in logs["error"].message


def test_the_error_handler_run_twice_changes_nothing_the_second_time(world: World) -> None:
    _a_run_with_a_running_step(world, "exec-1")
    command = HandleExecutionErrorCommand(workflow_execution_id="exec-1", error="E", cause="c")
    _handler(world).execute(command)
    before = (world.store.get_execution("exec-1"), _steps(world, "exec-1"))

    again = _handler(world).execute(
        HandleExecutionErrorCommand(workflow_execution_id="exec-1", error="Other", cause="later")
    )

    assert again.status is ExecutionStatus.FAILED and again.warnings == ()
    assert (world.store.get_execution("exec-1"), _steps(world, "exec-1")) == before


def test_an_abort_stops_the_children_then_the_run_and_records_it_aborted(world: World) -> None:
    records, child_arn = _a_run_with_a_running_step(world, "exec-2")
    abort = AbortExecution(
        world.store,
        StepFunctionsOrchestrator(world.stepfunctions),
        _step_functions_only(world),
        world.logs,
        world.objects,
        Clock(),
    )

    result = abort.execute(AbortExecutionCommand(workflow_execution_id="exec-2", cause="user"))

    assert world.status_on_step_functions(child_arn) == "ABORTED"
    assert records.execution.execution_arn is not None
    assert world.status_on_step_functions(records.execution.execution_arn) == "ABORTED"
    assert result.execution.status is ExecutionStatus.ABORTED
    # seed 000: no executionError for an abort; its reason is wfx's own abortCause
    assert (result.execution.execution_error, result.execution.abort_cause) == (None, "user")
    assert world.store.get_execution("exec-2") == result.execution
    steps = _steps(world, "exec-2")
    assert [steps[i].status for i in range(3)] == [
        StepStatus.SUCCEEDED,
        StepStatus.ABORTED,
        StepStatus.ABORTED,
    ]
    assert "batchJob job-7" in result.warnings[0]


def test_an_abort_stops_the_sub_processes_before_the_runs_own_execution(world: World) -> None:
    """Seed 000: abort stops each running step's registered sub-processes BEFORE the outer
    state machine (VAMS 2.6 now stops the parent first; the seed wins). Every call both clients
    send (moto's Step Functions and Batch) is recorded in order."""
    import boto3

    records, child_arn = _a_run_with_a_running_step(world, "exec-3")
    batch = boto3.client("batch", region_name="us-east-1")
    calls: list[tuple[str, str]] = []

    def record(model: Any, params: dict[str, Any], **_: Any) -> None:
        target = params.get("executionArn") or params.get("jobId") or ""
        calls.append((model.name, str(target)))

    for client in (world.stepfunctions, batch):
        client.meta.events.register("provide-client-params.*.*", record)
    controller = DispatchingSubProcessController(
        {
            "stepFunctionsExecution": lambda: StepFunctionsSubProcessController(
                lambda: world.stepfunctions
            ),
            "batchJob": lambda: BatchSubProcessController(lambda: batch),
        }
    )
    abort = AbortExecution(
        world.store,
        StepFunctionsOrchestrator(world.stepfunctions),
        controller,
        world.logs,
        world.objects,
        Clock(),
    )

    abort.execute(AbortExecutionCommand(workflow_execution_id="exec-3", cause="user"))

    stops = [call for call in calls if call[0] in ("StopExecution", "TerminateJob")]
    # the step's two children at once (either first), then the run's own execution
    assert sorted(stops[:2]) == [("StopExecution", child_arn), ("TerminateJob", "job-7")]
    assert stops[2:] == [("StopExecution", records.execution.execution_arn)]


def test_the_stopper_leaves_types_it_cannot_stop_and_stops_step_functions_ones(
    world: World,
) -> None:
    controller = _step_functions_only(world)
    arn = world.start("lonely-child")

    step = a_step("e1", 0)
    unsupported = controller.stop(
        RegisteredSubExecution.of_resource(resource_type="deadline", resource_id="j"), step
    )
    stopped = controller.stop(
        RegisteredSubExecution.of_resource(resource_type="stepFunctions", resource_id=arn), step
    )

    assert unsupported.outcome is StopOutcome.UNSUPPORTED
    assert stopped.outcome is StopOutcome.STOPPED
    assert world.status_on_step_functions(arn) == "ABORTED"
