"""The run lifecycle: one aggregate, a run with its steps and attempts (DESIGN §3a).

Every use case that moves a run or a step asks `Run` what the next state is; the answer is a
change together with the guard it was decided under (what the stored rows must still be), and
the store writes it in one conditional write or refuses. A refused write means somebody else
moved first: the caller reads the run again and asks again, so two writers never both win.

The rules held here, once:
- Abort is a state first. `request_abort` records the request on the main row; from then on no
  step starts, none finishes SUCCEEDED (whatever its command said: its child was killed), no
  completion writes SUCCEEDED, and whoever ends the run ends it ABORTED.
- Finishing is a state too. `begin_finishing` records, before a completion imports the run's
  results into its output asset, that the run is ending SUCCEEDED: written only while no abort
  was requested, and from then on no abort request is written (each write guarded on the other).
- A local run holds a lease its runner renews; a run whose lease ran out has lost its runner and
  ends FAILED (`wfx.RunnerLost`) with its open steps, so that it can be redriven.
- Fencing: attempt N's result is refused once attempt N is closed (attempt N+1 exists, or the
  run was ended without it).
"""

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from domain.approvals import (
    HANDOVER_OWNER_PREFIX,
    ApprovalRequest,
    handover_owner,
    parked_approval,
    parked_owner,
)
from domain.attempts import AttemptTrigger, TaskExecution, next_attempt_number
from domain.derived import aware, decided_value, derived
from domain.errors import (
    RUNNER_LOST_ERROR,
    ConflictError,
    ExecutionStillRunningError,
    PipelineExecutionNotFoundError,
    RedriveNotAllowedError,
)
from domain.execution import (
    DELETING_OWNER_PREFIX,
    PipelineExecution,
    RunnerLease,
    WorkflowExecution,
    table_date,
)
from domain.redrive import BEING_DELETED_REASON
from domain.statuses import (
    OPEN_EXECUTION_STATUSES,
    TERMINAL_STATUSES,
    ExecutionStatus,
    StepStatus,
)

if TYPE_CHECKING:  # a list never builds a cost entry: its module is not imported for one
    from domain.costs import CostLedgerEntry

OPEN_STEP_STATUSES = frozenset({StepStatus.NEW, StepStatus.RUNNING})
_RERUN_STEP_STATUSES = frozenset({StepStatus.FAILED, StepStatus.ABORTED, StepStatus.TIMED_OUT})
# what a start and a retry expect of the step (made once: a frozenset a move costs its set too)
_NEW_ONLY = frozenset({StepStatus.NEW})
_RUNNING_ONLY = frozenset({StepStatus.RUNNING})

ABORT_ERROR = "wfx.Aborted"
DEFAULT_ABORT_CAUSE = "Aborted on request"


def failure_message(error: str | None, cause: str | None) -> str | None:
    """An orchestrator's error and cause as one executionError text."""
    parts = [part for part in (error, cause) if part]
    return ": ".join(parts) or None


class RunIsOverError(ConflictError):
    """The run has ended: nothing of it starts, retries or runs again."""


class RunIsStoppingError(ConflictError):
    """An abort was requested: the run only stops from now on."""


class RunIsFinishingError(ConflictError):
    """Its completion has begun importing the run's results: the run only ends from now on."""


class AttemptFencedError(ConflictError):
    """A result for an attempt that is no longer the running one (a later attempt exists, or the
    run was ended without it): it is refused, so an old copy of a step never overwrites a new."""


@decided_value
class RunGuard:
    """What the stored main row must still be for a change to be written.

    `not_stopping`: no abort requested; `not_finishing`: no completion has begun finishing.
    `lease_as_read`: the lease must be the one the change was decided on (absent if it was).
    `lease_takeable`: (owner, now) - the lease must be absent, that owner's, expired by now, or
    handed over (its owner starts with `handover_prefix`: a decided gate's run, for any taker).
    """

    statuses: frozenset[ExecutionStatus] = OPEN_EXECUTION_STATUSES
    not_stopping: bool = False
    not_finishing: bool = False
    lease_held_by: str | None = None
    lease_as_read: bool = False
    lease_takeable: tuple[str, datetime] | None = None
    handover_prefix: str = HANDOVER_OWNER_PREFIX


