"""GetExecutionProgress: a run's main row and its steps in chain order, for a live display."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import RunLifecycleStore
from domain.execution import PipelineExecution, WorkflowExecution, chain_order


class GetExecutionProgressQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)


class ExecutionProgress(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    execution: WorkflowExecution
    steps: tuple[PipelineExecution, ...]  # chain order


class GetExecutionProgress:
    """Read the main row and the step rows as stored, nothing reconciled or derived.

    A display polls this many times a second while its own runner drives the run: the
    orchestrator is not asked (the runner is the orchestrator) and no history is counted.
    """

    def __init__(self, store: RunLifecycleStore) -> None:
        self._store = store

    def execute(self, query: GetExecutionProgressQuery) -> ExecutionProgress:
        execution = self._store.get_execution(query.workflow_execution_id)
        steps = chain_order(self._store.list_steps(query.workflow_execution_id))
        return ExecutionProgress(execution=execution, steps=tuple(steps))
