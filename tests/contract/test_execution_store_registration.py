"""RunWriter contract: a registration's write of a step's lists, guarded by the row's version."""

from __future__ import annotations

import pytest

from application.ports.executions import ExecutionStore
from domain.errors import PipelineExecutionNotFoundError
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.run import StepMove
from domain.run_write import RunWrite, VersionedStep
from domain.statuses import StepStatus
from tests.contract.builders import (
    MONDAY,
    a_launch,
    at,
    registered_on_step,
    step_id,
    step_moved,
    write_change,
    write_launch,
)

STATE_MACHINE = RegisteredSubExecution(
    resource_type="stepFunctionsExecution",
    state_machine_arn="arn:aws:states:us-east-1:123456789012:stateMachine:inner",
    execution_arn="arn:aws:states:us-east-1:123456789012:execution:inner:run-1",
    stage_name="Mesh",
    label="inner",
)
LOG = RegisteredLog(
    log_group_arn="arn:aws:logs:us-east-1:123456789012:log-group:/wfx/inner:*",
    log_stream_prefix="states/",
    stage_name="Mesh",
    source_type="stateMachine",
)
OTHER_LOG = RegisteredLog(log_group_name="/wfx/other", log_stream_name="s1")


def registering(
    read: VersionedStep,
    sub_executions: tuple[RegisteredSubExecution, ...] = (),
    logs: tuple[RegisteredLog, ...] = (),
) -> RunWrite:
    write = RunWrite.registering(read, sub_executions, logs, MONDAY)
    assert write is not None
    return write


def test_a_registration_is_stored_with_the_version_moved_on(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1")
    write_launch(execution_store, records)
    sid = step_id("e1", 1)
    read = execution_store.get_versioned_step("e1", sid)

    assert execution_store.commit(registering(read, (STATE_MACHINE,), (LOG,)))

    expected = records.steps[1].model_copy(
        update={"registered_sub_executions": (STATE_MACHINE,), "registered_logs": (LOG,)}
    )
    after = execution_store.get_versioned_step("e1", sid)
    assert after.step == expected == execution_store.get_step(sid)
    assert after.version > read.version
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_write_decided_on_a_version_since_moved_on_is_refused_and_writes_nothing(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    sid = step_id("e1", 0)
    stale = execution_store.get_versioned_step("e1", sid)
    first = registered_on_step(execution_store, "e1", sid, (STATE_MACHINE,))

    assert not execution_store.commit(registering(stale, logs=(OTHER_LOG,)))

    assert execution_store.get_step(sid) == first
    fresh = execution_store.get_versioned_step("e1", sid)
    assert execution_store.commit(
        registering(fresh, fresh.step.registered_sub_executions, (OTHER_LOG,))
    )
    assert execution_store.get_step(sid).registered_sub_executions == (STATE_MACHINE,)
    assert execution_store.get_step(sid).registered_logs == (OTHER_LOG,)


def test_registrations_accumulate_each_decided_on_the_stored_lists(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    sid = step_id("e1", 0)
    registered_on_step(execution_store, "e1", sid, (STATE_MACHINE,), (LOG,))

    stored = registered_on_step(execution_store, "e1", sid, logs=(OTHER_LOG, LOG))

    assert stored.registered_sub_executions == (STATE_MACHINE,)
    assert stored.registered_logs == (LOG, OTHER_LOG)
    assert execution_store.get_step(sid) == stored


def test_a_registration_leaves_the_status_fields_alone(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1"))
    sid = step_id("e1", 0)
    assert step_moved(
        execution_store,
        StepMove("e1", sid, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)),
    )

    registered = registered_on_step(execution_store, "e1", sid, (STATE_MACHINE,))
    done = step_moved(
        execution_store,
        StepMove("e1", sid, StepStatus.SUCCEEDED, frozenset({StepStatus.RUNNING}), stop_date=at(2)),
    )

    assert registered.status is StepStatus.RUNNING
    assert registered.start_date == at(1)
    assert done
    assert execution_store.get_step(sid).registered_sub_executions == (STATE_MACHINE,)


@pytest.mark.parametrize(
    ("execution_id", "pipeline_execution_id"),
    [("e2", step_id("e1", 0)), ("e1", "e1-step9"), ("", step_id("e1", 0)), ("e1", "")],
)
def test_a_step_the_execution_does_not_have_is_not_found(
    execution_store: ExecutionStore, execution_id: str, pipeline_execution_id: str
) -> None:
    write_launch(execution_store, a_launch("e1"))

    with pytest.raises(PipelineExecutionNotFoundError):
        execution_store.get_versioned_step(execution_id, pipeline_execution_id)


def test_a_write_onto_a_step_the_run_does_not_have_is_not_found_and_writes_nothing(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1")
    write_launch(execution_store, records)
    elsewhere = records.steps[0].model_copy(update={"pipeline_execution_id": "e1-step9"})

    with pytest.raises(PipelineExecutionNotFoundError):
        execution_store.commit(registering(VersionedStep(elsewhere, 0), (STATE_MACHINE,)))

    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_redelivery_adding_nothing_writes_nothing(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1"))
    sid = step_id("e1", 0)
    first = registered_on_step(execution_store, "e1", sid, (STATE_MACHINE,), (LOG,))
    version = execution_store.get_versioned_step("e1", sid).version

    redelivered = registered_on_step(execution_store, "e1", sid, (STATE_MACHINE,), (LOG,))

    assert redelivered == first == execution_store.get_step(sid)
    assert execution_store.get_versioned_step("e1", sid).version == version


def test_a_registration_onto_a_step_that_has_ended_is_stored(
    execution_store: ExecutionStore,
) -> None:
    """As VAMS: what a pipeline reports late is kept, so that an abort can still stop it."""
    write_launch(execution_store, a_launch("e1"))
    sid = step_id("e1", 0)
    change = execution_store.get_run("e1").request_abort(at(3), "stop")
    assert change is not None and write_change(execution_store, change)
    for move in (
        StepMove("e1", sid, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)),
        StepMove("e1", sid, StepStatus.ABORTED, frozenset({StepStatus.RUNNING}), stop_date=at(4)),
    ):
        assert step_moved(execution_store, move)

    stored = registered_on_step(execution_store, "e1", sid, (STATE_MACHINE,), (LOG,))

    assert stored.status is StepStatus.ABORTED
    assert stored.registered_sub_executions == (STATE_MACHINE,)
    assert execution_store.get_step(sid).registered_logs == (LOG,)
