"""Opening and closing a step's task execution attempts (seed 003), shared by the use cases."""

from __future__ import annotations

from datetime import datetime

from application.ports import ExecutionStore
from domain.attempts import AttemptTrigger, TaskExecution, next_attempt_number
from domain.statuses import StepStatus

# Each lost race means another writer took a number; this many in a row means something is wrong.
_MAX_NUMBER_RACES = 20


def running_attempt(
    workflow_execution_id: str,
    pipeline_execution_id: str,
    number: int,
    at: datetime,
    trigger: AttemptTrigger | None = None,
) -> TaskExecution:
    """Attempt `number` of a step, opened at `at`; without a trigger, the first attempt is a
    `start` and a later one a `redrive` (a redriven step is reset to NEW and started again)."""
    return TaskExecution(
        pipeline_execution_id=pipeline_execution_id,
        workflow_execution_id=workflow_execution_id,
        attempt=number,
        status=StepStatus.RUNNING,
        start_date=at,
        trigger=trigger or (AttemptTrigger.START if number == 1 else AttemptTrigger.REDRIVE),
    )


def open_next_attempt(
    store: ExecutionStore,
    workflow_execution_id: str,
    pipeline_execution_id: str,
    at: datetime,
    trigger: AttemptTrigger | None = None,
    *,
    first_is_taken: bool = False,
) -> TaskExecution:
    """Add the step's next attempt, one past the highest stored; never overwrites one.

    The trigger defaults as in running_attempt. `first_is_taken`: the caller already saw attempt
    1 refused, so the stored attempts are read before any write.
    """
    taken = first_is_taken
    number = 1  # most starts are a step's first: try that number before reading any
    for _ in range(_MAX_NUMBER_RACES):
        if taken:
            # The number is taken (a redrive or retry, or a race): read, then take the next one.
            number = next_attempt_number(store.list_attempts([pipeline_execution_id]))
        attempt = running_attempt(workflow_execution_id, pipeline_execution_id, number, at, trigger)
        if store.add_attempt(attempt):
            return attempt
        taken = True
    raise RuntimeError(f"{pipeline_execution_id}: no free attempt number after retries")


def close_latest_attempt(
    store: ExecutionStore,
    pipeline_execution_id: str,
    status: StepStatus,
    at: datetime,
    error: str | None,
    *,
    first_is_closed: bool = False,
) -> bool:
    """Close the step's latest RUNNING attempt; False when it has none open.

    `first_is_closed`: the caller already saw attempt 1 refused, so the attempts are read first.
    """
    # Most steps run once: close attempt 1 without a read; the write is conditional on RUNNING.
    if not first_is_closed and store.finish_attempt(pipeline_execution_id, 1, status, at, error):
        return True
    running = [a for a in store.list_attempts([pipeline_execution_id]) if a.is_running]
    if not running:
        return False
    # False when another writer closed it first.
    return store.finish_attempt(pipeline_execution_id, running[-1].attempt, status, at, error)
