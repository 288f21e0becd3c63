"""GetExecution: one main row, reconciled with the orchestrator under the 30-second rule."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import RunLifecycleStore
from application.ports.system import Clock
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.execution import WorkflowExecution
from domain.redrive import (
    LOCAL_ORCHESTRATOR,
    REDRIVABLE,
    local_history_event_count,
    redrive_status,
    with_derived_redrive_status,
)


class GetExecutionQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)


class GetExecution:
    """Read one execution's main row; an open run may be checked with its orchestrator first.

    A local run's redriveStatus is derived as of now (domain.redrive.redrive_status).
    """

    def __init__(
        self, store: RunLifecycleStore, reconcile: ReconcileExecution | None = None, *, clock: Clock
    ) -> None:
        self._store, self._reconcile, self._clock = store, reconcile, clock

    def execute(self, query: GetExecutionQuery) -> WorkflowExecution:
        execution = self._store.get_execution(query.workflow_execution_id)
        if self._reconcile is not None:
            execution = self._reconcile.execute(execution)
        now = self._clock.now()
        return with_derived_redrive_status(execution, now, self._history(execution, now))

    def _history(self, execution: WorkflowExecution, now: datetime) -> int:
        """Only a run every other rule lets through needs its history counted (its steps read)."""
        if (
            execution.orchestrator != LOCAL_ORCHESTRATOR
            or redrive_status(execution, now, 0).status != REDRIVABLE
        ):
            return 0
        return local_history_event_count(self._store.list_steps(execution.workflow_execution_id))
