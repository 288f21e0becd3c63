"""StartStep / FinishStep: the interim tracking callbacks (NEW -> RUNNING -> terminal)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from application.output_folder import unrecorded_outputs, writing_attempt
from application.ports.executions import RunLifecycleStore
from application.ports.files import ObjectStore
from application.ports.system import Clock
from application.run_writes import commit_decided, with_closed_attempt_duration
from application.use_cases.record_cost import (
    RecordAttemptDurations,
    RecordAttemptDurationsCommand,
)
from domain.costs import CostLedgerEntry
from domain.execution import (
    PipelineExecution,
    StepOutputs,
    artifacts_of,
    execution_output_prefix,
)
from domain.run import AttemptFencedError, Run, StepMove, first_start, plain_finish
from domain.run_write import RunWrite
from domain.statuses import StepStatus, TerminalStepStatus


class StartStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    # the number the caller expects the attempt to take (a redriven step's next, from the
    # attempts its runner was handed): the start is written with no read, and a number already
    # taken refuses it, so a wrong guess is decided again on the run as read
    attempt: int = Field(default=1, ge=1)


class StepState(BaseModel):
    """A step's status after a tracking callback: what the write left (no read back), or the
    row as read when there was nothing to write."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    status: StepStatus

    @classmethod
    def of(cls, step: PipelineExecution) -> StepState:
        return cls(
            workflow_execution_id=step.workflow_execution_id,
            pipeline_execution_id=step.pipeline_execution_id,
            status=step.status,
        )

    @classmethod
    def moved(cls, move: StepMove) -> StepState:
        assert move.status is not None  # a start or a finish moves the step
        return cls(
            workflow_execution_id=move.workflow_execution_id,
            pipeline_execution_id=move.pipeline_execution_id,
            status=move.status,
        )


class StepStarted(BaseModel):
    """The step after a start, and its running attempt (None when the step is no longer
    running: a start never reopens a step)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    step: StepState
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
        found: list[Run] = []  # the run as last read, when a start was not written

        def decide(run: Run) -> RunWrite | None:
            found[:] = [run]
            move = run.start_step(step_id, now)
            return None if move is None else RunWrite.of(execution_id, moves=(move,))

        first = RunWrite.of(
            execution_id, moves=(first_start(execution_id, step_id, now, command.attempt),)
        )
        written, _ = commit_decided(  # most starts are a fresh step's: no read first
            self._store, lambda: self._store.get_run(execution_id, step_id), decide, first
        )
        if written is not None:
            (move,) = written.moves
            opened = move.open_attempt
            assert opened is not None
            return StepStarted(
                step=StepState.moved(move),
                attempt=opened.attempt,
                attempt_started=opened.start_date,
            )
        # started already (a callback delivered twice, or an earlier try of this one that the
        # store kept): the attempt running now, if it is still running
        (run,) = found
        running = run.running_attempt(step_id)
        step = run.step(step_id)
        if running is None or step.status is not StepStatus.RUNNING:
            return StepStarted(step=StepState.of(step))
        return StepStarted(
            step=StepState.of(step), attempt=running.attempt, attempt_started=running.start_date
        )


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

    def execute(self, command: FinishStepCommand) -> StepState:
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

    def _finish(self, command: FinishStepCommand) -> tuple[StepState, bool]:
        """The step after the finish, and whether the attempt's duration was written with it."""
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        now = self._clock.now()
        ended = self.record_outputs(command, now)
        if ended is not None:
            return StepState.of(ended), False
        found: list[Run] = []  # the run as last read
        # Most steps run once, on a run nobody is stopping: the first try needs no read.
        move = plain_finish(
            execution_id,
            step_id,
            command.status,
            command.error,
            now,
            command.attempt or 1,
            self.duration_entries(
                execution_id, step_id, command.attempt, command.attempt_started, now
            ),
        )
        # A write carrying a duration is refused when an earlier delivery recorded it: the
        # decisions after one go without (the duration is recorded after, idempotently).
        carry = not move.cost_entries

        def decide(run: Run) -> RunWrite | None:
            nonlocal carry
            found[:] = [run]
            move = run.finish_step(step_id, command.status, command.error, now, command.attempt)
            if move is None:
                return None
            if self._durations is not None and carry:  # the run read says when it began
                move = with_closed_attempt_duration(self._durations, run, move)
                carry = not move.cost_entries
            return RunWrite.of(execution_id, moves=(move,))

        written, _ = commit_decided(
            self._store,
            lambda: self._store.get_run(execution_id, step_id),
            decide,
            RunWrite.of(execution_id, moves=(move,)),
        )
        if written is None:
            (run,) = found
            return StepState.of(run.step(step_id)), False
        (move,) = written.moves
        if self._durations is not None:
            self._durations.appended(move.cost_entries)
        return StepState.moved(move), bool(move.cost_entries)

    def duration_entries(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int | None,
        started: datetime | None,
        at: datetime,
    ) -> tuple[CostLedgerEntry, ...]:
        """The duration entry of the step's attempt ending at `at`, to write with its close,
        when the caller said which attempt and when it started; none when this process appended
        it already."""
        if self._durations is None or started is None or attempt is None:
            return ()
        entry = self._durations.entry_for(
            workflow_execution_id, pipeline_execution_id, attempt, started, at
        )
        return () if entry is None else (entry,)
