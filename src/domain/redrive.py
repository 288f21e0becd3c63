"""When a finished execution may be redriven (seed 001, RedriveExecution conditions)."""

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, ConfigDict

from domain.execution import PipelineExecution, StepHead, WorkflowExecution
from domain.statuses import TERMINAL_STATUSES, ExecutionStatus

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
STATE_MACHINE_DELETING_REASON = "State machine is in DELETING status."
STARTED_BEFORE_REDRIVE_REASON = "Execution was started before the launch of RedriveExecution."
# wfx's own: seed 001 has no permanent delete
BEING_DELETED_REASON = "Execution is being deleted and cannot be redriven."

# Step Functions launched RedriveExecution on 15 November 2023: an execution started before that
# cannot be redriven (seed 001), such as a run the V1 migration brought in.
REDRIVE_LAUNCH_DATE = datetime(2023, 11, 15, tzinfo=UTC)
# DescribeStateMachine's status of a state machine being deleted (the other is ACTIVE).
DELETING = "DELETING"

# DescribeExecution's redriveStatus values (seed 001); REDRIVABLE_BY_MAP_RUN is Step Functions'
# alone, and only ever read from it.
REDRIVABLE = "REDRIVABLE"
NOT_REDRIVABLE = "NOT_REDRIVABLE"
# The orchestrator whose runs carry no redriveStatus of their own: theirs is derived on read.
LOCAL_ORCHESTRATOR = "local"
STEP_FUNCTIONS_ORCHESTRATOR = "stepfunctions"


def redrive_refusal(
    execution: WorkflowExecution,
    now: datetime,
    history_event_count: int,
    state_machine_status: str | None = None,
) -> str | None:
    """Seed 001's reason the execution cannot be redriven at `now`, or None when it can.

    A run that is not terminal (NEW, RUNNING, PENDING_REDRIVE) gets the RUNNING reason: seed 001
    names no other reason for an open run, and to the caller each of them is still running.
    `state_machine_status` is DescribeStateMachine's status of the run's state machine, when the
    caller asked (a redrive on Step Functions): a state machine being deleted refuses first.
    """
    if state_machine_status == DELETING:
        return STATE_MACHINE_DELETING_REASON
    if execution.is_being_deleted:
        return BEING_DELETED_REASON
    if execution.status is ExecutionStatus.SUCCEEDED:
        return SUCCEEDED_REASON
    if not execution.is_terminal:
        return RUNNING_REASON
    if execution.execution_start_date < REDRIVE_LAUNCH_DATE:
        return STARTED_BEFORE_REDRIVE_REASON
    stopped = execution.execution_stop_date
    if stopped is not None and now - stopped > REDRIVABLE_PERIOD:
        return PERIOD_EXCEEDED_REASON
    if now - execution.execution_start_date > MAX_EXECUTION_TIME:
        return MAX_TIME_EXCEEDED_REASON
    if history_event_count >= MAX_HISTORY_EVENTS:
        return HISTORY_LIMIT_REASON
    return None


class RedriveStatus(BaseModel):
    """redriveStatus and redriveStatusReason as DescribeExecution would give them."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    status: str
    reason: str | None = None


def redrive_status(
    execution: WorkflowExecution,
    now: datetime,
    history_event_count: int,
    state_machine_status: str | None = None,
) -> RedriveStatus:
    """What RedriveExecution would answer at `now`: REDRIVABLE, or NOT_REDRIVABLE with seed
    001's reason. The one rule behind both a refused redrive and the status a read shows.

    `history_event_count` is the caller's to know, and matters only once the run has 24,999
    events. On Step Functions RedriveExecution pages the real history. For a local run a read
    passes `local_history_event_count` of the step rows it already holds (GetExecution reads
    them only for a run that would otherwise be REDRIVABLE); a list page passes 0 rather than
    read every row's steps: a local history is two events per step, so only a run of 12,500
    steps or more could reach the limit, and its own details and redrive still say so.
    """
    reason = redrive_refusal(execution, now, history_event_count, state_machine_status)
    return RedriveStatus(status=REDRIVABLE if reason is None else NOT_REDRIVABLE, reason=reason)


def with_derived_redrive_status(
    execution: WorkflowExecution, now: datetime, history_event_count: int
) -> WorkflowExecution:
    """A local run with its redriveStatus derived by `redrive_status`; any other run as stored,
    since its orchestrator's DescribeExecution is what says whether it can be redriven."""
    if execution.orchestrator != LOCAL_ORCHESTRATOR:
        return execution
    # called for every row of a list page: the reason alone, no RedriveStatus built per row
    reason = redrive_refusal(execution, now, history_event_count)
    status = REDRIVABLE if reason is None else NOT_REDRIVABLE
    if execution.redrive_status == status and execution.redrive_status_reason == reason:
        return execution
    return execution._replace(redrive_status=status, redrive_status_reason=reason)


def local_history_event_count(steps: Iterable[PipelineExecution | StepHead]) -> int:
    """The events of a local run's history (LocalRunner.history_page): one per step that
    started, one per step that ended."""
    return sum((step.start_date is not None) + (step.status in TERMINAL_STATUSES) for step in steps)
