"""StartStep / FinishStep: the interim tracking callbacks (NEW -> RUNNING -> terminal)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.output_folder import unrecorded_outputs, writing_attempt
from application.ports import (
    AttemptNotRunningError,
    AttemptNumberTakenError,
    Clock,
    ObjectStore,
    RunLifecycleStore,
    RunNotOpenError,
)
from application.run_writes import MAX_RACES, RunContentionError
from application.use_cases.record_cost import (
    RecordAttemptDurations,
    RecordAttemptDurationsCommand,
)
from domain.execution import (
    PipelineExecution,
    StepOutputs,
    artifacts_of,
    execution_output_prefix,
)
from domain.run import AttemptFencedError, first_start, plain_finish
from domain.statuses import StepStatus, TerminalStepStatus


class StartStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str


class StepStarted(BaseModel):
    """The step as stored after a start, and its running attempt (None when the step is no
    longer running: a start never reopens a step)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    step: PipelineExecution
    attempt: int | None = None


class FinishStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    status: TerminalStepStatus
    error: str | None = None
    # The attempt that ran, when the caller knows it: a result for an attempt that is no
    # longer the running one is refused (fencing). Without it, the running attempt closes.
    attempt: int | None = Field(default=None, ge=1)


class StartStep:
    """Mark a step RUNNING with its next attempt; a step already started or finished is
    returned unchanged. Refused (RunIsStoppingError, RunIsOverError) once an abort was requested
    or the run has ended: no step starts then."""

    def __init__(self, store: RunLifecycleStore, clock: Clock) -> None:
        self._store, self._clock = store, clock

    def execute(self, command: StartStepCommand) -> StepStarted:
        now = self._clock.now()
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        move = first_start(execution_id, step_id, now)  # most starts: no read first
        for _ in range(MAX_RACES):
            try:
                started = self._store.move_step(move)
            except (AttemptNumberTakenError, RunNotOpenError):
                started = None
            if started is not None:
                assert move.open_attempt is not None
                return StepStarted(step=started, attempt=move.open_attempt.attempt)
            run = self._store.get_run(execution_id, step_id)
            decided = run.start_step(step_id, now)
            if decided is None:
                # started already (a callback delivered twice, or an earlier try of this one
                # that the store kept): the attempt running now, if it is still running
                running = run.running_attempt(step_id)
                step = run.step(step_id)
                attempt = running.attempt if running and step.status is StepStatus.RUNNING else None
                return StepStarted(step=step, attempt=attempt)
            move = decided
        raise RunContentionError(f"step {step_id}: changed under every start")


class FinishStep:
    """Mark a step terminal and record the files it added to the shared output folder.

    On a run being aborted the step ends ABORTED, whatever it reported. The end-state step's
    files are recorded by CompleteExecution, as processWorkflowExecutionOutput does in seed 000.
    A terminal step is never changed again; a result for an attempt that is no longer running
    is refused (AttemptFencedError), its outputs with it.
    """

    def __init__(
        self,
        store: RunLifecycleStore,
        objects: ObjectStore,
        clock: Clock,
        durations: RecordAttemptDurations | None = None,
    ) -> None:
        self._store, self._objects, self._clock = store, objects, clock
        self._durations = durations

    def execute(self, command: FinishStepCommand) -> PipelineExecution:
        finished = self._finish(command)
        if self._durations is not None:
            # on every path, the repeat of a finish too: what a failed recording missed is
            # recorded when the callback is delivered again (the recording is idempotent)
            self._durations.execute(
                RecordAttemptDurationsCommand(
                    workflow_execution_id=command.workflow_execution_id,
                    pipeline_execution_id=command.pipeline_execution_id,
                )
            )
        return finished

    def _finish(self, command: FinishStepCommand) -> PipelineExecution:
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        latest = self._objects.list_latest(execution_output_prefix(execution_id))
        now = self._clock.now()
        if latest:
            run = self._store.get_run(execution_id, step_id)
            step = run.step(step_id)
            if step.is_terminal:
                return step
            if command.attempt is not None:
                running = run.running_attempt(step_id)
                if running is None or running.attempt != command.attempt:
                    raise AttemptFencedError(
                        f"step {step.pipeline_id} attempt {command.attempt} is not the running "
                        f"attempt: its outputs and result are refused"
                    )
            if not step.end_state:
                # Outputs first: an upsert is safe to repeat if the status write never happens.
                attempt = writing_attempt(run, step_id)
                files = unrecorded_outputs(self._store, self._objects, step, attempt, latest)
                if files:
                    self._store.add_step_outputs(
                        StepOutputs(files=tuple(files), artifacts=artifacts_of(files, now))
                    )
        # Most steps run once, on a run nobody is stopping: the first try needs no read.
        move = plain_finish(
            execution_id, step_id, command.status, command.error, now, command.attempt or 1
        )
        for _ in range(MAX_RACES):
            try:
                finished = self._store.move_step(move)
            except (RunNotOpenError, AttemptNotRunningError):
                finished = None
            if finished is not None:
                return finished
            run = self._store.get_run(execution_id, step_id)
            decided = run.finish_step(step_id, command.status, command.error, now, command.attempt)
            if decided is None:
                return run.step(step_id)
            move = decided
        raise RunContentionError(f"step {step_id}: changed under every finish")
