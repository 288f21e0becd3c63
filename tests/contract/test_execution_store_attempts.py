"""ExecutionStore contract: task execution attempts are read back by step, attempt ascending."""

from __future__ import annotations

from application.ports.executions import ExecutionStore
from domain.attempts import AttemptTrigger
from domain.run import StepMove
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, an_attempt, at, step_id, step_moved, write_launch

RUNNING = frozenset({StepStatus.RUNNING})


def run_step(store: ExecutionStore, sid: str, execution_id: str = "e1") -> None:
    started = StepMove(
        execution_id, sid, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)
    )
    assert step_moved(store, started)


def open_attempt(store: ExecutionStore, sid: str, number: int, **kw: object) -> None:
    attempt = an_attempt(sid, number, **kw)  # type: ignore[arg-type]
    move = StepMove(attempt.workflow_execution_id, sid, None, RUNNING, open_attempt=attempt)
    assert step_moved(store, move)


def test_attempts_are_listed_by_step_in_the_order_asked_then_attempt_ascending(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1", steps=2))
    first, second = step_id("e1", 0), step_id("e1", 1)
    run_step(execution_store, first)
    run_step(execution_store, second)
    # Ten and more attempts: a text sort would put 10 before 2.
    for number in (2, 11, 1, 10):
        open_attempt(execution_store, second, number)
    open_attempt(execution_store, first, 1)

    listed = execution_store.list_attempts([second, first, "s3"])

    assert [(a.pipeline_execution_id, a.attempt) for a in listed] == [
        (second, 1),
        (second, 2),
        (second, 10),
        (second, 11),
        (first, 1),
    ]


def test_the_details_of_a_run_carry_each_steps_attempts(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1", steps=2))
    first, second = step_id("e1", 0), step_id("e1", 1)
    run_step(execution_store, first)
    open_attempt(execution_store, first, 1)
    retry = StepMove(
        "e1",
        first,
        None,
        RUNNING,
        stop_date=at(2),
        error="boom",
        open_attempt=an_attempt(first, 2, minutes=3, trigger=AttemptTrigger.RETRY),
        close_attempt=1,
        close_status=StepStatus.FAILED,
    )
    assert step_moved(execution_store, retry)

    details = execution_store.get_details("e1")

    attempts = {d.step.pipeline_execution_id: d.attempts for d in details.steps}
    assert [(a.attempt, a.status, a.trigger) for a in attempts[first]] == [
        (1, StepStatus.FAILED, AttemptTrigger.START),
        (2, StepStatus.RUNNING, AttemptTrigger.RETRY),
    ]
    assert attempts[second] == ()


def test_the_steps_come_with_the_attempts_of_the_running_ones_alone(
    execution_store: ExecutionStore,
) -> None:
    """What an abort's end needs: every step, and the attempts it closes (a NEW step never
    opened one, an ended one's are closed already)."""
    write_launch(execution_store, a_launch("e1", steps=3))
    ended, running, new = step_id("e1", 0), step_id("e1", 1), step_id("e1", 2)
    for sid in (ended, running):
        run_step(execution_store, sid)
        open_attempt(execution_store, sid, 1)
    closed = StepMove("e1", ended, StepStatus.FAILED, RUNNING, stop_date=at(2), close_attempt=1)
    assert step_moved(execution_store, closed)
    open_attempt(execution_store, running, 2)

    steps, attempts = execution_store.list_steps_and_running_attempts("e1")

    assert {s.pipeline_execution_id: s.status for s in steps} == {
        ended: StepStatus.FAILED,
        running: StepStatus.RUNNING,
        new: StepStatus.NEW,
    }
    assert [(a.pipeline_execution_id, a.attempt) for a in attempts] == [(running, 1), (running, 2)]
