"""StartStep / FinishStep: the interim tracking callbacks (NEW -> RUNNING -> terminal)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from application.attempts import close_latest_attempt, open_next_attempt, running_attempt
from application.output_folder import unrecorded_outputs
from application.ports import (
    AttemptNotRunningError,
    AttemptNumberTakenError,
    Clock,
    ExecutionStore,
    ObjectStore,
    StepChange,
)
from domain.errors import PipelineExecutionNotFoundError
from domain.execution import PipelineExecution, StepOutputs, execution_output_prefix
from domain.statuses import StepStatus, TerminalStepStatus

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
    status: TerminalStepStatus
    error: str | None = None


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
        now = self._clock.now()
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        change = StepChange(status=StepStatus.RUNNING, start_date=now)
        try:
            # Most steps start once: the transition and attempt 1 go in one write.
            started = self._store.start_step(
                execution_id,
                step_id,
                change,
                _NOT_STARTED,
                running_attempt(execution_id, step_id, 1, now),
            )
        except AttemptNumberTakenError:
            # A redriven step, reset to NEW, keeps its earlier attempts: it takes the next number.
            started = self._store.transition_step(execution_id, step_id, change, _NOT_STARTED)
            if started is not None:
                # Only the writer that moved the step NEW -> RUNNING opens its attempt.
                open_next_attempt(self._store, execution_id, step_id, now, first_is_taken=True)
        if started is not None:
            return started
        # Callbacks are retried: starting twice is not an error, and changes nothing.
        return _load(self._store, command.workflow_execution_id, command.pipeline_execution_id)


class FinishStep:
    """Mark a step terminal and record the files it added to the shared output folder.

    The end-state step's files are recorded by CompleteExecution, as processWorkflowExecutionOutput
    does in seed 000. A terminal step is never changed again.
    """

    def __init__(self, store: ExecutionStore, objects: ObjectStore, clock: Clock) -> None:
        self._store, self._objects, self._clock = store, objects, clock

    def execute(self, command: FinishStepCommand) -> PipelineExecution:
        workflow_execution_id = command.workflow_execution_id
        latest = self._objects.list_latest(execution_output_prefix(workflow_execution_id))
        if latest:
            step = _load(self._store, workflow_execution_id, command.pipeline_execution_id)
            if step.is_terminal:
                return step
            if not step.end_state:
                # Outputs first: an upsert is safe to repeat if the status write never happens.
                files = unrecorded_outputs(self._store, self._objects, step, latest)
                if files:
                    self._store.add_step_outputs(StepOutputs(files=tuple(files)))
        stopped = self._clock.now()
        change = StepChange(
            status=command.status,
            stop_date=stopped,
            error=None if command.status is StepStatus.SUCCEEDED else command.error,
        )
        step_id = command.pipeline_execution_id
        try:
            # Most steps run once: the transition and the close of attempt 1 go in one write.
            finished = self._store.finish_step(workflow_execution_id, step_id, change, _OPEN, 1)
        except AttemptNotRunningError:
            # Retried, redriven or never started: another attempt (or none) is the open one.
            finished = self._store.transition_step(workflow_execution_id, step_id, change, _OPEN)
            if finished is not None:
                close_latest_attempt(
                    self._store,
                    step_id,
                    command.status,
                    stopped,
                    change.error,
                    first_is_closed=True,
                )
        if finished is not None:
            return finished
        return _load(self._store, workflow_execution_id, command.pipeline_execution_id)
