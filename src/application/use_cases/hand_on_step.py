"""HandOnStep: a step's successful end and the next step's start, as one write (issue 28).

A local runner whose step succeeded goes straight on to the next one: its end and the next start
are one transition of the run, so one write (one transaction, one TransactWriteItems) with the
events of both. Decided without a read first (the common case: nobody else moved the run); a
refused write is read and decided again by the run aggregate: on a run being aborted the step
ends ABORTED and nothing starts, a step ended already is left as it is.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import RunLifecycleStore, RunWriter
from application.ports.system import Clock
from application.run_writes import commit_decided
from application.use_cases.record_cost import (
    RecordAttemptDurations,
    RecordAttemptDurationsCommand,
)
from application.use_cases.step_tracking import FinishStep, FinishStepCommand
from domain.derived import derived
from domain.run import Run, StepMove, first_start, plain_finish
from domain.run_write import RunWrite
from domain.statuses import StepStatus


class HandOnStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str  # the step whose attempt succeeded
    attempt: int = Field(ge=1)
    attempt_started: datetime | None = None  # known to the runner: the duration goes along
    next_pipeline_execution_id: str  # the step that runs next
    # False: the runner knows nothing is stored under the run's output prefix (none to list)
    outputs_stored: bool = True


class HandedOn(BaseModel):
    """The ended step's status as recorded, and the next step's attempt when it started."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    status: StepStatus
    next_attempt: int | None = None
    next_started: datetime | None = None


class HandOnStep:
    def __init__(
        self,
        writer: RunWriter,
        store: RunLifecycleStore,
        finish_step: FinishStep,
        clock: Clock,
        durations: RecordAttemptDurations | None = None,
    ) -> None:
        self._writer, self._store, self._finish = writer, store, finish_step
        self._clock, self._durations = clock, durations

    def execute(self, command: HandOnStepCommand) -> HandedOn:
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        next_id = command.next_pipeline_execution_id
        now = self._clock.now()
        # nothing stored: none to record, and the step's end is decided by the write's guards
        if command.outputs_stored:
            # derived from the valid command (domain.derived): the same ids, attempt and date
            finishing = derived(
                FinishStepCommand,
                workflow_execution_id=execution_id,
                pipeline_execution_id=step_id,
                status=StepStatus.SUCCEEDED,
                attempt=command.attempt,
                attempt_started=command.attempt_started,
            )
            ended = self._finish.record_outputs(finishing, now)
            if ended is not None:
                return HandedOn(status=ended.status)  # ended by another writer: starts nothing
        entries = self._finish.duration_entries(
            execution_id, step_id, command.attempt, command.attempt_started, now
        )
        finish = plain_finish(
            execution_id, step_id, StepStatus.SUCCEEDED, None, now, command.attempt, entries
        )
        first = RunWrite.of(execution_id, moves=(finish, first_start(execution_id, next_id, now)))

        def decide(run: Run) -> RunWrite | None:
            move = run.finish_step(step_id, StepStatus.SUCCEEDED, None, now, command.attempt)
            if move is None:
                return None
            start = run.start_step(next_id, now) if move.status is StepStatus.SUCCEEDED else None
            return RunWrite.of(execution_id, moves=(move,) if start is None else (move, start))

        written, run = commit_decided(
            self._writer, lambda: self._store.get_run(execution_id), decide, first
        )
        self._record_duration(command, finish if written is first else None)
        if written is None:
            assert run is not None  # decide saw the run: the step had ended
            return HandedOn(status=run.step(step_id).status)
        ended_move, *started = written.moves
        assert ended_move.status is not None
        opened = started[0].open_attempt if started else None
        if opened is None:
            return derived(HandedOn, status=ended_move.status)
        return derived(  # the written moves' own values (domain.derived)
            HandedOn,
            status=ended_move.status,
            next_attempt=opened.attempt,
            next_started=opened.start_date,
        )

    def _record_duration(self, command: HandOnStepCommand, carried_by: StepMove | None) -> None:
        if self._durations is None:
            return
        if carried_by is not None and carried_by.cost_entries:
            self._durations.appended(carried_by.cost_entries)
            return
        # decided on a read (or with no start known): recorded after, idempotently
        self._durations.execute(
            RecordAttemptDurationsCommand(
                workflow_execution_id=command.workflow_execution_id,
                pipeline_execution_id=command.pipeline_execution_id,
            )
        )
