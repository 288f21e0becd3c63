"""GetExecution: one main row, reconciled with the orchestrator under the 30-second rule."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports import ExecutionStore
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.execution import WorkflowExecution


class GetExecutionQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)


class GetExecution:
    """Read one execution's main row; an open run may be checked with its orchestrator first."""

    def __init__(self, store: ExecutionStore, reconcile: ReconcileExecution | None = None) -> None:
        self._store, self._reconcile = store, reconcile

    def execute(self, query: GetExecutionQuery) -> WorkflowExecution:
        execution = self._store.get_execution(query.workflow_execution_id)
        return self._reconcile.execute(execution) if self._reconcile else execution
