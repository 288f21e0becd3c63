"""StartStep / FinishStep: the interim tracking callbacks (NEW -> RUNNING -> terminal)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

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
from application.run_writes import MAX_RACES, RunContentionError, with_closed_attempt_duration
from application.use_cases.record_cost import (
    RecordAttemptDurations,
    RecordAttemptDurationsCommand,
)
from domain.costs import CostEntryExistsError
from domain.execution import (
    PipelineExecution,
    StepOutputs,
    artifacts_of,
    execution_output_prefix,
)
from domain.run import AttemptFencedError, StepMove, first_start, plain_finish
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
    attempt_started: datetime | None = None  # when the running attempt started


class FinishStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    status: TerminalStepStatus
    error: str | None = None
    # The attempt that ran, when the caller knows it: a result for an attempt that is no
    # longer the running one is refused (fencing). Without it, the running attempt closes.
    attempt: int | None = Field(default=None, ge=1)
    # When that attempt started, when the caller knows it (a runner that started it): its
    # duration entry is then written with the finish itself, with no read of the attempt.
    attempt_started: datetime | None = None


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
                opened = move.open_attempt
                assert opened is not None
                return StepStarted(
                    step=started, attempt=opened.attempt, attempt_started=opened.start_date
                )
            run = self._store.get_run(execution_id, step_id)
            decided = run.start_step(step_id, now)
            if decided is None:
                # started already (a callback delivered twice, or an earlier try of this one
                # that the store kept): the attempt running now, if it is still running
                running = run.running_attempt(step_id)
                step = run.step(step_id)
                if running is None or step.status is not StepStatus.RUNNING:
                    return StepStarted(step=step)
                return StepStarted(
                    step=step, attempt=running.attempt, attempt_started=running.start_date
                )
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
        finished, duration_recorded = self._finish(command)
        if self._durations is not None and not duration_recorded:
            # on every path, the repeat of a finish too: what a failed recording missed is
            # recorded when the callback is delivered again (the recording is idempotent)
            self._durations.execute(
                RecordAttemptDurationsCommand(
                    workflow_execution_id=command.workflow_execution_id,
                    pipeline_execution_id=command.pipeline_execution_id,
                )
            )
        return finished

    def record_outputs(self, command: FinishStepCommand, now: datetime) -> PipelineExecution | None:
        """The files the step added to the output folder, recorded before its end is (an upsert
        is safe to repeat if the end is never written); the step when it has ended already
        (nothing to record, nor to end). AttemptFencedError for an attempt no longer running."""
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        latest = self._objects.list_latest(execution_output_prefix(execution_id))
        if not latest:
            return None
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
            attempt = writing_attempt(run, step_id)
            files = unrecorded_outputs(self._store, self._objects, step, attempt, latest)
            if files:
                self._store.add_step_outputs(
                    StepOutputs(files=tuple(files), artifacts=artifacts_of(files, now))
                )
        return None

    def _finish(self, command: FinishStepCommand) -> tuple[PipelineExecution, bool]:
        """The step as stored, and whether the attempt's duration was written with it."""
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        now = self._clock.now()
        ended = self.record_outputs(command, now)
        if ended is not None:
            return ended, False
        # Most steps run once, on a run nobody is stopping: the first try needs no read.
        move = self.carrying_duration(
            command,
            plain_finish(
                execution_id, step_id, command.status, command.error, now, command.attempt or 1
            ),
        )
        with_duration = True
        for _ in range(MAX_RACES):
            try:
                finished = self._store.move_step(move)
            except (RunNotOpenError, AttemptNotRunningError):
                finished = None
            except CostEntryExistsError:  # recorded by an earlier delivery: the move without it
                move, with_duration = replace(move, cost_entries=()), False
                continue
            if finished is not None:
                if self._durations is not None:
                    self._durations.appended(move.cost_entries)
                return finished, bool(move.cost_entries)
            run = self._store.get_run(execution_id, step_id)
            decided = run.finish_step(step_id, command.status, command.error, now, command.attempt)
            if decided is None:
                return run.step(step_id), False
            move = decided
            if self._durations is not None and with_duration:  # the run read says when it began
                move = with_closed_attempt_duration(self._durations, run, move)
        raise RunContentionError(f"step {step_id}: changed under every finish")

    def carrying_duration(self, command: FinishStepCommand, move: StepMove) -> StepMove:
        """The move with the attempt's duration entry, when the caller said when it started."""
        started = command.attempt_started
        if self._durations is None or started is None or command.attempt is None:
            return move
        return self._durations.carried_by(move, started)
