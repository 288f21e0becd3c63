"""ExecutionStore contract: record_stops_on_step, the versioned write of a step's stop outcomes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from adapters.records import build_pipeline_execution_record
from application.ports import ExecutionStore
from domain.errors import PipelineExecutionNotFoundError
from domain.execution import PipelineExecution
from domain.logs import RegisteredSubExecution
from domain.registration import merge_sub_executions
from domain.sub_processes import StopOutcome, SubExecutionStop, merge_stops
from tests.contract.builders import MONDAY, a_launch, step_id

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
CHILD = RegisteredSubExecution.of_resource(resource_type="batch", resource_id="job-1")
LATE_CHILD = RegisteredSubExecution.of_resource(
    resource_type="stepFunctions", resource_id="arn:late"
)


def a_stop(outcome: StopOutcome, tries: int = 1, rid: str = "job-1") -> SubExecutionStop:
    return SubExecutionStop(
        resource_type="batch", resource_id=rid, outcome=outcome, detail="d", at=T0, tries=tries
    )


def adding(*stops: SubExecutionStop) -> Callable[[PipelineExecution], tuple[SubExecutionStop, ...]]:
    def merge(step: PipelineExecution) -> tuple[SubExecutionStop, ...]:
        return merge_stops(step.sub_execution_stops, stops)

    return merge


def test_stop_outcomes_are_stored_on_the_step_and_returned(execution_store: ExecutionStore) -> None:
    records = a_launch("e1")
    execution_store.add_launch(records)
    sid = step_id("e1", 1)
    stop = a_stop(StopOutcome.STOP_REQUESTED)

    returned = execution_store.record_stops_on_step("e1", sid, adding(stop))

    expected = records.steps[1].model_copy(update={"sub_execution_stops": (stop,)})
    assert returned == expected
    assert execution_store.get_step(sid) == expected
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_later_attempt_merges_into_what_is_stored(execution_store: ExecutionStore) -> None:
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 1)
    execution_store.record_stops_on_step("e1", sid, adding(a_stop(StopOutcome.STOP_REQUESTED)))

    stored = execution_store.record_stops_on_step(
        "e1",
        sid,
        adding(a_stop(StopOutcome.STOPPED, tries=1), a_stop(StopOutcome.UNSUPPORTED, rid="x")),
    )

    assert [(s.resource_id, s.outcome, s.tries) for s in stored.sub_execution_stops] == [
        ("job-1", StopOutcome.STOPPED, 2),
        ("x", StopOutcome.UNSUPPORTED, 1),
    ]
    assert execution_store.get_step(sid) == stored


def test_a_registration_racing_a_stop_record_both_survive(execution_store: ExecutionStore) -> None:
    """The stop record's first write loses to a registration made between its read and write;
    the retry re-reads, so the registered child and the outcome are both stored."""
    execution_store.add_launch(a_launch("e1"))
    sid = step_id("e1", 1)
    execution_store.register_on_step(
        "e1", sid, lambda step: (merge_sub_executions((), (CHILD,)), ()), at=MONDAY
    )
    reads: list[PipelineExecution] = []

    def merge(step: PipelineExecution) -> tuple[SubExecutionStop, ...]:
        reads.append(step)
        if len(reads) == 1:  # another delivery registers while this merge is in hand
            execution_store.register_on_step(
                "e1",
                sid,
                lambda s: (merge_sub_executions(s.registered_sub_executions, (LATE_CHILD,)), ()),
                at=MONDAY,
            )
        return merge_stops(step.sub_execution_stops, (a_stop(StopOutcome.STOPPED),))

    stored = execution_store.record_stops_on_step("e1", sid, merge)

    assert len(reads) == 2
    assert stored.registered_sub_executions == (CHILD, LATE_CHILD)
    assert [s.outcome for s in stored.sub_execution_stops] == [StopOutcome.STOPPED]
    assert execution_store.get_step(sid) == stored


def test_a_step_the_execution_does_not_have_is_not_found(execution_store: ExecutionStore) -> None:
    execution_store.add_launch(a_launch("e1"))

    with pytest.raises(PipelineExecutionNotFoundError):
        execution_store.record_stops_on_step(
            "e1", step_id("other", 1), adding(a_stop(StopOutcome.STOPPED))
        )


def test_the_list_is_absent_from_a_step_record_that_has_no_outcomes() -> None:
    step = a_launch("e1").steps[0]
    with_stop = step.model_copy(update={"sub_execution_stops": (a_stop(StopOutcome.STOPPED),)})

    assert "subExecutionStops" not in build_pipeline_execution_record(step)
    assert build_pipeline_execution_record(with_stop)["subExecutionStops"] == [
        {
            "resourceType": "batch",
            "resourceId": "job-1",
            "outcome": "stopped",
            "detail": "d",
            "at": "2026-11-29T10:00:00.000000Z",
            "tries": 1,
        }
    ]
