"""HandOnStep on every store: a step's success and the next step's start as one write; decided
again on a read when refused, so a run being aborted starts nothing more and a step ended
already is left as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.local.object_store import FilesystemObjectStore
from adapters.system import SystemClock
from application.use_cases.hand_on_step import HandOnStep, HandOnStepCommand
from application.use_cases.step_tracking import FinishStep, StartStep, StartStepCommand
from domain.run import AttemptFencedError
from domain.run_write import RunWrite
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, at, step_id

FIRST, SECOND = step_id("e1", 0), step_id("e1", 1)


@pytest.fixture
def hand_on(execution_store: Any, tmp_path: Path) -> HandOnStep:
    clock = SystemClock()
    objects = FilesystemObjectStore(tmp_path / "objects")
    execution_store.add_launch(a_launch("e1", steps=2))
    StartStep(execution_store, clock).execute(
        StartStepCommand(workflow_execution_id="e1", pipeline_execution_id=FIRST)
    )
    finish = FinishStep(execution_store, objects, clock)
    return HandOnStep(execution_store, execution_store, finish, clock)


def command(attempt: int = 1) -> HandOnStepCommand:
    return HandOnStepCommand(
        workflow_execution_id="e1",
        pipeline_execution_id=FIRST,
        attempt=attempt,
        next_pipeline_execution_id=SECOND,
    )


def step_statuses(store: Any) -> list[StepStatus]:
    return [step.status for step in sorted(store.list_steps("e1"), key=lambda s: s.step_index)]


def test_the_step_ends_and_the_next_one_starts(execution_store: Any, hand_on: HandOnStep) -> None:
    handed = hand_on.execute(command())
    assert (handed.status, handed.next_attempt) == (StepStatus.SUCCEEDED, 1)
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.RUNNING]
    assert [a.status for a in execution_store.get_run("e1").attempts] == [
        StepStatus.SUCCEEDED,
        StepStatus.RUNNING,
    ]


def test_on_a_run_being_aborted_the_step_ends_aborted_and_nothing_starts(
    execution_store: Any, hand_on: HandOnStep
) -> None:
    abort = execution_store.get_run("e1").request_abort(at(1), "stop")
    assert execution_store.commit(RunWrite.of("e1", change=abort))
    handed = hand_on.execute(command())
    assert (handed.status, handed.next_attempt) == (StepStatus.ABORTED, None)
    assert step_statuses(execution_store) == [StepStatus.ABORTED, StepStatus.NEW]


def test_a_repeated_hand_on_leaves_both_steps_as_the_first_left_them(
    execution_store: Any, hand_on: HandOnStep
) -> None:
    hand_on.execute(command())
    again = hand_on.execute(command())
    assert (again.status, again.next_attempt) == (StepStatus.SUCCEEDED, None)
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.RUNNING]
    assert len(execution_store.get_run("e1").attempts) == 2


def test_a_result_of_an_attempt_that_is_not_running_is_refused(
    execution_store: Any, hand_on: HandOnStep
) -> None:
    with pytest.raises(AttemptFencedError):
        hand_on.execute(command(attempt=2))
    assert step_statuses(execution_store) == [StepStatus.RUNNING, StepStatus.NEW]
