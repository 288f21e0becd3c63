"""ReconcileExecution: seed 000 "Status tracking", the 30-second rule every read goes through."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from application.attempts import close_latest_attempt
from application.ports import (
    Clock,
    ExecutionStore,
    LogStore,
    ObjectStore,
    Orchestrator,
    OrchestratorExecution,
    StepChange,
)
from application.use_cases.complete_execution import fit_run_log
from domain.errors import ConflictError
from domain.execution import WorkflowExecution
from domain.statuses import TERMINAL_STATUSES, StepStatus

DEFAULT_SYNC_INTERVAL_SECONDS = 30.0
OPEN_STEPS = frozenset({StepStatus.NEW, StepStatus.RUNNING})


def failure_message(error: str | None, cause: str | None) -> str | None:
    """The orchestrator's error and cause as one executionError text."""
    parts = [part for part in (error, cause) if part]
    return ": ".join(parts) or None


def close_open_steps(
    store: ExecutionStore,
    workflow_execution_id: str,
    status: StepStatus,
    at: datetime,
    error: str | None,
) -> None:
    """Every step still NEW or RUNNING ends with `status`; a finished step keeps its own."""
    change = StepChange(
        status=status, stop_date=at, error=None if status is StepStatus.SUCCEEDED else error
    )
    for step in store.list_steps(workflow_execution_id):
        if step.status in OPEN_STEPS:
            closed = store.transition_step(
                workflow_execution_id, step.pipeline_execution_id, change, OPEN_STEPS
            )
            if closed is not None and step.status is StepStatus.RUNNING:
                # its attempt ends with it (seed 003); a NEW step never opened one
                close_latest_attempt(store, step.pipeline_execution_id, status, at, change.error)


def _with_redrive_status(
    execution: WorkflowExecution, described: OrchestratorExecution
) -> WorkflowExecution:
    """redriveStatus and its reason as the orchestrator just described them (Step Functions'
    DescribeExecution; the local runner describes none, and a read derives a local run's)."""
    return execution.model_copy(
        update={
            "redrive_status": described.redrive_status,
            "redrive_status_reason": described.redrive_status_reason,
        }
    )


class ReconcileExecution:
    """Ask the orchestrator about an open run, at most once per interval, and record the answer.

    The orchestrator that started the run is called only when the row has no stop date and was
    last checked longer ago than the interval; every poll re-stamps
    lastSfnSyncCheckDate and records the redriveStatus the orchestrator gives. A terminal status
    found out of band (a run stopped or timed out directly in Step Functions) is written with
    its stop date, the run log and the error, and the steps still open are closed with it. A
    terminal row is never touched.
    """

    def __init__(
        self,
        store: ExecutionStore,
        orchestrator: Orchestrator,
        logs: LogStore,
        objects: ObjectStore,
        clock: Clock,
        min_interval_seconds: float = DEFAULT_SYNC_INTERVAL_SECONDS,
    ) -> None:
        self._store, self._orchestrator = store, orchestrator
        self._logs, self._objects, self._clock = logs, objects, clock
        self._interval = timedelta(seconds=min_interval_seconds)

    @property
    def min_interval(self) -> timedelta:
        return self._interval

    def execute(self, execution: WorkflowExecution) -> WorkflowExecution:
        """The row as it stands after the check (the same object when nothing was asked)."""
        if not self._may_ask(execution):
            return execution
        return self._check(execution, self._clock.now())

    def execute_all(self, executions: Sequence[WorkflowExecution]) -> list[WorkflowExecution]:
        """Each row checked as `execute` does, all as of one moment (a page is one read)."""
        if not any(self._may_ask(execution) for execution in executions):
            return list(executions)
        now = self._clock.now()
        return [self._check(e, now) if self._may_ask(e) else e for e in executions]

    def _may_ask(self, execution: WorkflowExecution) -> bool:
        return not execution.is_terminal and execution.execution_stop_date is None

    def _check(self, execution: WorkflowExecution, now: datetime) -> WorkflowExecution:
        checked = execution.last_sfn_sync_check_date
        if checked is not None and now - checked <= self._interval:
            return execution
        try:
            described = self._orchestrator.describe_execution(execution)
        except ConflictError:
            return execution  # started on an orchestrator this wfx cannot reach: the row stands
        stamped = execution.model_copy(update={"last_sfn_sync_check_date": now})
        if described is None:
            return self._save(execution, stamped)
        if described.status.value not in TERMINAL_STATUSES:
            return self._save(execution, _with_redrive_status(stamped, described))
        ended = self._terminal(stamped, described, now)
        return self._save(execution, _with_redrive_status(ended, described))

    def _terminal(
        self, stamped: WorkflowExecution, described: OrchestratorExecution, now: datetime
    ) -> WorkflowExecution:
        execution_id = stamped.workflow_execution_id
        stopped = described.stop_date or now
        error = failure_message(described.error, described.cause)
        # Steps first: if the row write never happens, the next read polls and finishes the job.
        close_open_steps(
            self._store, execution_id, StepStatus(described.status.value), stopped, error
        )
        log, log_object_key = fit_run_log(self._logs, self._objects, execution_id)
        return stamped.complete(
            described.status, at=stopped, log=log, error=error, log_object_key=log_object_key
        )

    def _save(self, stored: WorkflowExecution, updated: WorkflowExecution) -> WorkflowExecution:
        if self._store.save_execution(updated, expected=frozenset({stored.status})):
            return updated
        # Something else wrote the row since it was read (a callback, another read): theirs wins.
        return self._store.get_execution(stored.workflow_execution_id)
