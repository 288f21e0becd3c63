"""RunWriter contract: an abort's write of a step's stop outcomes, guarded by the row's version."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from adapters.step_records import build_pipeline_execution_record
from application.ports.executions import ExecutionStore
from domain.errors import PipelineExecutionNotFoundError
from domain.logs import RegisteredSubExecution
from domain.run_write import RunWrite, VersionedStep
from domain.sub_processes import StopOutcome, SubExecutionStop, merge_stops
from tests.contract.builders import (
    a_launch,
    registered_on_step,
    step_id,
    stops_recorded_on_step,
    write_launch,
)

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
CHILD = RegisteredSubExecution.of_resource(resource_type="batch", resource_id="job-1")
LATE_CHILD = RegisteredSubExecution.of_resource(
    resource_type="stepFunctions", resource_id="arn:late"
)


def a_stop(outcome: StopOutcome, tries: int = 1, rid: str = "job-1") -> SubExecutionStop:
    return SubExecutionStop(
        resource_type="batch", resource_id=rid, outcome=outcome, detail="d", at=T0, tries=tries
    )


def test_stop_outcomes_are_stored_on_the_step(execution_store: ExecutionStore) -> None:
    records = a_launch("e1")
    write_launch(execution_store, records)
    sid = step_id("e1", 1)
    stop = a_stop(StopOutcome.STOP_REQUESTED)

    returned = stops_recorded_on_step(execution_store, "e1", sid, (stop,))

    expected = records.steps[1].model_copy(update={"sub_execution_stops": (stop,)})
    assert returned == expected
    assert execution_store.get_step(sid) == expected
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_later_attempt_merges_into_what_is_stored(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1"))
    sid = step_id("e1", 1)
    stops_recorded_on_step(execution_store, "e1", sid, (a_stop(StopOutcome.STOP_REQUESTED),))

    stored = stops_recorded_on_step(
        execution_store,
        "e1",
        sid,
        (a_stop(StopOutcome.STOPPED, tries=1), a_stop(StopOutcome.UNSUPPORTED, rid="x")),
    )

    assert [(s.resource_id, s.outcome, s.tries) for s in stored.sub_execution_stops] == [
        ("job-1", StopOutcome.STOPPED, 2),
        ("x", StopOutcome.UNSUPPORTED, 1),
    ]
    assert execution_store.get_step(sid) == stored


def test_a_registration_racing_a_stop_record_both_survive(execution_store: ExecutionStore) -> None:
    """A stop record decided on the row before a registration came is refused; decided again on
    a fresh read, the registered child and the outcome are both stored."""
    write_launch(execution_store, a_launch("e1"))
    sid = step_id("e1", 1)
    registered_on_step(execution_store, "e1", sid, (CHILD,))
    read = execution_store.get_versioned_step("e1", sid)
    stops = (a_stop(StopOutcome.STOPPED),)
    registered_on_step(execution_store, "e1", sid, (LATE_CHILD,))  # while the stop is in hand

    def recording(read: VersionedStep) -> RunWrite:
        write = RunWrite.recording_stops(read, merge_stops(read.step.sub_execution_stops, stops))
        assert write is not None
        return write

    assert not execution_store.commit(recording(read))
    assert execution_store.commit(recording(execution_store.get_versioned_step("e1", sid)))

    stored = execution_store.get_step(sid)
    assert stored.registered_sub_executions == (CHILD, LATE_CHILD)
    assert [s.outcome for s in stored.sub_execution_stops] == [StopOutcome.STOPPED]


def test_a_step_the_execution_does_not_have_is_not_found(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1"))

    with pytest.raises(PipelineExecutionNotFoundError):
        stops_recorded_on_step(
            execution_store, "e1", step_id("other", 1), (a_stop(StopOutcome.STOPPED),)
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
