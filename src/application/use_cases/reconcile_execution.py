"""ReconcileExecution: seed 000 "Status tracking", the check every read goes through.

Two things a read finds out about an open run: a local run has lost its runner (DESIGN §3a),
found by its lease's expiry or at once on the runner's host, and a run the orchestrator ended
out of band (the 30-second rule).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from application.stale_reads import note_stale
from domain.errors import RUNNER_LOST_ERROR, ConflictError, UnreadableRowError
from domain.statuses import TERMINAL_STATUSES, StepStatus

if TYPE_CHECKING:
    from application.ports.executions import RunLifecycleStore
    from application.ports.files import LogStore, ObjectStore
    from application.ports.logs import RunLogSource
    from application.ports.orchestration import Described, Orchestrator, OrchestratorExecution
    from application.ports.sub_executions import SubProcessController
    from application.ports.system import Clock
    from application.use_cases.approvals import CloseOverdueGate
    from application.use_cases.record_cost import RecordAttemptDurations
    from domain.execution import WorkflowExecution
    from domain.run import Run, RunChange, RunEnd

DEFAULT_SYNC_INTERVAL_SECONDS = 30.0
DEFAULT_LEASE_SECONDS = 30.0

_LOG = logging.getLogger(__name__)


def _with_redrive_status(
    execution: WorkflowExecution, described: OrchestratorExecution
) -> WorkflowExecution:
    """redriveStatus and its reason as the orchestrator just described them (Step Functions'
    DescribeExecution; the local runner describes none, and a read derives a local run's)."""
    return execution._evolve(
        redrive_status=described.redrive_status,
        redrive_status_reason=described.redrive_status_reason,
    )


class ReconcileExecution:
    """Check an open run against its lease and, at most once per interval, its orchestrator.

    A local run whose lease expired (or that no runner took within a lease's length) ends FAILED
    with `wfx.RunnerLost`, with its open steps, so that it can be redriven; so does one whose
    lease is held by a runner of this host seen gone (Orchestrator.lost_runner: its record and
    /proc, asked on every read of a leased run, writing nothing while the runner lives), and
    one the orchestrator describes so (wfx.RunnerLost). Each of these ends first stops what the
    run's running steps registered, as the error handler does for a run that fails. The
    orchestrator is called only when the row has no stop date and was last checked longer ago
    than the interval; every poll re-stamps lastSfnSyncCheckDate and records the redriveStatus
    the orchestrator gives. A terminal status found out of band (a run stopped or timed out
    directly in Step Functions) is written with its stop date, the run log and the error, and
    the steps still open are closed with it. A terminal row is never touched.

    The check is the read's errand, not its answer: when what it writes fails (a full disk, a
    read-only store, a write throttled past its retries, a race lost every time), the row is
    answered as it was read and noted stale (application.stale_reads), and the next read tries
    again. Each of its writes is whole or not made, so nothing stored is lost on the way.
    """

    def __init__(
        self,
        store: RunLifecycleStore,
        orchestrator: Orchestrator,
        logs: LogStore,
        objects: ObjectStore,
        clock: Clock,
        sub_processes: SubProcessController,
        min_interval_seconds: float = DEFAULT_SYNC_INTERVAL_SECONDS,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        run_logs: RunLogSource | None = None,
        overdue_gates: CloseOverdueGate | None = None,
        durations: RecordAttemptDurations | None = None,
    ) -> None:
        """`run_logs`: where the run log comes from (the local step logs when not given);
        `overdue_gates` closes the gate a parked run waits at once its time is up; `durations`
        records the attempts an end found here closes (a lost runner's)."""
        self._overdue = overdue_gates
        self._store, self._orchestrator, self._sub_processes = store, orchestrator, sub_processes
        self._objects, self._clock, self._logs = objects, clock, logs
        self._run_logs = run_logs
        self._durations = durations
        self._interval = timedelta(seconds=min_interval_seconds)
        self._lease = timedelta(seconds=lease_seconds)

    @property
    def min_interval(self) -> timedelta:
        return self._interval

    def execute(self, execution: WorkflowExecution) -> WorkflowExecution:
        """The row as it stands after the check (the same object when nothing was asked)."""
        if not self._may_ask(execution):
            return execution
        return self._checked_or_as_read(execution, self._clock.now())

    def execute_all(self, executions: Sequence[WorkflowExecution]) -> list[WorkflowExecution]:
        """Each row checked as `execute` does, all as of one moment (a page is one read).

        Each open leased row of the page costs a runner record's read and a /proc look (a
        missing file for a run of another host): a page holds few open runs, every one of them
        the user would otherwise see RUNNING for up to a lease after its runner died, and a
        page of ended runs asks nothing."""
        if not any(self._may_ask(execution) for execution in executions):
            return list(executions)
        now = self._clock.now()
        known = self._described_at_once(executions, now)
        # a page reads no gate of a parked run before its time is up: one read per parked row
        # on every page would be the price of a state only an older wfx left (`execute` reads it)
        return [
            self._checked_or_as_read(e, now, False, known.get(e.workflow_execution_id))
            if self._may_ask(e)
            else e
            for e in executions
        ]

    def _described_at_once(
        self, executions: Sequence[WorkflowExecution], now: datetime
    ) -> dict[str, Described]:
        """The orchestrator's answers for the page's runs whose check will describe them (on
        Step Functions a round trip each), asked all in one call. A run found otherwise on the
        way (a lost runner, a gate) leaves its answer unused; one this misses is described
        when its check comes to it."""
        due = [e for e in executions if self._may_ask(e) and self._describe_due(e, now)]
        if len(due) < 2:
            return {}
        answers = self._orchestrator.describe_each(due)
        return {e.workflow_execution_id: answer for e, answer in zip(due, answers, strict=True)}

    def _describe_due(self, execution: WorkflowExecution, now: datetime) -> bool:
        from domain.run import Run

        run = Run(execution=execution)
        checked = execution.last_sfn_sync_check_date
        return (
            execution.runner_lease is None  # a leased run's runner is asked first, on its host
            and run.parked_at() is None
            and not run.lease_expired(now, self._lease)
            and (checked is None or now - checked > self._interval)
        )

    def _may_ask(self, execution: WorkflowExecution) -> bool:
        return not execution.is_terminal and execution.execution_stop_date is None

    def _checked_or_as_read(
        self,
        execution: WorkflowExecution,
        now: datetime,
        read_gates: bool = True,
        known: Described | None = None,
    ) -> WorkflowExecution:
        """`known`: the orchestrator's answer, when it was asked before (`describe_each`)."""
        try:
            return self._check(execution, now, read_gates, known)
        except UnreadableRowError:
            # a row of the run (a step, its gate's request) another writer left unreadable: the
            # check decides on none of it, and the row is answered as stored, not as stale (no
            # write failed); a read of the run's rows names it, and once it is mended the next
            # read checks the run
            return execution
        except Exception as error:
            # Whatever the store or the log store met, the row as read is still what was stored:
            # the caller gets it, flagged; what the write met is the operator's to read.
            _LOG.debug("run %s: answered as stored", execution.workflow_execution_id, exc_info=True)
            note_stale(execution.workflow_execution_id, error)
            return execution

    def _check(
        self,
        execution: WorkflowExecution,
        now: datetime,
        read_gates: bool = True,
        known: Described | None = None,
    ) -> WorkflowExecution:
        # The run's lifecycle (its decisions, its writes) is imported only for an open run: a
        # list of ended runs checks none (docs/performance.md, "Cold start").
        from domain.run import Run

        gate = Run(execution=execution).parked_at()
        if gate is not None:
            # no runner to ask: it waits for a decision, or for its gate's time to run out; a
            # run's own read reads its gate each time, for one closed with the run left parked
            # (an older wfx); a page only once the gate's time is up
            lease = execution.runner_lease
            due = lease is not None and lease.expires_date <= now
            if self._overdue is None or not (read_gates or due):
                return execution
            if not self._overdue.close_by_id(gate):
                return execution
            return self._store.get_execution(execution.workflow_execution_id)
        if Run(execution=execution).lease_expired(now, self._lease):
            return self._lose_runner(execution, now)
        if execution.runner_lease is not None:
            # A runner holds it (Step Functions runs hold no lease): on its host, whether it
            # lives is a file read and a /proc look, asked on every read and written only when
            # it is gone; the interval below spares calls to a service, and this makes none.
            gone = self._orchestrator.lost_runner(execution)
            if gone is not None:
                return self._lose_runner(execution, now, gone)
        checked = execution.last_sfn_sync_check_date
        if checked is not None and now - checked <= self._interval:
            return execution
        # imported only for a run the orchestrator is asked about: a list of ended runs asks none
        from application.ports.orchestration import OrchestratorReadError

        try:
            described = (
                known.get()
                if known is not None
                else self._orchestrator.describe_execution(execution)
            )
        except (ConflictError, OrchestratorReadError):
            # started on an orchestrator this wfx cannot reach, or one that does not answer now
            # (no credentials, no network): the row stands, and the next read asks again
            return execution
        if described is None or described.status.value not in TERMINAL_STATUSES:
            said = described or execution  # nothing described: what is stored stands
            status, reason = said.redrive_status, said.redrive_status_reason
            return self._save(Run(execution=execution).checked(now, status, reason))
        if described.error == RUNNER_LOST_ERROR:
            # the local runner ended without recording the run's end (a run no runner leased
            # yet, or one of this very process whose thread died): a lost runner's end, which
            # stops what the steps registered as the lease's path does
            return self._lose_runner(execution, now, described)
        return self._end_as_described(execution, described, now)

    def _lose_runner(
        self,
        execution: WorkflowExecution,
        now: datetime,
        gone: OrchestratorExecution | None = None,
    ) -> WorkflowExecution:
        """End the run FAILED wfx.RunnerLost with its open steps, stopping what they registered;
        the end's one write carries the steps' summaries, as every run's end does (the runner is
        gone: nobody else writes them). `gone`: the orchestrator saw the run's runner end (its
        error and cause), holding the lease as read or, before any runner took one, with none;
        None: the lease expired. Liveness was asked first and the run is read after, so an end
        the runner recorded before it exited is read here and stands."""
        from application.run_writes import end_run_and_steps
        from application.step_summaries import StepSummaries, fitted_run_log
        from application.sub_process_stops import stop_sub_processes

        owner = _lease_owner(execution)
        run = self._store.get_run(execution.workflow_execution_id)
        if gone is not None and _lease_owner(run.execution) != owner:
            return run.execution  # it ended, or parked, before its runner exited
        # as the error handler does for a failed run: what its running steps registered (a
        # state machine, a Batch job) would otherwise go on with nobody to stop it
        stop_sub_processes(self._sub_processes, self._store, run.steps, now)
        # the end is decided on that read (one read of every step), unless a stop was recorded
        # on a step since: then on a fresh one
        stopped = any(
            step.status is StepStatus.RUNNING and step.registered_sub_executions
            for step in run.steps
        )
        # the step logs' tails kept as the run log is read: the summaries read none again
        log, log_object_key, tails = fitted_run_log(self._objects, self._log_source(), execution)

        def decide(read: Run) -> RunEnd | None:
            if gone is None:
                return read.lose_runner(now, self._lease, log, log_object_key)
            return _runner_gone(read, owner, gone, now, log, log_object_key)

        ended, _ = end_run_and_steps(
            self._store,
            execution.workflow_execution_id,
            decide,
            first=None if stopped else run,
            durations=self._durations,
            summaries=StepSummaries(self._logs, tails),
        )
        return ended

    def _end_as_described(
        self, execution: WorkflowExecution, described: OrchestratorExecution, now: datetime
    ) -> WorkflowExecution:
        from application.run_writes import end_run
        from domain.run import failure_message

        execution_id = execution.workflow_execution_id
        error = failure_message(described.error, described.cause)
        log, log_object_key = self._fit_log(execution)

        def decide(run: Run) -> RunEnd | None:
            end = run.end_as_described(
                described.status,
                described.stop_date or now,
                error,
                log,
                log_object_key,
                now,
                cause=described.cause,
            )
            if end is None:
                return None
            after = _with_redrive_status(end.change.after, described)
            return replace(end, change=replace(end.change, after=after))

        return end_run(self._store, execution_id, decide, self._durations)

    def _fit_log(self, execution: WorkflowExecution) -> tuple[str, str | None]:
        from application.run_log import fit_run_log

        pieces = self._log_source().run_log_pieces(execution)
        return fit_run_log(self._objects, execution.workflow_execution_id, pieces)

    def _log_source(self) -> RunLogSource:
        from application.run_log_sources import LocalRunLog

        return self._run_logs or LocalRunLog(self._logs)

    def _save(self, change: RunChange) -> WorkflowExecution:
        from application.run_writes import main_row_after
        from domain.run_write import RunWrite

        answer = self._store.commit(RunWrite.of(change.after.workflow_execution_id, change=change))
        if answer:
            return change.after
        # Something else wrote the row since it was read (a callback, another read): theirs wins,
        # as the refusal says it, or read.
        return main_row_after(self._store, change.before.workflow_execution_id, answer)


def _lease_owner(execution: WorkflowExecution) -> str | None:
    return None if execution.runner_lease is None else execution.runner_lease.owner


def _runner_gone(
    run: Run,
    owner: str | None,
    gone: OrchestratorExecution,
    now: datetime,
    log: str,
    log_object_key: str | None,
) -> RunEnd | None:
    """The end of a run whose runner (the lease's `owner`; None: no runner had taken a lease)
    was seen gone, as a describe saying so ends it, written only while the lease is still that
    runner's: an end the runner wrote clears it, a run it parked is the gate's, and a lease
    taken since the read (a runner took the run after all) is alive."""
    from domain.run import failure_message

    if _lease_owner(run.execution) != owner:
        return None
    error = failure_message(gone.error, gone.cause)
    end = run.end_as_described(gone.status, now, error, log, log_object_key, now, gone.cause)
    if end is None:
        return None
    guard = end.change.guard
    guard = (
        replace(guard, lease_as_read=True) if owner is None else replace(guard, lease_held_by=owner)
    )
    return replace(end, change=replace(end.change, guard=guard))
