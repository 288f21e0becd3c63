"""RegisterPipelineExecution on the SQLite file store and on DynamoDB (moto): whose event is
accepted, what is refused without a write, and how redeliveries merge."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adapters.local.processes import LocalProcessController
from adapters.local.supervisor import RunFolder, this_process
from adapters.sub_process_dispatch import DispatchingSubProcessController
from adapters.system import SystemClock
from application.ports.executions import ExecutionStore
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecution,
    RegisterPipelineExecutionCommand,
)
from domain.logs import MAX_REGISTERED_LOGS, RegisteredLog, RegisteredSubExecution
from domain.run import StepMove
from domain.statuses import StepStatus
from domain.sub_process_reach import SubProcessReach
from domain.sub_processes import StopOutcome
from tests.contract.builders import (
    a_launch,
    a_registrar,
    at,
    step_id,
    step_moved,
    write_change,
    write_launch,
)

STEP = step_id("e1", 0)
SOURCE = f"wfx.execution.e1.pipeline.{STEP}"
GROUP_ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/wfx/inner"
STATE_MACHINE_RUN = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"
STATE_MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:inner"


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def store(request: pytest.FixtureRequest) -> ExecutionStore:
    store: ExecutionStore = request.getfixturevalue(f"{request.param}_execution_store")
    write_launch(store, a_launch("e1"))
    write_launch(store, a_launch("e2"))
    return store


def an_event(source: str = SOURCE, **detail: Any) -> RegisterPipelineExecutionCommand:
    return RegisterPipelineExecutionCommand.model_validate(
        {
            "version": "0",
            "source": source,
            "detail-type": "pipeline.execution.register",
            "detail": {"pipelineExecutionId": STEP, **detail},
        }
    )


def test_a_vams_pipeline_registers_its_state_machine_and_log(store: ExecutionStore) -> None:
    """The detail a VAMS pipeline sends: one `subExecution` with its typed locators."""
    result = a_registrar(store).execute(
        an_event(
            subExecution={
                "resourceType": "stepFunctionsExecution",
                "stateMachineArn": STATE_MACHINE,
                "executionArn": STATE_MACHINE_RUN,
                "stageName": "Mesh",
                "label": "mesh",
            },
            logs=[
                {
                    "logGroupArn": GROUP_ARN + ":*",
                    "logGroupName": "",
                    "logStreamName": "",
                    "logStreamPrefix": "states/",
                    "stageName": "Mesh",
                    "label": "mesh log",
                    "sourceType": "stateMachine",
                }
            ],
        )
    )

    assert result.accepted and result.dropped == ()
    stored = store.get_step(STEP)
    assert result.step == stored
    assert stored.registered_sub_executions == (
        RegisteredSubExecution(
            resource_type="stepFunctionsExecution",
            state_machine_arn=STATE_MACHINE,
            execution_arn=STATE_MACHINE_RUN,
            stage_name="Mesh",
            label="mesh",
        ),
    )
    assert stored.registered_logs == (
        RegisteredLog(
            log_group_arn=GROUP_ARN + ":*",
            log_stream_prefix="states/",
            stage_name="Mesh",
            label="mesh log",
            source_type="stateMachine",
        ),
    )


def test_a_vams_sub_execution_without_a_type_is_a_step_functions_execution(
    store: ExecutionStore,
) -> None:
    result = a_registrar(store).execute(an_event(subExecution={"executionArn": STATE_MACHINE_RUN}))

    assert result.accepted
    assert store.get_step(STEP).registered_sub_executions == (
        RegisteredSubExecution(
            resource_type="stepFunctionsExecution", execution_arn=STATE_MACHINE_RUN
        ),
    )


def test_an_invalid_field_is_dropped_and_reported_and_the_rest_kept(store: ExecutionStore) -> None:
    result = a_registrar(store).execute(
        an_event(
            subExecution={
                "resourceType": "deadlineCloudJob",
                "farmId": "farm-1",
                "queueId": "queue-2",
                "jobId": "job 3!",
            },
            logs=[
                {"logGroupName": "/wfx/a", "logStreamName": "bad:stream", "sourceType": "k8s"},
                {"logGroupArn": "not-an-arn"},
            ],
        )
    )

    assert result.accepted
    assert result.dropped == (
        "subExecution.jobId: must be 3 to 63 letters, digits, '-' or '_'; dropped",
        "logs[0].logStreamName: must be 1 to 512 characters, without ':', '*' or controls; dropped",
        "logs[0].sourceType: must be one of stateMachine, lambda, batch, ecs, container, custom; "
        "stored as custom",
        "logs[1].logGroupArn: must be a log group ARN "
        "(arn:partition:logs:region:account:log-group:name); dropped",
        "logs[1]: no valid logGroupArn or logGroupName; entry dropped",
    )
    stored = store.get_step(STEP)
    assert stored.registered_sub_executions == (
        RegisteredSubExecution(
            resource_type="deadlineCloudJob", farm_id="farm-1", queue_id="queue-2"
        ),
    )
    assert stored.registered_logs == (RegisteredLog(log_group_name="/wfx/a", source_type="custom"),)


def test_wfx_former_sub_executions_list_is_converted_to_typed_locators(
    store: ExecutionStore,
) -> None:
    result = a_registrar(store).execute(
        an_event(
            subExecutions=[
                {"resourceType": "stepFunctions", "resourceId": STATE_MACHINE_RUN, "label": "mesh"},
                {"resourceType": "batch", "resourceId": "job-7"},
                {"resourceType": "localProcess", "resourceId": "4242"},
            ]
        )
    )

    assert result.accepted and result.dropped == ()
    assert store.get_step(STEP).registered_sub_executions == (
        RegisteredSubExecution(
            resource_type="stepFunctionsExecution", execution_arn=STATE_MACHINE_RUN, label="mesh"
        ),
        RegisteredSubExecution(resource_type="batchJob", job_id="job-7"),
        RegisteredSubExecution(resource_type="localProcess", local_process_id="4242"),
    )


def test_entries_past_the_caps_are_reported_not_recorded(store: ExecutionStore) -> None:
    logs = [{"logGroupName": f"/wfx/g{n}"} for n in range(MAX_REGISTERED_LOGS + 2)]

    result = a_registrar(store).execute(an_event(logs=logs))

    assert result.accepted
    assert result.warnings == (
        "2 logs dropped: the step keeps at most 50 registered logs, and has them",
    )
    assert result.dropped == ()  # what a field broke; the cap is a warning
    assert len(store.get_step(STEP).registered_logs) == MAX_REGISTERED_LOGS


def test_a_redelivery_adds_no_duplicate_and_fills_in_what_was_missing(
    store: ExecutionStore,
) -> None:
    register = a_registrar(store)
    register.execute(an_event(logs=[{"logGroupName": "/wfx/a", "logStreamName": "s1"}]))

    register.execute(
        an_event(
            logs=[
                {"logGroupName": "/wfx/a", "logStreamName": "s1", "label": "main"},
                {"logGroupName": "/wfx/b"},
            ]
        )
    )

    assert store.get_step(STEP).registered_logs == (
        RegisteredLog(log_group_name="/wfx/a", log_stream_name="s1", label="main"),
        RegisteredLog(log_group_name="/wfx/b"),
    )


@pytest.mark.parametrize(
    ("source", "detail"),
    [
        pytest.param(f"wfx.execution.e1.pipeline.{step_id('e1', 1)}", {}, id="another step"),
        pytest.param(f"wfx.execution.e1.pipeline.{STEP}x", {}, id="a longer id"),
        pytest.param(f"{STEP}", {}, id="no execution in the source"),
        pytest.param(f"wfx.execution.e2.pipeline.{STEP}", {}, id="another execution's step"),
        pytest.param(SOURCE, {"workflowExecutionId": "e2"}, id="detail names another run"),
        pytest.param("wfx.execution.e1.pipeline.nope", {"pipelineExecutionId": "nope"}, id="none"),
    ],
)
def test_a_spoofed_or_foreign_event_is_refused_with_a_reason_and_nothing_is_written(
    store: ExecutionStore, source: str, detail: dict[str, Any]
) -> None:
    before = store.get_step(STEP)

    result = a_registrar(store).execute(
        an_event(source, logs=[{"logGroupName": "/wfx/a"}], **detail)
    )

    assert not result.accepted
    assert result.reason
    assert result.step is None
    assert store.get_step(STEP) == before
    assert all(not step.registered_logs for step in store.list_steps("e2"))


def test_an_event_of_another_detail_type_is_refused(store: ExecutionStore) -> None:
    command = an_event(logs=[{"logGroupName": "/wfx/a"}]).model_copy(
        update={"detail_type": "something.else"}
    )

    result = a_registrar(store).execute(command)

    assert not result.accepted
    assert store.get_step(STEP).registered_logs == ()


# -- after the end, and while an abort is under way ------------------------------------------


def end_step(store: ExecutionStore, status: StepStatus) -> None:
    started = StepMove(
        "e1", STEP, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)
    )
    assert step_moved(store, started)
    assert step_moved(
        store, StepMove("e1", STEP, status, frozenset({StepStatus.RUNNING}), stop_date=at(2))
    )


@pytest.mark.parametrize("status", [StepStatus.ABORTED, StepStatus.FAILED, StepStatus.SUCCEEDED])
def test_a_registration_onto_a_step_that_has_ended_is_recorded(
    store: ExecutionStore, status: StepStatus
) -> None:
    """As VAMS: a pipeline reports a resource once it has its id, which can be after its step
    ended; being on the row is what lets an abort of the run stop it."""
    end_step(store, status)

    result = a_registrar(store).execute(
        an_event(subExecution={"resourceType": "batchJob", "jobId": "job-4242"})
    )

    assert result.accepted and result.dropped == ()
    stored = store.get_step(STEP)
    assert stored.status is status
    assert stored.registered_sub_executions == (
        RegisteredSubExecution(resource_type="batchJob", job_id="job-4242"),
    )


@pytest.mark.parametrize("step_ended", [False, True], ids=["running step", "ended step"])
def test_a_registration_on_a_run_being_aborted_is_stopped_at_once_and_recorded(
    store: ExecutionStore, tmp_path: Path, step_ended: bool
) -> None:
    """An ended step too: the abort read the row before this came, so only this can stop it."""
    assert step_moved(
        store,
        StepMove("e1", STEP, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)),
    )
    change = store.get_run("e1").request_abort(at(3), "stop it")
    assert change is not None and write_change(store, change)
    if step_ended:
        ended = StepMove(
            "e1", STEP, StepStatus.ABORTED, frozenset({StepStatus.RUNNING}), stop_date=at(4)
        )
        assert step_moved(store, ended)
    child = subprocess.Popen(["sleep", "60"])
    runs = tmp_path / "runs"
    RunFolder(runs / "e1").write_runner(this_process("inline"))  # this process runs e1
    controller = DispatchingSubProcessController(
        {"localProcess": lambda: LocalProcessController(runs, grace_seconds=1)}
    )
    try:
        result = RegisterPipelineExecution(store, controller, SystemClock()).execute(
            an_event(
                subExecution={"resourceType": "localProcess", "localProcessId": str(child.pid)}
            )
        )
        assert child.wait(timeout=5) == -signal.SIGTERM
    finally:
        child.kill()
    assert result.accepted and result.warnings == ()
    (stop,) = store.get_step(STEP).sub_execution_stops
    assert (stop.resource_id, stop.outcome) == (str(child.pid), StopOutcome.STOPPED)


def test_null_lists_and_unknown_detail_keys_cost_nothing_else(store: ExecutionStore) -> None:
    result = a_registrar(store).execute(
        an_event(subExecution={"jobId": "job-1", "resourceType": "batchJob"}, logs=None, x=1)
    )

    assert result.accepted
    assert result.dropped == ("x: not a field of the event detail; dropped",)
    assert store.get_step(STEP).registered_sub_executions == (
        RegisteredSubExecution(resource_type="batchJob", job_id="job-1"),
    )


def test_a_run_of_another_wfx_stack_is_not_registered_so_no_abort_here_stops_it(
    store: ExecutionStore,
) -> None:
    """The functions that stop registered sub-processes may stop any execution of the account
    (a pipeline names them): a step of staging naming production's run as its own would have
    staging's abort stop it. Another stack's machines are told by their prefix; this stack's
    own runs, and anything else, are registered as before."""
    other = "arn:aws:states:us-east-1:123456789012:execution:wfx_4e5f6a7b-demo-mesh-v1:run-1"
    own = "arn:aws:states:us-east-1:123456789012:execution:wfx_0a1b2c3d-demo-inner-v1:run-2"
    registrar = RegisterPipelineExecution(
        store,
        DispatchingSubProcessController({}),
        SystemClock(),
        state_machine_prefix="wfx_0a1b2c3d-",
    )

    result = registrar.execute(
        an_event(
            subExecutions=[
                {"executionArn": other},
                {"stateMachineArn": other.replace(":execution:", ":stateMachine:")[:-6]},
                {"executionArn": own},
                {"executionArn": STATE_MACHINE_RUN},
            ]
        )
    )

    assert result.accepted and result.step is not None
    registered = [s.execution_arn for s in result.step.registered_sub_executions]
    assert registered == [own, STATE_MACHINE_RUN]
    assert result.dropped == (
        "subExecutions[0].executionArn: a run of another wfx stack's state machine "
        "wfx_4e5f6a7b-demo-mesh-v1 (this stack's are wfx_0a1b2c3d-*), which no abort here may "
        "stop; entry dropped",
        "subExecutions[1].stateMachineArn: a run of another wfx stack's state machine "
        "wfx_4e5f6a7b-demo-mesh-v1 (this stack's are wfx_0a1b2c3d-*), which no abort here may "
        "stop; entry dropped",
    )
    stored = store.get_step(STEP).registered_sub_executions
    assert [s.execution_arn for s in stored] == [own, STATE_MACHINE_RUN]


def test_wfx_outside_a_stack_registers_any_state_machine_run(store: ExecutionStore) -> None:
    """The default prefix is no stack's: a run named like a stack's is registered as any."""
    other = "arn:aws:states:us-east-1:123456789012:execution:wfx_4e5f6a7b-demo-mesh-v1:run-1"
    result = a_registrar(store).execute(an_event(subExecutions=[{"executionArn": other}]))
    assert result.accepted and result.step is not None and result.dropped == ()
    assert [s.execution_arn for s in result.step.registered_sub_executions] == [other]


def test_a_sub_process_the_deployment_may_not_stop_is_dropped_naming_the_field_and_the_rest_kept(
    store: ExecutionStore,
) -> None:
    """The roles stop the stack's own machines' runs and SubProcessStateMachinePattern's alone:
    a run elsewhere is dropped, so no abort of this run is denied stopping a child it holds."""
    allowed = "arn:aws:states:us-east-1:123456789012:execution:render-v2:run-3"
    registrar = RegisterPipelineExecution(
        store,
        DispatchingSubProcessController({}),
        SystemClock(),
        state_machine_prefix="wfx_0a1b2c3d-",
        sub_process_reach=SubProcessReach(state_machines=("render-*",)),
    )

    result = registrar.execute(
        an_event(
            subExecutions=[
                {"executionArn": STATE_MACHINE_RUN},
                {"resourceType": "batchJob", "jobId": "job-4242"},
                {"executionArn": allowed},
            ],
            logs=[{"logGroupName": "/wfx/inner"}],
        )
    )

    assert result.accepted and result.step is not None
    assert result.dropped == (
        "subExecutions[0].executionArn: a run of state machine inner, which this deployment's "
        "roles may not stop (they stop runs of wfx_0a1b2c3d-* and of "
        "SubProcessStateMachinePattern: render-*); entry dropped",
        "subExecutions[1].resourceType: a Batch job, which this deployment's roles may not "
        "terminate (SubProcessBatchJobs is none); entry dropped",
    )
    stored = store.get_step(STEP)
    assert [s.execution_arn for s in stored.registered_sub_executions] == [allowed]
    assert stored.registered_logs == (RegisteredLog(log_group_name="/wfx/inner"),)
