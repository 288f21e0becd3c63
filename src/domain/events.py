"""The event log of a run (seed 003 EVENT_LOG): append-only, numbered 1, 2, 3... per run.

Each transition of the run aggregate (domain.run) is written with its events in one atomic write;
the functions here say which events a transition is, so the stores never decide it themselves.
A `NewEvent` has no number yet: the store gives it the next one as it writes it.
"""

from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AwareDatetime, Field

from domain.approvals import ApprovalRequest
from domain.attempts import TaskExecution
from domain.derived import aware, written_fields, written_record
from domain.errors import RUNNER_LOST_ERROR
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus, StepStatus

if TYPE_CHECKING:  # written by a run's moves only: a list, which reads events, imports no move
    from domain.run import RunChange, StepMove


class EventType(StrEnum):
    EXECUTION_LAUNCHED = "ExecutionLaunched"
    STEP_STARTED = "StepStarted"
    STEP_FINISHED = "StepFinished"
    ATTEMPT_STARTED = "AttemptStarted"
    ATTEMPT_FINISHED = "AttemptFinished"
    ATTEMPT_RETRIED = "AttemptRetried"
    SUB_PROCESS_REGISTERED = "SubProcessRegistered"
    ABORT_REQUESTED = "AbortRequested"
    EXECUTION_ABORTED = "ExecutionAborted"
    EXECUTION_REDRIVEN = "ExecutionRedriven"
    EXECUTION_RESUMED = "ExecutionResumed"
    EXECUTION_COMPLETED = "ExecutionCompleted"
    RUNNER_LOST = "RunnerLost"
    EXECUTION_STATUS_CHANGED = "ExecutionStatusChanged"
    APPROVAL_REQUESTED = "ApprovalRequested"
    APPROVAL_DECIDED = "ApprovalDecided"  # approved, rejected, timed out or cancelled: `status`
    # Appended through the unit of work alone, with no transition of its own (tests, benches)
    NOTE = "Note"


@written_record
class NewEvent:
    """An event about to be appended: what happened, when, and to what. Built by the domain's
    transitions from their valid values (domain.derived.written_record), read only by the
    stores' item builders."""

    workflow_execution_id: str
    event_type: EventType
    occurred_at: AwareDatetime
    pipeline_execution_id: str | None = None
    attempt: int | None = None
    status: str | None = None
    error: str | None = None
    cause: str | None = None
    trigger: str | None = None
    redrive_count: int | None = None
    sub_executions: int | None = None
    logs: int | None = None
    approval_id: str | None = None
    decided_by: str | None = None

    def numbered(self, sequence_number: int) -> "ExecutionEvent":
        # Its fields are this valid event's, so only the number is checked.
        if sequence_number < 1:
            raise ValueError(f"sequence_number: {sequence_number} is below 1")
        values = written_fields(self)  # an ExecutionEvent's own number is replaced
        values["sequence_number"] = sequence_number
        return ExecutionEvent(**values)


@written_record
class ExecutionEvent(NewEvent):
    """An event as stored: its number is one past the run's previous event's, never reused.
    Read back from a row, it is validated by its annotations (adapters.event_records)."""

    sequence_number: Annotated[int, Field(ge=1)]


# -- which events a transition is ----------------------------------------------------------------


# An event's status and trigger are its enums' values as text: str() of a StrEnum member, which
# is its value, costs a fifth of `.value` (a Python-level property in enum.py, ~20 a warm run).


def launch_events(execution: WorkflowExecution) -> tuple[NewEvent, ...]:
    return (
        NewEvent(  # the valid launched row's fields
            workflow_execution_id=execution.workflow_execution_id,
            event_type=EventType.EXECUTION_LAUNCHED,
            occurred_at=execution.execution_start_date,
            status=str(execution.status),
            trigger=str(execution.trigger_type),
        ),
    )


def move_events(move: "StepMove") -> tuple[NewEvent, ...]:
    """A step move: its attempt's close, then its own transition, then the attempt it opens."""
    at = _move_moment(move)
    run_id, step_id = move.workflow_execution_id, move.pipeline_execution_id
    events: list[NewEvent] = []
    if move.close_attempt is not None:
        events.append(_attempt_finished_event(move, run_id, step_id, at))
    if move.status is not None:
        events.append(_step_event(move, run_id, step_id, at))
    opened = move.open_attempt
    if opened is not None:
        events.append(_attempt_opened_event(move, opened, run_id, step_id))
    return tuple(events)


def _move_moment(move: "StepMove") -> datetime:
    # the decision's own moment: the domain has no clock, so a move says when it happened
    at = move.stop_date or move.start_date
    if at is None and move.open_attempt is not None:
        at = move.open_attempt.start_date
    if at is None:
        raise ValueError(
            f"step {move.pipeline_execution_id}: a move with no date of its own has no moment"
        )
    # the move's dates are a clock's (a move is not validated): their one rule is checked here
    aware(at, "occurred_at")
    return at


# A move's events are built from valid values (domain.derived.written_record): every field is an
# id, date, number or enum value of the move, its valid attempt or the enums here. Each event is
# built with its fields named: a helper taking them as keywords would pack them into a dict twice
# more per event, a third of what the event costs (12 a warm run).


