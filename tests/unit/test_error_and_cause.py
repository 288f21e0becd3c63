"""The main row keeps a failure's cause apart (executionCause) beside seed 000's executionError,
which joins error and cause; DescribeExecution answers the two apart."""

from __future__ import annotations

from datetime import timedelta

from adapters.run_records import build_execution_record, parse_execution_record
from domain.execution import failure_parts
from domain.run import Run
from domain.statuses import ExecutionStatus
from tests.contract.builders import MONDAY, an_execution

LATER = MONDAY + timedelta(minutes=5)


def test_a_failed_run_keeps_the_joined_message_and_the_cause_alone() -> None:
    end = Run(execution=an_execution("exec-1")).fail(
        LATER, "States.TaskFailed: exit 3", "", None, cause="exit 3"
    )

    assert end is not None
    ended = end.change.after
    assert (ended.execution_error, ended.execution_cause) == ("States.TaskFailed: exit 3", "exit 3")
    assert failure_parts(ended) == ("States.TaskFailed", "exit 3")


def test_an_abort_keeps_its_cause_apart_and_leaves_execution_error_empty() -> None:
    requested = Run(execution=an_execution("exec-1")).request_abort(MONDAY, "operator said so")
    assert requested is not None

    end = Run(execution=requested.after).abort(LATER, "", None)

    assert end is not None
    ended = end.change.after
    # seed 000: executionError holds only a real failure's error and cause
    assert (ended.execution_error, ended.execution_cause) == (None, None)
    assert ended.abort_cause == "operator said so"


def test_a_run_ended_without_an_error_never_takes_its_status_name_as_one() -> None:
    for status in (ExecutionStatus.FAILED, ExecutionStatus.ABORTED, ExecutionStatus.TIMED_OUT):
        ended = an_execution("exec-1").complete(status, LATER, "", None)

        assert (ended.status, ended.execution_error, ended.execution_cause) == (status, None, None)


def test_a_timeout_described_without_error_or_cause_leaves_execution_error_empty() -> None:
    end = Run(execution=an_execution("exec-1")).end_as_described(
        ExecutionStatus.TIMED_OUT, LATER, None, "", None, LATER
    )

    assert end is not None
    assert end.change.after.execution_error is None


def test_a_runner_lost_run_has_its_error_name_and_the_lease_story_apart() -> None:
    end = Run(execution=an_execution("exec-1")).lose_runner(
        MONDAY + timedelta(hours=1), timedelta(seconds=30), "", None
    )

    assert end is not None
    error, cause = failure_parts(end.change.after)
    assert error == "wfx.RunnerLost"
    assert cause is not None and "no local runner took the run" in cause


def test_an_error_without_a_cause_is_all_error() -> None:
    ended = an_execution("exec-1").complete(ExecutionStatus.FAILED, LATER, "", "step 2 exited 3")

    assert failure_parts(ended) == ("step 2 exited 3", None)


def test_a_success_clears_both_and_the_row_round_trips_the_cause() -> None:
    failed = an_execution("exec-1").complete(
        ExecutionStatus.FAILED, LATER, "", "E: why", cause="why"
    )
    record = build_execution_record(failed)

    assert record["executionCause"] == "why"
    assert parse_execution_record(record).execution_cause == "why"
    succeeded = an_execution("exec-2").complete(
        ExecutionStatus.SUCCEEDED, LATER, "", None, cause="x"
    )
    assert (succeeded.execution_error, succeeded.execution_cause) == (None, None)
