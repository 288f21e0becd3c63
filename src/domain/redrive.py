"""When a finished execution may be redriven (seed 001, RedriveExecution conditions)."""

from __future__ import annotations

from datetime import datetime, timedelta

from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus

REDRIVABLE_PERIOD = timedelta(days=14)
# Step Functions' one-year maximum open time, counted as 365 days.
MAX_EXECUTION_TIME = timedelta(days=365)
# A redrive appends ExecutionRedriven and at least one more event to a history capped at 25,000.
MAX_HISTORY_EVENTS = 24_999

SUCCEEDED_REASON = "Execution is SUCCEEDED and cannot be redriven."
RUNNING_REASON = "Execution is RUNNING and cannot be redriven."
PERIOD_EXCEEDED_REASON = "Execution redrivable period exceeded."
MAX_TIME_EXCEEDED_REASON = "Execution has exceeded the max execution time."
HISTORY_LIMIT_REASON = "Execution history event limit exceeded."


def redrive_refusal(
    execution: WorkflowExecution, now: datetime, history_event_count: int
) -> str | None:
    """Seed 001's reason the execution cannot be redriven at `now`, or None when it can.

    A run that is not terminal (NEW, RUNNING, PENDING_REDRIVE) gets the RUNNING reason: seed 001
    names no other reason for an open run, and to the caller each of them is still running.
    """
    if execution.status is ExecutionStatus.SUCCEEDED:
        return SUCCEEDED_REASON
    if not execution.is_terminal:
        return RUNNING_REASON
    stopped = execution.execution_stop_date
    if stopped is not None and now - stopped > REDRIVABLE_PERIOD:
        return PERIOD_EXCEEDED_REASON
    if now - execution.execution_start_date > MAX_EXECUTION_TIME:
        return MAX_TIME_EXCEEDED_REASON
    if history_event_count >= MAX_HISTORY_EVENTS:
        return HISTORY_LIMIT_REASON
    return None
