"""RedriveExecution: continue a failed run from its failed step (seed 001 RedriveExecution)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from application.ports import Clock, ExecutionStore, IdGenerator, Orchestrator
from domain.errors import RedriveNotAllowedError
from domain.execution import PipelineExecution, WorkflowExecution
from domain.redrive import (
    MAX_HISTORY_EVENTS,
    RUNNING_REASON,
    redrive_refusal,
    redrive_status,
)
from domain.statuses import ExecutionStatus, StepStatus

_RERUN = frozenset({StepStatus.FAILED, StepStatus.ABORTED, StepStatus.TIMED_OUT})
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
    """

    def __init__(
        self, store: ExecutionStore, orchestrator: Orchestrator, clock: Clock, ids: IdGenerator
    ) -> None:
        self._store, self._orchestrator, self._clock, self._ids = store, orchestrator, clock, ids

    def execute(self, command: RedriveExecutionCommand) -> WorkflowExecution:
        execution = self._store.get_execution(command.workflow_execution_id)
        execution_id = execution.workflow_execution_id
        self._refuse_unless_redrivable(execution, events=0)  # no history read for a plain refusal
        self._refuse_unless_redrivable(execution, events=self._count_history(execution))

        now = self._clock.now()
        pending = execution.model_copy(
            update={
                "status": ExecutionStatus.PENDING_REDRIVE,
                "execution_stop_date": None,
                "execution_error": None,
                "redrive_count": execution.redrive_count + 1,
                "redrive_date": now,
                # what was said of the run before this redrive no longer holds
                "redrive_status": None,
                "redrive_status_reason": None,
            }
        )
        if not self._store.save_execution(pending, expected=frozenset({execution.status})):
            # another redrive (or a late callback) got there first
            current = self._store.get_execution(execution_id)
            reason = redrive_refusal(current, now, 0) or RUNNING_REASON
            raise RedriveNotAllowedError(execution_id, reason)
        reset = self._reset_steps(self._store.list_steps(execution_id))
        token = self._ids.derived_id(f"{execution_id}:redrive:{execution.redrive_count}")
        try:
            redrive_date = self._orchestrator.redrive_execution(pending, token)
        except Exception:
            self._roll_back(execution, reset)
            raise
        described = self._orchestrator.describe_execution(pending)
        running = pending.model_copy(
            update={
                "status": ExecutionStatus.RUNNING,
                "redrive_date": redrive_date,
                "redrive_status": described.redrive_status if described else None,
                "redrive_status_reason": described.redrive_status_reason if described else None,
            }
        )
        if self._store.save_execution(running, expected=_PENDING):
            return running
        return self._store.get_execution(execution_id)  # a synchronous run has ended already

    def _refuse_unless_redrivable(self, execution: WorkflowExecution, events: int) -> None:
        status = redrive_status(execution, self._clock.now(), events)
        if status.reason is not None:
            raise RedriveNotAllowedError(execution.workflow_execution_id, status.reason)

    def _count_history(self, execution: WorkflowExecution) -> int:
        """History events, read page by page until the end or until the limit is reached."""
        count, token = 0, None
        while True:
            page = self._orchestrator.history_page(execution, token)
            count += len(page.events)
            token = page.next_token
            if not token or count >= MAX_HISTORY_EVENTS:
                return count

    def _reset_steps(self, steps: Sequence[PipelineExecution]) -> list[PipelineExecution]:
        """Failed, aborted and timed-out steps back to NEW; the rows as they were before."""
        reset = []
        for step in steps:
            if step.status not in _RERUN:
                continue
            fresh = step.model_copy(
                update={
                    "status": StepStatus.NEW,
                    "start_date": None,
                    "stop_date": None,
                    "error": None,
                }
            )
            if self._store.save_step(fresh, expected=frozenset({step.status})):
                reset.append(step)
        return reset

    def _roll_back(self, execution: WorkflowExecution, reset: list[PipelineExecution]) -> None:
        """The orchestrator refused: the run and its steps are as they were before the call."""
        for step in reset:
            self._store.save_step(step, expected=_NEW)
        self._store.save_execution(execution, expected=_PENDING)