@decided_value
class RunChange:
    """The main row as read (`before`), as it is to be (`after`), and the guard: the store
    writes only what differs between the two, so concurrent writes to other attributes stay."""

    before: WorkflowExecution
    after: WorkflowExecution
    guard: RunGuard
    # The change's own moment, for its event: the main row keeps VAMS's whole seconds, so a run's
    # end read from it would be stamped before the ends of the steps it closed. None: the row's.
    at: datetime | None = None


@decided_value
class StepMove:
    """One step's transition and its attempt, written together, and what guards them.

    `status` None leaves the step as it is (a retry moves only its attempts). `while_open`: the
    run must be open with no abort requested. `close_attempt` must be stored RUNNING; it is
    closed with the move's status (or `close_status`), stop date and error. `cost_entries` are
    appended to the cost ledger in the same write (a closed attempt's duration), each id only
    once: an id already there refuses the whole move with CostEntryExistsError.
    """

    workflow_execution_id: str
    pipeline_execution_id: str
    status: StepStatus | None
    expected: frozenset[StepStatus]
    start_date: datetime | None = None
    stop_date: datetime | None = None
    error: str | None = None
    while_open: bool = False
    open_attempt: TaskExecution | None = None
    close_attempt: int | None = None
    close_status: StepStatus | None = None
    cost_entries: tuple["CostLedgerEntry", ...] = ()

    def carrying(self, cost_entries: tuple["CostLedgerEntry", ...]) -> "StepMove":
        """This move with `cost_entries` to write with it (what dataclasses.replace makes, at a
        quarter of its cost: replace walks the fields' descriptions on every call)."""
        return StepMove(
            workflow_execution_id=self.workflow_execution_id,
            pipeline_execution_id=self.pipeline_execution_id,
            status=self.status,
            expected=self.expected,
            start_date=self.start_date,
            stop_date=self.stop_date,
            error=self.error,
            while_open=self.while_open,
            open_attempt=self.open_attempt,
            close_attempt=self.close_attempt,
            close_status=self.close_status,
            cost_entries=cost_entries,
        )


@decided_value
class RunEnd:
    """A run's terminal write: its open steps closed first, then the main row."""

    steps: tuple[StepMove, ...]
    change: RunChange


# The guards most changes are decided under (a RunGuard is immutable: one serves them all).
_OPEN = RunGuard()
_NOT_STOPPING = RunGuard(not_stopping=True)  # from an abort request on, no SUCCEEDED or FAILED
_NOT_FINISHING = RunGuard(not_finishing=True)  # from a completion's finishing on, no abort
# A launch's own writes after the start: only while the run is as the launch left it.
_AS_LAUNCHED = RunGuard(statuses=frozenset({ExecutionStatus.RUNNING}))
_ENDED = frozenset(status for status in ExecutionStatus if status in TERMINAL_STATUSES)


def first_start(
    workflow_execution_id: str, pipeline_execution_id: str, at: datetime, attempt: int = 1
) -> StepMove:
    """What most step starts are - a fresh step taking attempt 1, or a redriven one the attempt
    its caller knows comes next - decided without a read; the guard makes it safe (an attempt
    of that number already stored refuses it), and a refusal sends the caller to
    `Run.start_step`."""
    return StepMove(
        workflow_execution_id,
        pipeline_execution_id,
        StepStatus.RUNNING,
        _NEW_ONLY,
        start_date=at,
        while_open=True,
        open_attempt=_attempt(workflow_execution_id, pipeline_execution_id, attempt, at, None),
    )


def plain_finish(
    workflow_execution_id: str,
    pipeline_execution_id: str,
    status: StepStatus,
    error: str | None,
    at: datetime,
    attempt: int | None,
    cost_entries: tuple["CostLedgerEntry", ...] = (),
    while_open: bool = True,
) -> StepMove:
    """A step's attempt ending as its runner says, on a run nobody is stopping: decided without a
    read, refused by the store if the run is being aborted or the attempt is no longer open.
    `cost_entries` go with it (the closed attempt's duration). The error is kept only where the
    step did not succeed. Run's own closings are made here too, `while_open` as they decide it."""
    return StepMove(
        workflow_execution_id,
        pipeline_execution_id,
        status,
        OPEN_STEP_STATUSES,
        stop_date=at,
        error=None if status is StepStatus.SUCCEEDED else error,
        while_open=while_open,
        close_attempt=attempt,
        cost_entries=cost_entries,
    )


