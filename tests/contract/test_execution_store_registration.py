"""ExecutionStore contract: register_on_step, the optimistic write of a step's registered lists."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from application.ports import ExecutionStore
from domain.errors import PipelineExecutionNotFoundError
from domain.execution import PipelineExecution
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.registration import merge_logs, merge_sub_executions
from domain.run import StepMove
from domain.statuses import StepStatus
from tests.contract.builders import MONDAY, a_launch, at, step_id, step_moved

STATE_MACHINE = RegisteredSubExecution(
    resource_type="stepFunctionsExecution",
    state_machine_arn="arn:aws:states:us-east-1:123456789012:stateMachine:inner",
    execution_arn="arn:aws:states:us-east-1:123456789012:execution:inner:run-1",
    stage_name="Mesh",
    label="inner",
)
Merge = Callable[
    [PipelineExecution], tuple[tuple[RegisteredSubExecution, ...], tuple[RegisteredLog, ...]]
]
LOG = RegisteredLog(
    log_group_arn="arn:aws:logs:us-east-1:123456789012:log-group:/wfx/inner:*",
    log_stream_prefix="states/",
    stage_name="Mesh",
    source_type="stateMachine",
)


def adding(
    sub_executions: tuple[RegisteredSubExecution, ...] = (),
    logs: tuple[RegisteredLog, ...] = (),
) -> Merge:
    """A merge adding these entries to whatever the step has stored (the domain's rules)."""

    def merge(
        step: PipelineExecution,
    ) -> tuple[tuple[RegisteredSubExecution, ...], tuple[RegisteredLog, ...]]:
        return (
            merge_sub_executions(step.registered_sub_executions, sub_executions),
            merge_logs(step.registered_logs, logs),
        )

    return merge


def test_a_registration_is_stored_and_returned(execution_store: ExecutionStore) -> None:
    records = a_launch("e1")
    execution_store.add_launch(records)
    sid = step_id("e1", 1)

    returned = execution_store.register_on_step(
        "e1", sid, adding((STATE_MACHINE,), (LOG,)), at=MONDAY
    )

    expected = records.steps[1].model_copy(
        update={"registered_sub_executions": (STATE_MACHINE,), "registered_logs": (LOG,)}
    )
    assert returned == expected
    assert execution_store.get_step(sid) == expected
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_registrations_accumulate_and_the_merge_sees_the_stored_lists(
    execution_store: ExecutionStore,
) -> None:
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 0)
    other_log = RegisteredLog(log_group_name="/wfx/other", log_stream_name="s1")
    execution_store.register_on_step("e1", sid, adding((STATE_MACHINE,), (LOG,)), at=MONDAY)

    stored = execution_store.register_on_step("e1", sid, adding(logs=(other_log, LOG)), at=MONDAY)

    assert stored.registered_sub_executions == (STATE_MACHINE,)
    assert stored.registered_logs == (LOG, other_log)
    assert execution_store.get_step(sid) == stored


def test_a_registration_leaves_the_status_fields_alone(execution_store: ExecutionStore) -> None:
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 0)
    assert step_moved(
        execution_store,
        StepMove("e1", sid, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)),
    )

    registered = execution_store.register_on_step("e1", sid, adding((STATE_MACHINE,)), at=MONDAY)
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
def test_a_step_the_execution_does_not_have_is_not_found_and_nothing_is_written(
    execution_store: ExecutionStore, execution_id: str, pipeline_execution_id: str
) -> None:
    records = a_launch("e1")
    execution_store.add_launch(records)

    with pytest.raises(PipelineExecutionNotFoundError):
        execution_store.register_on_step(
            execution_id, pipeline_execution_id, adding((STATE_MACHINE,)), at=MONDAY
        )

    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_redelivery_adding_nothing_returns_the_stored_step_after_one_read(
    execution_store: ExecutionStore,
) -> None:
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 0)
    first = execution_store.register_on_step("e1", sid, adding((STATE_MACHINE,), (LOG,)), at=MONDAY)
    merges: list[PipelineExecution] = []

    def again(
        step: PipelineExecution,
    ) -> tuple[tuple[RegisteredSubExecution, ...], tuple[RegisteredLog, ...]]:
        merges.append(step)
        return adding((STATE_MACHINE,), (LOG,))(step)

    redelivered = execution_store.register_on_step("e1", sid, again, at=MONDAY)

    assert redelivered == first == execution_store.get_step(sid)
    assert merges == [first]


def test_a_registration_onto_a_step_that_has_ended_is_stored(
    execution_store: ExecutionStore,
) -> None:
    """As VAMS: what a pipeline reports late is kept, so that an abort can still stop it."""
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 0)
    change = execution_store.get_run("e1").request_abort(at(3), "stop")
    assert change is not None and execution_store.update_execution(change)
    for move in (
        StepMove("e1", sid, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)),
        StepMove("e1", sid, StepStatus.ABORTED, frozenset({StepStatus.RUNNING}), stop_date=at(4)),
    ):
        assert step_moved(execution_store, move)

    stored = execution_store.register_on_step(
        "e1", sid, adding((STATE_MACHINE,), (LOG,)), at=MONDAY
    )

    assert stored.status is StepStatus.ABORTED
    assert stored.registered_sub_executions == (STATE_MACHINE,)
    assert execution_store.get_step(sid).registered_logs == (LOG,)
