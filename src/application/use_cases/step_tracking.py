"""StartStep / FinishStep: the interim tracking callbacks (NEW -> RUNNING -> terminal)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from application.output_folder import unrecorded_outputs
from application.ports import Clock, ExecutionStore, ObjectStore
from domain.errors import PipelineExecutionNotFoundError
from domain.execution import PipelineExecution, StepOutputs
from domain.statuses import TERMINAL_STATUSES, StepStatus

_NOT_STARTED = frozenset({StepStatus.NEW})
_OPEN = frozenset({StepStatus.NEW, StepStatus.RUNNING})


class StartStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str


class FinishStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    status: StepStatus
    error: str | None = None

    @field_validator("status")
    @classmethod
    def _terminal(cls, status: StepStatus) -> StepStatus:
        if status not in TERMINAL_STATUSES:
            raise ValueError(f"must be one of {', '.join(sorted(TERMINAL_STATUSES))}")
        return status


def _load(
    store: ExecutionStore, workflow_execution_id: str, pipeline_execution_id: str
) -> PipelineExecution:
    step = store.get_step(pipeline_execution_id)
    if step.workflow_execution_id != workflow_execution_id:
        raise PipelineExecutionNotFoundError(pipeline_execution_id, workflow_execution_id)
    return step


class StartStep:
    """Mark a step RUNNING; a step already started or finished is returned unchanged."""

    def __init__(self, store: ExecutionStore, clock: Clock) -> None:
        self._store, self._clock = store, clock

    def execute(self, command: StartStepCommand) -> PipelineExecution:
        step = _load(self._store, command.workflow_execution_id, command.pipeline_execution_id)
        if step.status is not StepStatus.NEW:
            return step  # callbacks are retried: starting twice is not an error
        running = step.model_copy(
            update={"status": StepStatus.RUNNING, "start_date": self._clock.now()}
        )
        if self._store.save_step(running, expected=_NOT_STARTED):
            return running
        return self._store.get_step(step.pipeline_execution_id)


class FinishStep:
    """Mark a step terminal and record the files it added to the shared output folder.

    The end-state step's files are recorded by CompleteExecution, as processWorkflowExecutionOutput
    does in seed 000. A terminal step is never changed again.
    """

    def __init__(self, store: ExecutionStore, objects: ObjectStore, clock: Clock) -> None:
        self._store, self._objects, self._clock = store, objects, clock

    def execute(self, command: FinishStepCommand) -> PipelineExecution:
        step = _load(self._store, command.workflow_execution_id, command.pipeline_execution_id)
        if step.is_terminal:
            return step
        if not step.end_state:
            # Outputs first: an upsert is safe to repeat if the status write below never happens.
            files = unrecorded_outputs(self._store, self._objects, step)
            if files:
                self._store.add_step_outputs(StepOutputs(files=tuple(files)))
        now = self._clock.now()
        finished = step.model_copy(
            update={
                "status": command.status,
                "start_date": step.start_date or now,
                "stop_date": now,
                "error": None if command.status is StepStatus.SUCCEEDED else command.error,
            }
        )
        if self._store.save_step(finished, expected=_OPEN):
            return finished
        return self._store.get_step(step.pipeline_execution_id)
