"""Seed 001's redrive conditions, each at its boundary, with the seed's reason strings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import ConflictError, RedriveNotAllowedError
from domain.execution import WorkflowExecution
from domain.redrive import MAX_HISTORY_EVENTS, redrive_refusal
from domain.statuses import ExecutionStatus
from domain.triggers import TriggerType

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
REDRIVABLE = [ExecutionStatus.FAILED, ExecutionStatus.ABORTED, ExecutionStatus.TIMED_OUT]


def an_execution(
    status: ExecutionStatus,
    started: timedelta = timedelta(hours=2),
    stopped: timedelta | None = timedelta(hours=1),
) -> WorkflowExecution:
    """A run that started `started` before NOW and stopped `stopped` before NOW."""
    return WorkflowExecution(
        workflow_execution_id="exec-1",
        workflow_database_id="db",
        workflow_id="wf",
        workflow_version=1,
        status=status,
        execution_start_date=NOW - started,
        execution_stop_date=None if stopped is None else NOW - stopped,
        triggered_by_user_id="alice",
        trigger_type=TriggerType.MANUAL,
    )


@pytest.mark.parametrize("status", REDRIVABLE)
def test_a_recent_unsuccessful_run_with_a_short_history_can_be_redriven(
    status: ExecutionStatus,
) -> None:
    assert redrive_refusal(an_execution(status), NOW, history_event_count=10) is None


def test_a_succeeded_run_cannot_be_redriven() -> None:
    refusal = redrive_refusal(an_execution(ExecutionStatus.SUCCEEDED), NOW, 10)
    assert refusal == "Execution is SUCCEEDED and cannot be redriven."


@pytest.mark.parametrize(
    "status", [ExecutionStatus.RUNNING, ExecutionStatus.NEW, ExecutionStatus.PENDING_REDRIVE]
)
def test_an_open_run_is_refused_as_running(status: ExecutionStatus) -> None:
    execution = an_execution(status, stopped=None)
    assert redrive_refusal(execution, NOW, 10) == "Execution is RUNNING and cannot be redriven."


def test_a_state_machine_being_deleted_refuses_any_run_first() -> None:
    for status in [*REDRIVABLE, ExecutionStatus.SUCCEEDED]:
        refusal = redrive_refusal(an_execution(status), NOW, 10, state_machine_status="DELETING")
        assert refusal == "State machine is in DELETING status."


def test_an_active_state_machine_refuses_nothing() -> None:
    execution = an_execution(ExecutionStatus.FAILED)
    assert redrive_refusal(execution, NOW, 10, state_machine_status="ACTIVE") is None


def test_a_run_started_before_redrive_execution_was_launched_cannot_be_redriven() -> None:
    launch = datetime(2023, 11, 15, tzinfo=UTC)
    before = an_execution(ExecutionStatus.FAILED)._evolve(
        execution_start_date=launch - timedelta(seconds=1), execution_stop_date=NOW
    )
    at_launch = before._evolve(execution_start_date=launch)

    refusal = redrive_refusal(before, NOW, 10)

    assert refusal == "Execution was started before the launch of RedriveExecution."
    # started at the launch: only the one-year limit stands in its way
    assert redrive_refusal(at_launch, NOW, 10) == "Execution has exceeded the max execution time."


def test_a_run_stopped_exactly_fourteen_days_ago_can_still_be_redriven() -> None:
    execution = an_execution(
        ExecutionStatus.FAILED, started=timedelta(days=15), stopped=timedelta(days=14)
    )
    assert redrive_refusal(execution, NOW, 10) is None


def test_a_run_stopped_just_over_fourteen_days_ago_is_past_the_redrivable_period() -> None:
    execution = an_execution(
        ExecutionStatus.FAILED,
        started=timedelta(days=15),
        stopped=timedelta(days=14, microseconds=1),
    )
    assert redrive_refusal(execution, NOW, 10) == "Execution redrivable period exceeded."


def test_a_run_opened_exactly_a_year_ago_can_still_be_redriven() -> None:
    execution = an_execution(ExecutionStatus.FAILED, started=timedelta(days=365))
    assert redrive_refusal(execution, NOW, 10) is None


def test_a_run_opened_over_a_year_ago_has_exceeded_the_max_execution_time() -> None:
    execution = an_execution(ExecutionStatus.ABORTED, started=timedelta(days=365, microseconds=1))
    assert redrive_refusal(execution, NOW, 10) == "Execution has exceeded the max execution time."


def test_a_history_one_event_under_the_limit_can_be_redriven() -> None:
    execution = an_execution(ExecutionStatus.FAILED)
    assert redrive_refusal(execution, NOW, MAX_HISTORY_EVENTS - 1) is None


def test_a_history_of_24999_events_is_over_the_limit() -> None:
    execution = an_execution(ExecutionStatus.FAILED)
    assert redrive_refusal(execution, NOW, 24_999) == "Execution history event limit exceeded."


@given(
    status=st.sampled_from(REDRIVABLE),
    stopped_hours=st.integers(min_value=0, max_value=14 * 24),
    open_hours=st.integers(min_value=0, max_value=200 * 24),
    events=st.integers(min_value=0, max_value=MAX_HISTORY_EVENTS - 1),
)
def test_every_run_inside_all_the_limits_can_be_redriven(
    status: ExecutionStatus, stopped_hours: int, open_hours: int, events: int
) -> None:
    stopped = timedelta(hours=stopped_hours)
    execution = an_execution(status, started=stopped + timedelta(hours=open_hours), stopped=stopped)
    assert redrive_refusal(execution, NOW, events) is None


@given(events=st.integers(min_value=MAX_HISTORY_EVENTS, max_value=10**6))
def test_every_history_at_or_over_the_limit_is_refused(events: int) -> None:
    execution = an_execution(ExecutionStatus.TIMED_OUT)
    assert redrive_refusal(execution, NOW, events) == "Execution history event limit exceeded."


@given(events=st.integers(min_value=0, max_value=10**6))
def test_a_succeeded_run_is_refused_whatever_its_history(events: int) -> None:
    refusal = redrive_refusal(an_execution(ExecutionStatus.SUCCEEDED), NOW, events)
    assert refusal == "Execution is SUCCEEDED and cannot be redriven."


def test_the_refusal_is_a_conflict_whose_message_is_the_reason() -> None:
    error = RedriveNotAllowedError("exec-1", "Execution redrivable period exceeded.")
    assert isinstance(error, ConflictError)
    assert str(error) == "Execution redrivable period exceeded."
    assert error.workflow_execution_id == "exec-1"
