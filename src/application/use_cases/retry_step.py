"""RetryStep: a running step failed and runs again under its retry policy (seed 003)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from application.attempts import close_latest_attempt, open_next_attempt
from application.ports import Clock, ExecutionStore
from domain.attempts import AttemptTrigger, TaskExecution
from domain.errors import PipelineExecutionNotFoundError
from domain.statuses import StepStatus


class RetryStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    error: str | None = None


class RetryStep:
    """Close the step's current attempt FAILED and open the next; the step stays RUNNING.

    Returns the new attempt, or None when the step is not RUNNING (finished, aborted, or never
    started): a retry never reopens a step.
    """

    def __init__(self, store: ExecutionStore, clock: Clock) -> None:
        self._store, self._clock = store, clock

    def execute(self, command: RetryStepCommand) -> TaskExecution | None:
        step = self._store.get_step(command.pipeline_execution_id)
        if step.workflow_execution_id != command.workflow_execution_id:
            raise PipelineExecutionNotFoundError(
                command.pipeline_execution_id, command.workflow_execution_id
            )
        if step.status is not StepStatus.RUNNING:
            return None
        now = self._clock.now()
        close_latest_attempt(
            self._store,
            command.pipeline_execution_id,
            StepStatus.FAILED,
            now,
            command.error or StepStatus.FAILED.value,
        )
        return open_next_attempt(
            self._store,
            command.workflow_execution_id,
            command.pipeline_execution_id,
            now,
            AttemptTrigger.RETRY,
        )
