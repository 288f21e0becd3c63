"""RedriveExecution: continue a failed run from its failed step (seed 001 RedriveExecution)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import RunLifecycleStore
from application.ports.orchestration import LaunchClaim, Orchestrator, OrchestratorReadError
from application.ports.system import Clock, IdGenerator
from application.run_writes import commit_decided, main_row_after
from domain.attempts import TaskExecution
from domain.errors import RedriveNotAllowedError
from domain.execution import PipelineExecution, RunnerLease, WorkflowExecution
from domain.redrive import (
    LOCAL_ORCHESTRATOR,
    MAX_HISTORY_EVENTS,
    local_history_event_count,
    redrive_refusal,
    redrive_status,
    with_derived_redrive_status,
)
from domain.run import Run, RunChange, RunGuard
from domain.run_write import RunWrite, StepRow
from domain.statuses import ExecutionStatus, StepStatus

_PENDING = frozenset({ExecutionStatus.PENDING_REDRIVE})
_NEW = frozenset({StepStatus.NEW})


class RedriveExecutionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)


class RedriveExecution:
    """Redrive a FAILED, ABORTED or TIMED_OUT run, or refuse with seed 001's reason.

    The row passes through PENDING_REDRIVE (already carrying the new redriveCount and date, so a
    synchronous orchestrator that finishes the run inside the call keeps them), its failed and
    aborted steps go back to NEW (succeeded steps keep their rows and are not run again), the
    orchestrator redrives with a client token derived from the id and redriveCount, and the row
    is RUNNING with the redrive fields as the orchestrator describes them (none for a local run,
    whose redriveStatus a read derives by the same rules this refusal uses).

    A run the orchestrator runs again in this process (the local runner, not detached) is
    reopened leased to that runner, as a launch is (`Orchestrator.launch_claim`), and handed
    over as the write left it, with the attempts of the steps it reopened: the runner reads
    neither the run nor its steps, and starts each reopened step with its next attempt. A
    synchronous re-run has ended when the orchestrator returns: the answer is the row its last
    write left, and no RUNNING write follows.
    """

    def __init__(
        self, store: RunLifecycleStore, orchestrator: Orchestrator, clock: Clock, ids: IdGenerator
    ) -> None:
        self._store, self._orchestrator, self._clock, self._ids = store, orchestrator, clock, ids

    def execute(self, command: RedriveExecutionCommand) -> WorkflowExecution:
        redriven = self._redrive(command)
        # answered as a read shows the run: a local run's redriveStatus derived (the history is
        # not counted, as on a list page: domain.redrive.redrive_status says why)
        return with_derived_redrive_status(redriven, self._clock.now(), 0)

    def _redrive(self, command: RedriveExecutionCommand) -> WorkflowExecution:
        execution, steps = self._redrivable_run(command.workflow_execution_id)
        execution_id = execution.workflow_execution_id
        now = self._clock.now()
        claim = self._claim(execution)
        lease = None if claim is None else _lease(claim, now)
        reset_from: dict[str, PipelineExecution] = {}  # the steps as the write found them
        decided_on: list[Run] = []  # the run the written decision was made on

        def decide(run: Run) -> RunWrite:
            if reset_from:  # decided again: the first write was refused
                reason = redrive_refusal(run.execution, now, 0)
                if reason is not None:  # another redrive (or a late callback) got there first
                    raise RedriveNotAllowedError(execution_id, reason)
            change, reset = run.redrive(now, lease)
            reset_from.clear()
            reset_from.update((step.pipeline_execution_id, step) for step in run.steps)
            decided_on[:] = [run]
            rows = tuple(
                StepRow(step, frozenset({reset_from[step.pipeline_execution_id].status}))
                for step in reset
            )
            return RunWrite.of(execution_id, change=change, step_rows=rows)

        # the first decision on the row the refusals checked: a redrive needs the steps (and,
        # for a runner of this process, the attempts of those it reopens: their next number),
        # and a row moved since refuses the write (its status guard), read again
        run = Run(execution=execution, steps=steps)
        if claim is not None:
            run = run.model_copy(update={"attempts": self._reopened_attempts(run)})
        written, _ = commit_decided(
            self._store, lambda: self._store.get_run(execution_id), decide, decide(run)
        )
        assert written is not None and written.change is not None  # decide always writes
        change, pending = written.change, written.change.after
        reset = tuple(reset_from[row.step.pipeline_execution_id] for row in written.step_rows)
        token = self._ids.derived_id(f"{execution_id}:redrive:{execution.redrive_count}")
        known = None if claim is None else _as_written(decided_on[0], written)
        try:
            redrive_date = self._orchestrator.redrive_execution(pending, token, known)
        except Exception:
            self._roll_back(change.before, pending, reset)
            raise
        if claim is not None and self._orchestrator.synchronous:
            ended = self._orchestrator.ended_run(execution_id)  # as its last write left it
            # an end of this re-run; not one an earlier run of it left unasked for (a gate's
            # decision resumed it) while this one parked at a gate, still open
            if ended is not None and ended.redrive_count == pending.redrive_count:
                return ended
        return self._running(pending, redrive_date)

    def _redrivable_run(
        self, workflow_execution_id: str
    ) -> tuple[WorkflowExecution, tuple[PipelineExecution, ...]]:
        """The run and its steps, once every refusal has been checked, each read only when
        nothing cheaper refuses first."""
        execution = self._store.get_execution(workflow_execution_id)
        execution_id = execution.workflow_execution_id
        self._refuse_unless_redrivable(execution, events=0)  # no orchestrator call to refuse
        machine = self._state_machine_status(execution)
        self._refuse_unless_redrivable(execution, events=0, state_machine_status=machine)
        steps: tuple[PipelineExecution, ...] | None = None
        if execution.orchestrator == LOCAL_ORCHESTRATOR:
            # a local run's history is its steps: counted from the rows the redrive needs anyway
            steps = tuple(self._store.list_steps(execution_id))
            events = local_history_event_count(steps)
        else:
            events = self._count_history(execution)  # read only when nothing else refuses
        self._refuse_unless_redrivable(execution, events=events, state_machine_status=machine)
        if steps is None:
            steps = tuple(self._store.list_steps(execution_id))
        return execution, steps

    def _running(self, pending: WorkflowExecution, redrive_date: datetime) -> WorkflowExecution:
        """The redriven run RUNNING, with the orchestrator's redrive status, unless it has
        moved on meanwhile."""
        execution_id = pending.workflow_execution_id
        described = self._orchestrator.describe_execution(pending)
        running = pending._evolve(
            status=ExecutionStatus.RUNNING,
            redrive_date=redrive_date,
            redrive_status=described.redrive_status if described else None,
            redrive_status_reason=described.redrive_status_reason if described else None,
        )
        to_running = RunChange(pending, running, RunGuard(_PENDING))
        answer = self._store.commit(RunWrite.of(execution_id, change=to_running))
        if answer:
            return running
        return main_row_after(self._store, execution_id, answer)  # a synchronous run has ended

    def _claim(self, execution: WorkflowExecution) -> LaunchClaim | None:
        """The claim of the runner that runs the run again in this process, when the run's own
        orchestrator is the one new runs start on (the claim is that one's)."""
        if execution.orchestrator != self._orchestrator.name:
            return None
        return self._orchestrator.launch_claim()

    def _reopened_attempts(self, run: Run) -> tuple[TaskExecution, ...]:
        """The attempts of the steps the redrive reopens: each takes the next number."""
        _, reset = run.redrive(self._clock.now())
        ids = [step.pipeline_execution_id for step in reset]
        return tuple(self._store.list_attempts(ids)) if ids else ()

    def _refuse_unless_redrivable(
        self, execution: WorkflowExecution, events: int, state_machine_status: str | None = None
    ) -> None:
        status = redrive_status(execution, self._clock.now(), events, state_machine_status)
        if status.reason is not None:
            raise RedriveNotAllowedError(execution.workflow_execution_id, status.reason)

    def _state_machine_status(self, execution: WorkflowExecution) -> str | None:
        """DescribeStateMachine's status of the run's state machine (seed 001: one being deleted
        refuses the redrive); None for a local run, or when it cannot be read: the orchestrator's
        own redrive then answers."""
        arn = execution.state_machine_arn
        if execution.orchestrator == LOCAL_ORCHESTRATOR or not arn:
            return None
        try:
            described = self._orchestrator.describe_state_machine(arn)
        except OrchestratorReadError:
            return None
        return None if described is None else described.status

    def _count_history(self, execution: WorkflowExecution) -> int:
        """History events, read page by page until the end or until the limit is reached."""
        count, token = 0, None
        while True:
            page = self._orchestrator.history_page(execution, token)
            count += len(page.events)
            token = page.next_token
            if not token or count >= MAX_HISTORY_EVENTS:
                return count

    def _roll_back(
        self,
        before: WorkflowExecution,
        pending: WorkflowExecution,
        reset: tuple[PipelineExecution, ...],
    ) -> None:
        """The orchestrator refused: the run and its steps are as they were before the call, in
        one write (refused, writing nothing, when anything of it has moved since)."""
        back = RunChange(pending, before, RunGuard(_PENDING))
        rows = tuple(StepRow(step, _NEW) for step in reset)
        self._store.commit(RunWrite.of(before.workflow_execution_id, change=back, step_rows=rows))


def _lease(claim: LaunchClaim, now: datetime) -> RunnerLease:
    return RunnerLease(owner=claim.owner, renewed_date=now, expires_date=now + claim.lease)


def _as_written(run: Run, written: RunWrite) -> Run:
    """The run the redrive's write left: its main row, the reopened steps NEW, their attempts."""
    assert written.change is not None
    rows = {row.step.pipeline_execution_id: row.step for row in written.step_rows}
    steps = tuple(rows.get(step.pipeline_execution_id, step) for step in run.steps)
    return Run(execution=written.change.after, steps=steps, attempts=run.attempts)
