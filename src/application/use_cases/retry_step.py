"""RetryStep: a running step failed and runs again under its retry policy (seed 003)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from application.output_folder import unrecorded_outputs
from application.ports.executions import RunLifecycleStore
from application.ports.files import ObjectStore
from application.ports.system import Clock
from application.run_writes import commit_decided, with_closed_attempt_duration
from application.use_cases.record_cost import (
    RecordAttemptDurations,
    RecordAttemptDurationsCommand,
)
from domain.attempts import TaskExecution
from domain.execution import PipelineExecution, StepOutputs, artifacts_of
from domain.run import Run
from domain.run_write import RunWrite


class RetryStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    error: str | None = None


class RetryStep:
    """Close the step's running attempt FAILED and open the next, in one write; the step stays
    RUNNING.

    With the object store, the files the closing attempt left in the output folder are recorded
    first as its own (seed 003 ARTIFACT): the next attempt may write the same paths again.
    Returns the new attempt, or None when the step is not RUNNING (finished, aborted, or never
    started): a retry never reopens a step. Refused (RunIsStoppingError, RunIsOverError) once an
    abort was requested or the run has ended.
    """

    def __init__(
        self,
        store: RunLifecycleStore,
        clock: Clock,
        durations: RecordAttemptDurations | None = None,
        objects: ObjectStore | None = None,
    ) -> None:
        self._store, self._clock, self._durations = store, clock, durations
        self._objects = objects

    def execute(self, command: RetryStepCommand) -> TaskExecution | None:
        opened, duration_recorded = self._retry(command)
        if self._durations is not None and not duration_recorded:  # the attempt it closed
            self._durations.execute(
                RecordAttemptDurationsCommand(
                    workflow_execution_id=command.workflow_execution_id,
                    pipeline_execution_id=command.pipeline_execution_id,
                )
            )
        return opened

    def _retry(self, command: RetryStepCommand) -> tuple[TaskExecution | None, bool]:
        """The attempt opened, and whether the closed one's duration was written with it."""
        now = self._clock.now()
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        decisions = 0

        def decide(run: Run) -> RunWrite | None:
            nonlocal decisions
            decisions += 1
            move = run.retry_step(step_id, command.error, now)
            if move is None:
                return None
            if decisions == 1 and move.close_attempt is not None:
                # before the close: a write repeated after a lost race records nothing new
                self._record_outputs(run.step(step_id), move.close_attempt, now)
            if self._durations is not None and decisions == 1:
                # later: refused, maybe for an entry an earlier delivery recorded; after then
                move = with_closed_attempt_duration(self._durations, run, move)
            return RunWrite.of(execution_id, moves=(move,))

        written, _ = commit_decided(
            self._store, lambda: self._store.get_run(execution_id, step_id), decide
        )
        if written is None:
            return None, False
        (move,) = written.moves
        if self._durations is not None:
            self._durations.appended(move.cost_entries)
        return move.open_attempt, bool(move.cost_entries)

    def _record_outputs(self, step: PipelineExecution, attempt: int, at: datetime) -> None:
        if self._objects is None:
            return
        files = unrecorded_outputs(self._store, self._objects, step, attempt)
        if files:
            self._store.add_step_outputs(
                StepOutputs(files=tuple(files), artifacts=artifacts_of(files, at))
            )