class Run(BaseModel):
    """A run as read: its main row, its steps and their attempts (attempt ascending)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    execution: WorkflowExecution
    steps: tuple[PipelineExecution, ...] = ()
    attempts: tuple[TaskExecution, ...] = ()

    @property
    def workflow_execution_id(self) -> str:
        return self.execution.workflow_execution_id

    def step(self, pipeline_execution_id: str) -> PipelineExecution:
        for step in self.steps:
            if step.pipeline_execution_id == pipeline_execution_id:
                return step
        raise PipelineExecutionNotFoundError(pipeline_execution_id, self.workflow_execution_id)

    def attempts_of(self, pipeline_execution_id: str) -> list[TaskExecution]:
        return [a for a in self.attempts if a.pipeline_execution_id == pipeline_execution_id]

    def running_attempt(self, pipeline_execution_id: str) -> TaskExecution | None:
        running = [a for a in self.attempts_of(pipeline_execution_id) if a.is_running]
        return running[-1] if running else None

    def with_main_row(self, execution: WorkflowExecution) -> "Run":
        """The run with its main row as read again and its steps and attempts as they were
        known: a decision on it is guarded as any (a step moved meanwhile refuses its write)."""
        return derived(Run, execution=execution, steps=self.steps, attempts=self.attempts)

    def moved(self, move: StepMove) -> "Run":
        """The run as it is once `move` is written (what a write deciding more than one move
        decides the next on)."""
        return self.moved_all((move,))

    def moved_all(self, moves: Sequence[StepMove]) -> "Run":
        """The run once `moves` are written, in order: one pass over the steps and attempts
        whatever the moves' number (a run's end closes thousands of steps)."""
        # Derived unvalidated (domain.derived): the moves' dates made TableDates, their status
        # and error of the fields' types; the run from its valid parts.
        steps = list(self.steps)
        step_at = {step.pipeline_execution_id: i for i, step in enumerate(steps)}
        attempts = list(self.attempts)
        attempts_at: dict[tuple[str, int], list[int]] = {}
        for i, attempt in enumerate(attempts):
            attempts_at.setdefault((attempt.pipeline_execution_id, attempt.attempt), []).append(i)
        for move in moves:
            at = step_at.get(move.pipeline_execution_id)
            if at is not None and move.status:
                step = steps[at]
                steps[at] = step._replace(
                    status=move.status,
                    start_date=_table_date(move.start_date, step.start_date, "startDate"),
                    stop_date=_table_date(move.stop_date, step.stop_date, "stopDate"),
                    error=move.error,
                )
            closed_status = move.close_status or move.status
            if closed_status is not None and move.close_attempt is not None:
                for i in attempts_at.get((move.pipeline_execution_id, move.close_attempt), ()):
                    attempts[i] = _closed(attempts[i], closed_status, move)
            if move.open_attempt is not None:
                key = (move.pipeline_execution_id, move.open_attempt.attempt)
                attempts_at.setdefault(key, []).append(len(attempts))
                attempts.append(move.open_attempt)
        return derived(Run, execution=self.execution, steps=tuple(steps), attempts=tuple(attempts))

    @property
    def abort_message(self) -> str:
        cause = self.execution.abort_cause or DEFAULT_ABORT_CAUSE
        return failure_message(ABORT_ERROR, cause) or ABORT_ERROR

    # -- steps -----------------------------------------------------------------------------------

    def start_step(self, pipeline_execution_id: str, at: datetime) -> StepMove | None:
        """NEW -> RUNNING with the step's next attempt; None when it has started already (a
        callback delivered twice). Refused on an ended or stopping run."""
        step = self.step(pipeline_execution_id)
        if step.status is not StepStatus.NEW:
            return None
        self._refuse_unless_open(f"step {step.pipeline_id} may not start")
        # A redriven step, back at NEW, keeps its earlier attempts and takes the next number.
        number = next_attempt_number(self.attempts_of(pipeline_execution_id))
        return StepMove(
            self.workflow_execution_id,
            pipeline_execution_id,
            StepStatus.RUNNING,
            _NEW_ONLY,
            start_date=at,
            while_open=True,
            open_attempt=_attempt(
                self.workflow_execution_id, pipeline_execution_id, number, at, None
            ),
        )

    def finish_step(
        self,
        pipeline_execution_id: str,
        status: StepStatus,
        error: str | None,
        at: datetime,
        attempt: int | None = None,
    ) -> StepMove | None:
        """The step ends; None when it has ended already. On a run being aborted (or aborted)
        it ends ABORTED whatever it reported: a command whose child was killed exits 0 too.

        `attempt`, when the caller names the attempt that ran, fences: a result for an attempt
        that is no longer running is refused (AttemptFencedError).
        """
        step = self.step(pipeline_execution_id)
        if step.is_terminal:
            return None
        running = self.running_attempt(pipeline_execution_id)
        if attempt is not None and (running is None or running.attempt != attempt):
            raise AttemptFencedError(
                f"step {step.pipeline_id} attempt {attempt} is not the running attempt of "
                f"execution {self.workflow_execution_id}: its result is refused"
            )
        close = running.attempt if running is not None else None
        if self.execution.is_stopping or self.execution.status is ExecutionStatus.ABORTED:
            return self._closing(step, StepStatus.ABORTED, self.abort_message, at, close)
        if self.execution.is_terminal and status is StepStatus.SUCCEEDED:
            # The run was ended without this step (its runner was declared lost, say).
            ended = StepStatus(self.execution.status.value)
            message = f"execution {self.workflow_execution_id} ended {ended.value} first"
            return self._closing(step, ended, message, at, close)
        # while_open, on an open run: an abort requested after this read turns the write down,
        # and the caller, reading again, ends the step ABORTED
        return self._closing(
            step, status, error, at, close, while_open=not self.execution.is_terminal
        )

    def retry_step(
        self, pipeline_execution_id: str, error: str | None, at: datetime
    ) -> StepMove | None:
        """The running attempt closes FAILED and the next one opens, in one move; the step stays
        RUNNING. None when the step is not RUNNING (a retry never reopens a step). Refused on an
        ended or stopping run: nothing runs again once an abort was asked for."""
        step = self.step(pipeline_execution_id)
        if step.status is not StepStatus.RUNNING:
            return None
        self._refuse_unless_open(f"step {step.pipeline_id} may not run again")
        running = self.running_attempt(pipeline_execution_id)
        number = next_attempt_number(self.attempts_of(pipeline_execution_id))
        return StepMove(
            self.workflow_execution_id,
            pipeline_execution_id,
            None,
            _RUNNING_ONLY,
            stop_date=at,
            error=error or StepStatus.FAILED.value,
            while_open=True,
            open_attempt=_attempt(
                self.workflow_execution_id, pipeline_execution_id, number, at, AttemptTrigger.RETRY
            ),
            close_attempt=running.attempt if running is not None else None,
            close_status=StepStatus.FAILED,
        )

    # -- the run ---------------------------------------------------------------------------------

    def request_abort(self, at: datetime, cause: str) -> RunChange | None:
        """Record the abort request, the first thing an abort does; None when it is recorded
        already (the first request's cause stands). Refused on an ended run, and on one whose
        completion has begun finishing it (its results are going into its output asset)."""
        execution = self.execution
        if execution.is_terminal:
            raise RunIsOverError(
                f"execution {execution.workflow_execution_id} is {execution.status.value}"
            )
        if execution.abort_requested_date is not None:
            return None
        if execution.finishing_date is not None:
            raise RunIsFinishingError(
                f"execution {execution.workflow_execution_id} is finishing (its results have "
                f"been going into its output asset since {_moment(execution.finishing_date)}): "
                "it can no longer be aborted"
            )
        after = execution._evolve(abort_requested_date=at, abort_cause=cause or None)
        return RunChange(execution, after, _NOT_FINISHING)

    def begin_finishing(self, at: datetime) -> RunChange | None:
        """The completion's mark before it imports the run's results into the output asset:
        written only while no abort is requested, and none is written after it. None when the
        run is marked already (a completion tried again goes on). Refused on a run being
        aborted or ended: its results are not imported then."""
        self._refuse_unless_open("its results may not be imported")
        if self.execution.finishing_date is not None:
            return None
        after = self.execution._evolve(finishing_date=at)
        return RunChange(self.execution, after, _NOT_STOPPING)

    def abort(self, at: datetime, log: str, log_object_key: str | None) -> RunEnd | None:
        """The end of an abort: every open step ABORTED, then the run; None once it has ended.
        The run keeps no executionError (seed 000: only a real failure's error and cause): why
        it was aborted stays in abortCause; each step closed says it in its own error."""
        return self._end(
            ExecutionStatus.ABORTED,
            at,
            None,
            log,
            log_object_key,
            self._open_steps,
            step_error=self.abort_message,
        )

    def complete(
        self,
        status: ExecutionStatus,
        at: datetime,
        error: str | None,
        log: str,
        log_object_key: str | None,
    ) -> RunEnd | None:
        """The end-state callback: the run ends with its runner's status, ABORTED instead when
        an abort was requested; None once it has ended. A run that did not succeed ends a step
        still RUNNING with it (the runner could not report that step's end)."""
        if self.execution.is_stopping:
            return self.abort(at, log, log_object_key)
        if status is ExecutionStatus.ABORTED:
            # stopped by its runner (an interrupt): nothing of it is left open either
            return self._end(
                status,
                at,
                error,
                log,
                log_object_key,
                self._open_steps,
                step_error=error or self.abort_message,
            )
        if status is not ExecutionStatus.SUCCEEDED:
            error = error or next((s.error for s in self._chain() if s.error), None)
            # A runner whose store kept failing records the run FAILED with its step's end never
            # written: without closing it, the terminal run kept that step and attempt RUNNING.
            return self._end(status, at, error, log, log_object_key, self._running_steps)
        # From the abort request on, no completion may write SUCCEEDED.
        return self._end(status, at, error, log, log_object_key, lambda: (), guard=_NOT_STOPPING)

    def fail(
        self,
        at: datetime,
        error: str | None,
        log: str,
        log_object_key: str | None,
        cause: str | None = None,
    ) -> RunEnd | None:
        """The error handler: steps in flight FAILED (those never started stay NEW), then the
        run; ABORTED instead on a run being aborted (its task failed because its child was
        stopped). `error` is the whole message, `cause` its cause alone when one was given."""
        if self.execution.is_stopping:
            return self.abort(at, log, log_object_key)
        return self._end(
            ExecutionStatus.FAILED,
            at,
            error,
            log,
            log_object_key,
            self._running_steps,
            cause,
            guard=_NOT_STOPPING,
        )

    def end_as_described(
        self,
        status: ExecutionStatus,
        stop_date: datetime,
        error: str | None,
        log: str,
        log_object_key: str | None,
        checked_at: datetime,
        cause: str | None = None,
    ) -> RunEnd | None:
        """A terminal status the orchestrator reports out of band (a run stopped or timed out
        directly in Step Functions): open steps end with it, then the run, stamped as checked.
        On a run being aborted that status is the abort's: it ends ABORTED."""
        if self.execution.is_stopping:
            end = self.abort(stop_date, log, log_object_key)
        else:
            end = self._end(status, stop_date, error, log, log_object_key, self._open_steps, cause)
        if end is None:
            return None
        after = end.change.after._evolve(last_sfn_sync_check_date=checked_at)
        # Decided on the row as read: another writer in between (a callback, an abort) wins.
        guard = RunGuard(
            statuses=frozenset({self.execution.status}),
            not_stopping=not self.execution.is_stopping,
        )
        change = RunChange(self.execution, after, guard, end.change.at)
        return RunEnd(end.steps, change)

    def start_failed(self, at: datetime, error: str) -> RunEnd | None:
        """The orchestrator would not start the run the launch just wrote: it ends FAILED, with
        the steps the launch started (a claimed launch starts its first) and their attempts;
        None when it has ended already."""
        return self._end(
            ExecutionStatus.FAILED, at, error, "", None, self._running_steps, guard=_AS_LAUNCHED
        )

    def started_as(self, reference: str, log_group_arn: str = "") -> RunChange:
        """The orchestrator's reference to the run it started (an execution ARN), kept once,
        with the log group it logs the run to ("" when none is configured)."""
        after = self.execution._evolve(
            execution_arn=reference, execution_log_group_arn=log_group_arn or None
        )
        return RunChange(self.execution, after, _AS_LAUNCHED)

    def checked(
        self, at: datetime, redrive_status: str | None, redrive_status_reason: str | None
    ) -> RunChange:
        """An open run its orchestrator still runs, as of `at`: re-stamped, with the redrive
        status the orchestrator says; written only while the status is the one read."""
        after = self.execution._evolve(
            last_sfn_sync_check_date=at,
            redrive_status=redrive_status,
            redrive_status_reason=redrive_status_reason,
        )
        return RunChange(
            self.execution, after, RunGuard(statuses=frozenset({self.execution.status}))
        )

    def lease_expired(self, now: datetime, grace: timedelta) -> bool:
        """An open local run whose runner stopped renewing its lease; one whose runner never
        took a lease is lost once `grace` has passed since it was started or redriven."""
        execution = self.execution
        if execution.is_terminal or execution.orchestrator != "local":
            return False
        lease = execution.runner_lease
        if lease is not None and parked_approval(lease.owner) is not None:
            return False  # no runner to lose: it waits for a decision (or its gate's timeout)
        if lease is not None:
            return lease.expires_date < now
        started = max(
            d for d in (execution.execution_start_date, execution.redrive_date) if d is not None
        )
        return started + grace < now

    def lose_runner(
        self, at: datetime, grace: timedelta, log: str, log_object_key: str | None
    ) -> RunEnd | None:
        """The run's runner is gone (its lease expired): open steps and the run end FAILED with
        `wfx.RunnerLost`, so that it can be redriven; ABORTED when an abort was requested.
        None when the lease is still good or the run has ended."""
        if not self.lease_expired(at, grace):
            return None
        if self.execution.is_stopping:
            end = self.abort(at, log, log_object_key)
        else:
            end = self._end(
                ExecutionStatus.FAILED,
                at,
                self.runner_lost_message(grace),
                log,
                log_object_key,
                self._open_steps,
                cause=self.runner_lost_cause(grace),
            )
        # Decided on this lease: a renewal in between means the runner is alive after all.
        return None if end is None else _with_guard(end, RunGuard(lease_as_read=True))

    def runner_lost_message(self, grace: timedelta) -> str:
        return f"{RUNNER_LOST_ERROR}: {self.runner_lost_cause(grace)}"

    def runner_lost_cause(self, grace: timedelta) -> str:
        lease = self.execution.runner_lease
        if lease is None:
            cause = f"no local runner took the run within {grace.total_seconds():g} s of its start"
        else:
            cause = (
                f"the local runner {lease.owner} last renewed its lease at "
                f"{_moment(lease.renewed_date)}; it expired at {_moment(lease.expires_date)}"
            )
        return cause

    def take_lease(self, owner: str, at: datetime, duration: timedelta) -> RunChange:
        """A runner claims the run: written unless another runner holds a live lease. Refused
        on an ended run; a run being aborted is taken all the same (its runner ends it)."""
        if self.execution.is_terminal:
            raise RunIsOverError(
                f"execution {self.workflow_execution_id} is {self.execution.status.value}: "
                "it may not be run"
            )
        lease = _lease(owner, at, duration)
        after = self.execution._replace(runner_lease=lease)  # a valid lease
        return RunChange(self.execution, after, RunGuard(lease_takeable=(owner, at)))

    def renew_lease(self, owner: str, at: datetime, duration: timedelta) -> RunChange:
        """The runner's renewal: written only while the run is open and the lease still its."""
        lease = _lease(owner, at, duration)
        after = self.execution._replace(runner_lease=lease)  # a valid lease
        return RunChange(self.execution, after, RunGuard(lease_held_by=owner))

    def park(self, owner: str, approval: ApprovalRequest, at: datetime) -> RunChange:
        """The runner leaves the run waiting at an approval gate, with nothing held (no thread,
        no process): its lease names the gate until the decision, or the gate's timeout, hands
        the run to a new runner. Written only while the lease is still this runner's."""
        self._refuse_unless_open("it may not wait for an approval")
        lease = RunnerLease(
            owner=parked_owner(approval.approval_id),
            renewed_date=at,
            expires_date=max(approval.expires_at, at),
        )
        after = self.execution._replace(runner_lease=lease)  # a valid lease
        return RunChange(self.execution, after, RunGuard(lease_held_by=owner))

    def parked_at(self) -> str | None:
        """The approval the run waits at, parked; None when a runner holds it (or nobody)."""
        lease = self.execution.runner_lease
        return None if lease is None else parked_approval(lease.owner)

    def hand_over(self, approval_id: str, at: datetime, grace: timedelta) -> RunChange | None:
        """The run parked at this gate, for whichever runner takes it next (at once): a lease
        that runs out, the run lost, when no runner has taken it within `grace`. None when the
        run is not parked at it (its runner never left, or somebody handed it over first)."""
        if self.execution.is_terminal or self.parked_at() != approval_id:
            return None
        lease = RunnerLease(
            owner=handover_owner(approval_id), renewed_date=at, expires_date=at + grace
        )
        after = self.execution._replace(runner_lease=lease)  # a valid lease
        return RunChange(self.execution, after, RunGuard(lease_as_read=True))

    def redrive(
        self, at: datetime, lease: RunnerLease | None = None
    ) -> tuple[RunChange, tuple[PipelineExecution, ...]]:
        """PENDING_REDRIVE with the next redrive count and date, the abort request and the
        finishing mark cleared, the lease cleared (or `lease`: the runner of this process that
        runs it again claims it in the same write, as a launch does); the steps that did not
        succeed back to NEW (their attempts are kept). The caller has checked seed 001's
        conditions (domain.redrive); a run being deleted is refused here, and the write holds
        only while no delete has begun (the lease as read)."""
        execution = self.execution
        if execution.is_being_deleted:
            raise RedriveNotAllowedError(self.workflow_execution_id, BEING_DELETED_REASON)
        pending = execution._evolve(
            status=ExecutionStatus.PENDING_REDRIVE,
            execution_stop_date=None,
            execution_error=None,
            execution_cause=None,
            redrive_count=execution.redrive_count + 1,
            redrive_date=at,
            abort_requested_date=None,
            abort_cause=None,
            finishing_date=None,
            runner_lease=lease,
        )
        reset = tuple(
            step._evolve(status=StepStatus.NEW, start_date=None, stop_date=None, error=None)
            for step in self.steps
            if step.status in _RERUN_STEP_STATUSES
        )
        guard = RunGuard(statuses=frozenset({execution.status}), lease_as_read=True)
        return RunChange(execution, pending, guard), reset

    def begin_delete(self, at: datetime) -> RunChange | None:
        """A permanent delete's first write, before any of the run goes: the ended run's lease
        names the delete and when it began, so no redrive or rerun takes the run up from then
        on, nor after a delete cut short (delete it again). Written only while the run is still
        ended and its lease as read; None when a delete has begun already. An open run is
        refused."""
        execution = self.execution
        if not execution.is_terminal:
            raise ExecutionStillRunningError(self.workflow_execution_id, execution.status.value)
        if execution.is_being_deleted:
            return None
        owner = DELETING_OWNER_PREFIX + at.isoformat()
        mark = RunnerLease(owner=owner, renewed_date=at, expires_date=at)
        after = execution._replace(runner_lease=mark)  # a valid lease
        guard = RunGuard(statuses=_ENDED, lease_as_read=True)
        return RunChange(execution, after, guard)

    # -- helpers ---------------------------------------------------------------------------------

    def _refuse_unless_open(self, what: str) -> None:
        execution = self.execution
        if execution.is_terminal:
            raise RunIsOverError(
                f"execution {execution.workflow_execution_id} is {execution.status.value}: {what}"
            )
        if execution.is_stopping:
            raise RunIsStoppingError(
                f"execution {execution.workflow_execution_id} is being aborted: {what}"
            )

    def _running_steps(self) -> Iterable[PipelineExecution]:
        return (s for s in self.steps if s.status is StepStatus.RUNNING)

    def _open_steps(self) -> Iterable[PipelineExecution]:
        return (s for s in self.steps if s.status in OPEN_STEP_STATUSES)

    def _chain(self) -> Sequence[PipelineExecution]:
        return sorted(self.steps, key=lambda s: s.step_index)

    def _closing(
        self,
        step: PipelineExecution,
        status: StepStatus,
        error: str | None,
        at: datetime,
        attempt: int | None,
        while_open: bool = False,
    ) -> StepMove:
        run_id, step_id = self.workflow_execution_id, step.pipeline_execution_id
        return plain_finish(run_id, step_id, status, error, at, attempt, while_open=while_open)

    def _end(
        self,
        status: ExecutionStatus,
        at: datetime,
        error: str | None,
        log: str,
        log_object_key: str | None,
        closing: Callable[[], Iterable[PipelineExecution]],
        cause: str | None = None,
        step_error: str | None = None,
        guard: RunGuard = _OPEN,
    ) -> RunEnd | None:
        """`error` (and `cause`) go on the run and on the steps it closes; `step_error`, when
        given, on those steps instead; the main row written under `guard`."""
        execution = self.execution
        if execution.is_terminal:
            return None  # seed 000: a terminal row is never changed again
        moves = []
        closed = tuple(closing())
        if closed:  # a success closes none: no attempts to look through
            step_status = StepStatus(status)  # the member of the same value
            # each step's running attempt (the last, as running_attempt) in one pass: a run's
            # end closes thousands of steps, and a look through every attempt for each was
            # quadratic
            running_of = {a.pipeline_execution_id: a for a in self.attempts if a.is_running}
            for step in closed:
                # a NEW step never opened an attempt; a RUNNING one's ends with it (seed 003)
                running = running_of.get(step.pipeline_execution_id)
                attempt = (
                    None if running is None or step.status is StepStatus.NEW else running.attempt
                )
                moves.append(self._closing(step, step_status, step_error or error, at, attempt))
        after = execution.complete(
            status, at=at, log=log, error=error, log_object_key=log_object_key, cause=cause
        )
        return RunEnd(tuple(moves), RunChange(execution, after, guard, at))


def as_its_runner_knows(
    execution: WorkflowExecution,
    steps: tuple[PipelineExecution, ...],
    pipeline_execution_id: str,
    attempt: int,
    attempt_started: datetime,
) -> Run:
    """The run as the runner that ran it knows it at the end of the step it ran last (its
    last, or one that did not succeed): the main row as its lease's write left it, each step
    before it SUCCEEDED, it RUNNING with its attempt, those after it as the runner started
    (never run: NEW). A decision on it needs no read; the guards refuse its write whenever
    another writer moved the run meanwhile (an abort requested, the attempt ended), and the
    run is read then."""
    ending = next(s.step_index for s in steps if s.pipeline_execution_id == pipeline_execution_id)
    known = tuple(
        step._replace(status=StepStatus.RUNNING)
        if step.pipeline_execution_id == pipeline_execution_id
        else step._replace(status=StepStatus.SUCCEEDED, error=None)
        if step.step_index < ending
        else step
        for step in steps
    )
    running = _attempt(
        execution.workflow_execution_id, pipeline_execution_id, attempt, attempt_started, None
    )
    return derived(Run, execution=execution, steps=known, attempts=(running,))


def _attempt(
    workflow_execution_id: str,
    pipeline_execution_id: str,
    number: int,
    at: datetime,
    trigger: AttemptTrigger | None,
) -> TaskExecution:
    # Built unvalidated (domain.derived.written_record): the ids are the run's, the two rules
    # checked here.
    if number < 1:
        raise ValueError(f"attempt: {number} is below 1")
    return TaskExecution(
        pipeline_execution_id=pipeline_execution_id,
        workflow_execution_id=workflow_execution_id,
        attempt=number,
        status=StepStatus.RUNNING,
        start_date=aware(at, "startDate"),
        trigger=trigger or (AttemptTrigger.START if number == 1 else AttemptTrigger.REDRIVE),
    )


def _closed(attempt: TaskExecution, status: StepStatus, move: StepMove) -> TaskExecution:
    # the move's status, stop date and error on the valid attempt (domain.derived.written_record),
    # its other fields named one by one: 8.2 k instructions, where dataclasses.replace or a copy
    # of domain.derived.written_fields costs 18 k (walking the fields, unpacking the keywords)
    error = None if status is StepStatus.SUCCEEDED else move.error
    return TaskExecution(
        pipeline_execution_id=attempt.pipeline_execution_id, attempt=attempt.attempt,
        workflow_execution_id=attempt.workflow_execution_id, trigger=attempt.trigger,
        start_date=attempt.start_date, status=status, stop_date=move.stop_date, error=error,
    )  # fmt: skip


def _lease(owner: str, at: datetime, duration: timedelta) -> RunnerLease:
    # derived (domain.derived): a runner's name, and a moment checked aware here
    at = aware(at, "renewedDate")
    return derived(RunnerLease, owner=owner, renewed_date=at, expires_date=at + duration)


def _table_date(moved: datetime | None, kept: datetime | None, field: str) -> datetime | None:
    return kept if moved is None else table_date(moved, field)


def _with_guard(end: RunEnd, guard: RunGuard) -> RunEnd:
    change = RunChange(end.change.before, end.change.after, guard, end.change.at)
    return RunEnd(end.steps, change)


def _moment(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