def _attempt_finished_event(move: "StepMove", run_id: str, step_id: str, at: datetime) -> NewEvent:
    closed = move.close_status or move.status
    return NewEvent(
        workflow_execution_id=run_id,
        pipeline_execution_id=step_id,
        event_type=EventType.ATTEMPT_FINISHED,
        occurred_at=at,
        attempt=move.close_attempt,
        status=str(closed) if closed else None,
        error=None if closed is StepStatus.SUCCEEDED else move.error,
    )


def _step_event(move: "StepMove", run_id: str, step_id: str, at: datetime) -> NewEvent:
    """The step's own transition: started, or finished with the move's status."""
    if move.status is StepStatus.RUNNING:
        return NewEvent(
            workflow_execution_id=run_id,
            pipeline_execution_id=step_id,
            event_type=EventType.STEP_STARTED,
            occurred_at=at,
            attempt=move.open_attempt.attempt if move.open_attempt else None,
            status=str(move.status),
        )
    return NewEvent(
        workflow_execution_id=run_id,
        pipeline_execution_id=step_id,
        event_type=EventType.STEP_FINISHED,
        occurred_at=at,
        attempt=move.close_attempt,
        status=str(move.status),
        error=move.error,
    )


def _attempt_opened_event(
    move: "StepMove", opened: TaskExecution, run_id: str, step_id: str
) -> NewEvent:
    return NewEvent(
        workflow_execution_id=run_id,
        pipeline_execution_id=step_id,
        # a move without a status of its own retries the step: its attempt is a retry
        event_type=EventType.ATTEMPT_RETRIED if move.status is None else EventType.ATTEMPT_STARTED,
        occurred_at=opened.start_date,
        attempt=opened.attempt,
        status=str(opened.status),
        trigger=str(opened.trigger),
    )


def change_events(change: "RunChange") -> tuple[NewEvent, ...]:
    """A main-row change: an abort request, a status change; none for the rest (a lease renewed,
    a sync check stamped, the orchestrator's reference kept), which are not transitions."""
    before, after = change.before, change.after
    aborted = before.abort_requested_date is None and after.abort_requested_date is not None
    if not aborted and before.status is after.status:
        return ()  # no transition (a lease, a reference, a stamp): no moment to find for one
    at = change.at or _moment_of(after)
    events: list[NewEvent] = []

    # Built from the valid main row's fields (domain.derived.written_record).
    def event(kind: EventType, **fields: Any) -> NewEvent:
        values: dict[str, Any] = {
            "workflow_execution_id": after.workflow_execution_id,
            "event_type": kind,
            "occurred_at": at,
            "status": str(after.status),
            **fields,
        }
        return NewEvent(**values)

    if aborted:
        events.append(
            event(
                EventType.ABORT_REQUESTED,
                occurred_at=after.abort_requested_date,
                cause=after.abort_cause,
            )
        )
    if before.status is not after.status:
        events.append(_status_event(before, after, event))
    return tuple(events)


def _moment_of(after: WorkflowExecution) -> datetime:
    """When a change happened, by the dates it stamps (a change carries no clock of its own)."""
    for moment in (
        after.execution_stop_date,
        after.redrive_date,
        after.abort_requested_date,
        after.last_sfn_sync_check_date,
    ):
        if moment is not None:
            return moment
    return after.execution_start_date


def _status_event(
    before: WorkflowExecution, after: WorkflowExecution, event: Callable[..., NewEvent]
) -> NewEvent:
    if after.status is ExecutionStatus.PENDING_REDRIVE:
        return event(EventType.EXECUTION_REDRIVEN, redrive_count=after.redrive_count)
    if before.status is ExecutionStatus.PENDING_REDRIVE and not after.is_terminal:
        return event(EventType.EXECUTION_RESUMED, redrive_count=after.redrive_count)
    if not after.is_terminal:
        return event(EventType.EXECUTION_STATUS_CHANGED)
    ended = {"error": after.execution_error, "cause": after.execution_cause}
    if after.status is ExecutionStatus.ABORTED:
        return event(EventType.EXECUTION_ABORTED, **ended)
    if (after.execution_error or "").startswith(RUNNER_LOST_ERROR):
        return event(EventType.RUNNER_LOST, **ended)
    return event(EventType.EXECUTION_COMPLETED, **ended)


def registration_events(
    workflow_execution_id: str,
    pipeline_execution_id: str,
    at: AwareDatetime,
    sub_executions: int,
    logs: int,
) -> tuple[NewEvent, ...]:
    """A registration that added something: how many of each the step now holds."""
    return (
        NewEvent(
            workflow_execution_id=workflow_execution_id,
            pipeline_execution_id=pipeline_execution_id,
            event_type=EventType.SUB_PROCESS_REGISTERED,
            occurred_at=aware(at, "occurred_at"),  # a clock's reading: its one rule
            sub_executions=sub_executions,
            logs=logs,
        ),
    )


def approval_events(request: ApprovalRequest) -> tuple[NewEvent, ...]:
    """A request opened (PENDING) or closed: the gate's transition, with who decided and why."""
    pending = request.is_pending
    at = request.requested_at if pending or request.decided_at is None else request.decided_at
    return (
        NewEvent(
            workflow_execution_id=request.workflow_execution_id,
            pipeline_execution_id=request.pipeline_execution_id,
            attempt=request.attempt,
            event_type=EventType.APPROVAL_REQUESTED if pending else EventType.APPROVAL_DECIDED,
            occurred_at=at,
            status=request.status.value,
            approval_id=request.approval_id,
            decided_by=request.decided_by,
            cause=None if pending else request.reason,
        ),
    )
