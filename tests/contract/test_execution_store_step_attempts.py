"""ExecutionStore contract: a step's transition and its attempt in one write, or nothing of it."""

from __future__ import annotations

import pytest

from application.ports import (
    AttemptNotRunningError,
    AttemptNumberTakenError,
    ExecutionStore,
    StepChange,
)
from domain.attempts import AttemptTrigger
from domain.errors import PipelineExecutionNotFoundError
from domain.execution import PipelineExecution
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, an_attempt, at, step_id

NEW = frozenset({StepStatus.NEW})
OPEN = frozenset({StepStatus.NEW, StepStatus.RUNNING})
SID = step_id("e1", 0)
START = StepChange(StepStatus.RUNNING, start_date=at(1))
FAIL = StepChange(StepStatus.FAILED, stop_date=at(2), error="exit 3")


@pytest.fixture
def launched(execution_store: ExecutionStore) -> PipelineExecution:
    records = a_launch("e1", steps=2)
    execution_store.add_launch(records)
    return records.steps[0]


def started(store: ExecutionStore, step: PipelineExecution) -> PipelineExecution:
    running = store.start_step("e1", SID, START, NEW, an_attempt(SID, 1))
    assert running is not None
    return running


# -- start_step ----------------------------------------------------------------------------------


def test_a_start_writes_the_running_step_and_its_first_attempt(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    returned = execution_store.start_step("e1", SID, START, NEW, an_attempt(SID, 1))

    expected = launched.model_copy(update={"status": StepStatus.RUNNING, "start_date": at(1)})
    assert returned == expected
    assert execution_store.get_step(SID) == expected
    assert execution_store.list_attempts([SID]) == [an_attempt(SID, 1)]


def test_a_start_of_a_step_that_is_not_new_writes_neither(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    running = started(execution_store, launched)

    again = StepChange(StepStatus.RUNNING, start_date=at(5))
    assert (
        execution_store.start_step(
            "e1", SID, again, NEW, an_attempt(SID, 2, minutes=5, trigger=AttemptTrigger.REDRIVE)
        )
        is None
    )

    assert execution_store.get_step(SID) == running
    assert execution_store.list_attempts([SID]) == [an_attempt(SID, 1)]


def test_a_start_whose_attempt_number_is_taken_writes_neither_and_says_so(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    kept = an_attempt(SID, 1, minutes=0)
    execution_store.add_attempt(kept)

    with pytest.raises(AttemptNumberTakenError):
        execution_store.start_step("e1", SID, START, NEW, an_attempt(SID, 1))

    assert execution_store.get_step(SID) == launched
    assert execution_store.list_attempts([SID]) == [kept]


def test_a_start_of_an_unknown_step_is_not_found_and_writes_no_attempt(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    with pytest.raises(PipelineExecutionNotFoundError):
        execution_store.start_step("e2", SID, START, NEW, an_attempt(SID, 1))

    assert execution_store.list_attempts([SID]) == []


# -- finish_step ---------------------------------------------------------------------------------


def test_a_finish_closes_the_step_and_its_attempt(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    running = started(execution_store, launched)

    returned = execution_store.finish_step("e1", SID, FAIL, OPEN, 1)

    expected = running.model_copy(
        update={"status": StepStatus.FAILED, "stop_date": at(2), "error": "exit 3"}
    )
    assert returned == expected
    assert execution_store.get_step(SID) == expected
    [attempt] = execution_store.list_attempts([SID])
    assert (attempt.status, attempt.stop_date, attempt.error) == (
        StepStatus.FAILED,
        at(2),
        "exit 3",
    )


def test_a_finish_whose_attempt_is_not_running_writes_neither_and_says_so(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    running = started(execution_store, launched)
    execution_store.finish_attempt(SID, 1, StepStatus.FAILED, at(2), "retried")
    closed = execution_store.list_attempts([SID])

    done = StepChange(StepStatus.SUCCEEDED, stop_date=at(3))
    with pytest.raises(AttemptNotRunningError):
        execution_store.finish_step("e1", SID, done, OPEN, 1)

    assert execution_store.get_step(SID) == running
    assert execution_store.list_attempts([SID]) == closed


def test_a_finish_of_a_step_with_no_such_attempt_writes_neither_and_says_so(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    with pytest.raises(AttemptNotRunningError):
        execution_store.finish_step("e1", SID, FAIL, OPEN, 1)

    assert execution_store.get_step(SID) == launched
    assert execution_store.list_attempts([SID]) == []


def test_a_finish_of_a_finished_step_writes_neither(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    started(execution_store, launched)
    finished = execution_store.finish_step("e1", SID, FAIL, OPEN, 1)
    attempts = execution_store.list_attempts([SID])

    late = StepChange(StepStatus.SUCCEEDED, stop_date=at(9))
    assert execution_store.finish_step("e1", SID, late, OPEN, 1) is None

    assert execution_store.get_step(SID) == finished
    assert execution_store.list_attempts([SID]) == attempts


def test_a_finish_of_an_unknown_step_is_not_found(
    execution_store: ExecutionStore, launched: PipelineExecution
) -> None:
    with pytest.raises(PipelineExecutionNotFoundError):
        execution_store.finish_step("e1", "no-such-step", FAIL, OPEN, 1)
