"""ExecutionStore contract: task execution attempts are added once and closed once."""

from __future__ import annotations

from application.ports import ExecutionStore
from domain.attempts import AttemptTrigger
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, an_attempt, at, step_id


def test_an_added_attempt_reads_back_as_it_was_stored(execution_store: ExecutionStore) -> None:
    attempt = an_attempt("s1", 1)

    assert execution_store.add_attempt(attempt) is True
    assert execution_store.list_attempts(["s1"]) == [attempt]


def test_a_taken_attempt_number_is_refused_and_the_first_attempt_kept(
    execution_store: ExecutionStore,
) -> None:
    first = an_attempt("s1", 1)
    execution_store.add_attempt(first)

    again = an_attempt("s1", 1, minutes=5, trigger=AttemptTrigger.RETRY)

    assert execution_store.add_attempt(again) is False
    assert execution_store.list_attempts(["s1"]) == [first]


def test_an_attempt_is_finished_only_once(execution_store: ExecutionStore) -> None:
    execution_store.add_attempt(an_attempt("s1", 1))

    assert execution_store.finish_attempt("s1", 1, StepStatus.FAILED, at(2), "exit 3") is True
    assert execution_store.finish_attempt("s1", 1, StepStatus.SUCCEEDED, at(3), None) is False

    [stored] = execution_store.list_attempts(["s1"])
    assert (stored.status, stored.stop_date, stored.error) == (StepStatus.FAILED, at(2), "exit 3")


def test_finishing_an_attempt_that_does_not_exist_writes_nothing(
    execution_store: ExecutionStore,
) -> None:
    assert execution_store.finish_attempt("s1", 1, StepStatus.FAILED, at(2), "x") is False
    assert execution_store.list_attempts(["s1"]) == []


def test_a_succeeded_attempt_keeps_no_error(execution_store: ExecutionStore) -> None:
    execution_store.add_attempt(an_attempt("s1", 1))

    execution_store.finish_attempt("s1", 1, StepStatus.SUCCEEDED, at(2), None)

    [stored] = execution_store.list_attempts(["s1"])
    assert (stored.status, stored.error) == (StepStatus.SUCCEEDED, None)


def test_attempts_are_listed_by_step_in_the_order_asked_then_attempt_ascending(
    execution_store: ExecutionStore,
) -> None:
    # Ten and more attempts: a text sort would put 10 before 2.
    for number in (2, 11, 1, 10):
        execution_store.add_attempt(an_attempt("s2", number))
    execution_store.add_attempt(an_attempt("s1", 1))

    listed = execution_store.list_attempts(["s2", "s1", "s3"])

    assert [(a.pipeline_execution_id, a.attempt) for a in listed] == [
        ("s2", 1),
        ("s2", 2),
        ("s2", 10),
        ("s2", 11),
        ("s1", 1),
    ]


def test_the_details_of_a_run_carry_each_steps_attempts(execution_store: ExecutionStore) -> None:
    execution_store.add_launch(a_launch("e1", steps=2))
    first, second = step_id("e1", 0), step_id("e1", 1)
    execution_store.add_attempt(an_attempt(first, 1))
    execution_store.finish_attempt(first, 1, StepStatus.FAILED, at(2), "boom")
    execution_store.add_attempt(an_attempt(first, 2, minutes=3, trigger=AttemptTrigger.RETRY))

    details = execution_store.get_details("e1")

    attempts = {d.step.pipeline_execution_id: d.attempts for d in details.steps}
    assert [(a.attempt, a.status, a.trigger) for a in attempts[first]] == [
        (1, StepStatus.FAILED, AttemptTrigger.START),
        (2, StepStatus.RUNNING, AttemptTrigger.RETRY),
    ]
    assert attempts[second] == ()
