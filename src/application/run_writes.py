"""Writing what the run aggregate decides: each decision under its guard, decided again on a
fresh read whenever another writer moved first (DESIGN §3a). `commit_decided` is the loop over
the RunWriter port; `end_run` ends a run through it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from application.ports.executions import (
    Refused,
    RunLifecycleStore,
    RunStore,
    RunWriter,
    refused_main_row,
)
from application.step_summaries import SUMMARIES_IN_THE_END_WRITE
from domain.contention import pause_before_retry
from domain.execution import PipelineExecution, StepLog, StepOutputs, WorkflowExecution
from domain.run import Run, RunEnd, StepMove
from domain.run_write import RunWrite, VersionedStep

if TYPE_CHECKING:
    from application.use_cases.record_cost import RecordAttemptDurations

# Each lost race means another writer moved the run; this many in a row means something is wrong.
MAX_RACES = 20
# The steps one write of a run's end closes at most: each is up to five items (the step, its
# attempt, a duration entry, two events), and DynamoDB's transaction holds 100.
MOVES_PER_WRITE = 16
# The end's last part carries the steps' summaries (SUMMARIES_IN_THE_END_WRITE at most) when it
# closes no more than this many: 14 moves of five items, 25 summaries, the main row and its event.
MOVES_WITH_THE_SUMMARIES = 14

_LOG = logging.getLogger(__name__)
# what a decision reads: the run, or only what it guards (a step's row with its version)
Read = TypeVar("Read", Run, VersionedStep)
# the steps' summary logs of a run's end, from its steps as the end leaves them
Summaries = Callable[[tuple[PipelineExecution, ...]], tuple[StepLog, ...]]


class RunContentionError(RuntimeError):
    """A run kept changing under a writer: it lost MAX_RACES races in a row."""


def main_row_after(
    store: RunStore, workflow_execution_id: str, refusal: bool | Refused
) -> WorkflowExecution:
    """The main row after a refused write: as the refusal said it (RunWriter.commit's answer:
    the row as stored when its guard refused), else read."""
    said = refused_main_row(refusal)
    return store.get_execution(workflow_execution_id) if said is None else said


def with_closed_attempt_duration(
    durations: RecordAttemptDurations, run: Run | None, move: StepMove
) -> StepMove:
    """The move with the duration entry of the attempt it closes, when `run` has that attempt."""
    return _carried(durations, _attempt_starts(run), move, None if run is None else run.execution)


def with_closed_attempt_durations(
    durations: RecordAttemptDurations, run: Run, moves: tuple[StepMove, ...]
) -> tuple[StepMove, ...]:
    """Each move with the duration entry of the attempt it closes, when `run` has that attempt:
    the run's attempts looked through once for them all, not once a move."""
    starts = _attempt_starts(run)
    return tuple(_carried(durations, starts, move, run.execution) for move in moves)


def _attempt_starts(run: Run | None) -> dict[tuple[str, int], datetime]:
    """Each attempt's start by (step, attempt number); the first of a number, as read."""
    attempts = () if run is None else reversed(run.attempts)
    return {(a.pipeline_execution_id, a.attempt): a.start_date for a in attempts}


def _carried(
    durations: RecordAttemptDurations,
    starts: dict[tuple[str, int], datetime],
    move: StepMove,
    execution: WorkflowExecution | None,
) -> StepMove:
    """`execution`: the main row the move was decided on (a cost context not kept yet is read
    without it)."""
    if move.close_attempt is None or move.stop_date is None:
        return move
    started = starts.get((move.pipeline_execution_id, move.close_attempt))
    if started is None:
        return move
    try:
        return durations.carried_by(move, started, execution)
    except Exception:
        return move  # pricing or the run's cost context failing: recorded after, or logged


def record_end_durations(durations: RecordAttemptDurations, moves: Sequence[StepMove]) -> None:
    """The duration entry of each attempt these moves of an end close (idempotent: entries are
    named by their attempt). Never raises: the run has ended whatever the ledger says."""
    # imported here: the cost ledger's models are no concern of a read that ends no run
    from application.use_cases.record_cost import RecordAttemptDurationsCommand

    for move in moves:
        if move.close_attempt is None:
            continue  # a step that never started has no attempt to charge
        command = RecordAttemptDurationsCommand(
            workflow_execution_id=move.workflow_execution_id,
            pipeline_execution_id=move.pipeline_execution_id,
        )
        try:
            durations.execute(command)
        except Exception:  # a cost not recorded must not fail the end of a run
            _LOG.warning(
                "execution %s step %s: the duration of attempt %s was not recorded",
                move.workflow_execution_id,
                move.pipeline_execution_id,
                move.close_attempt,
                exc_info=True,
            )


def end_run(
    store: RunLifecycleStore,
    workflow_execution_id: str,
    decide: Callable[[Run], RunEnd | None],
    durations: RecordAttemptDurations | None = None,
) -> WorkflowExecution:
    """Read the run, ask `decide` how it ends, commit that; again on a fresh read whenever the
    write is refused. The main row as stored at the end (unchanged when `decide` says there is
    nothing to do, as for a run that has ended already)."""
    return end_run_and_steps(store, workflow_execution_id, decide, durations=durations)[0]


def end_run_and_steps(
    store: RunLifecycleStore,
    workflow_execution_id: str,
    decide: Callable[[Run], RunEnd | None],
    first: Run | None = None,
    durations: RecordAttemptDurations | None = None,
    summaries: Summaries | None = None,
    main_row_first: bool = False,
) -> tuple[WorkflowExecution, tuple[PipelineExecution, ...]]:
    """end_run, and the steps as the end left them; `first` is the run as the caller has just
    read it (the first decision is taken on it, saving a read). `main_row_first`: after a
    refusal the main row is read alone first, and when another writer ended the run that row
    is the answer, with no steps (for a caller that needs none: an abort, whose runner's end
    most often comes first).

    The end is one write: the open steps closed, with their attempts and the attempts'
    duration entries, and the main row, with the steps' `summaries` when given. A run with more
    open steps than one write holds ends in parts, the steps first and the main row with the
    last part: a crash in between leaves the run open, and the next read (or lease check)
    finishes the job. Summaries that do not fit the last part are written after it."""
    ending = _Ending(store, workflow_execution_id, decide, durations, summaries)

    def read() -> Run:
        if main_row_first:
            said = ending.refused_main_row  # as the refusal said it: no read
            execution = store.get_execution(workflow_execution_id) if said is None else said
            if execution.is_terminal:
                return Run(execution=execution)  # ended: decided to nothing on it
        return store.get_run(workflow_execution_id)

    write = None if first is None else ending.decide(first)
    if first is not None and write is None:
        return first.execution, first.steps
    while True:
        written, last = commit_decided(ending, read, ending.decide, write)
        if written is None:
            assert last is not None  # nothing written: decided on a run it read
            return last.execution, last.steps
        ending.written()
        if written.change is not None:
            steps = ending.ended().steps
            logs = () if summaries is None or written.step_logs else summaries(steps)
            if logs:  # too many for the last part: after it
                store.add_step_outputs(StepOutputs(logs=logs))
            return written.change.after, steps
        write = ending.following()


class _Ending:
    """The decisions of one end: each decided once, on a run read, and written in parts of
    MOVES_PER_WRITE moves (again from a fresh read whenever a part is refused). Each part
    carries the duration entries of the attempts it closes unless it follows a refusal (a
    refusal may be an entry recorded meanwhile: the durations are recorded after the write
    then). Deciding again on the run as each part left it would repeat the whole decision for
    every part: quadratic in the open steps."""

    def __init__(
        self,
        writer: RunWriter,
        workflow_execution_id: str,
        decide: Callable[[Run], RunEnd | None],
        durations: RecordAttemptDurations | None,
        summaries: Summaries | None = None,
    ) -> None:
        self._writer, self._id, self._decide = writer, workflow_execution_id, decide
        self._durations, self._summaries = durations, summaries
        self._carry = durations is not None
        self._decided_on: Run | None = None
        self._end: RunEnd | None = None
        self._starts: dict[tuple[str, int], datetime] = {}
        self._next = 0  # the first of the end's moves not in a part yet
        self._written: list[StepMove] = []  # the moves written since the decision
        self._committed: RunWrite | None = None
        # the main row as stored, as the last refusal said it (None: it said none)
        self.refused_main_row: WorkflowExecution | None = None

    def commit(self, write: RunWrite) -> bool | Refused:
        """RunWriter: `write`; when it fails carrying duration entries (the ledger failing), the
        write without them - a cost not recorded must not fail the end of a run (recorded, or
        logged, after it). The main row a refusal says is kept for the read after it."""
        try:
            written = self._writer.commit(write)
        except Exception:
            if not any(move.cost_entries for move in write.moves):
                raise
            moves = tuple(replace(move, cost_entries=()) for move in write.moves)
            write = replace(write, moves=moves)
            written = self._writer.commit(write)
        self._committed = write
        self.refused_main_row = refused_main_row(written)
        return written

    def decide(self, run: Run) -> RunWrite | None:
        """The first part of the end decided on `run` (None: nothing to end)."""
        end = self._decide(run)
        if end is None:
            return None
        self._decided_on, self._end, self._next, self._written = run, end, 0, []
        self._starts = _attempt_starts(run) if self._durations is not None else {}
        return self.following()

    def following(self) -> RunWrite:
        """The next part of the decided end: the main row's change with the last."""
        end = self._end
        assert end is not None  # a part follows a decision
        moves = end.steps[self._next : self._next + MOVES_PER_WRITE]
        self._next += len(moves)
        if self._durations is not None and self._carry:
            execution = None if self._decided_on is None else self._decided_on.execution
            moves = tuple(
                _carried(self._durations, self._starts, move, execution) for move in moves
            )
        self._carry = False
        if self._next < len(end.steps):  # the steps first; the main row with the last part
            return RunWrite.of(self._id, moves=moves)
        return RunWrite.of(self._id, moves=moves, change=end.change, step_logs=self._logs(moves))

    def _logs(self, moves: tuple[StepMove, ...]) -> tuple[StepLog, ...]:
        """The steps' summaries when they go with the last part: the run's steps as the whole
        end leaves them."""
        run, end = self._decided_on, self._end
        assert run is not None and end is not None  # a part follows a decision
        fits = len(run.steps) <= SUMMARIES_IN_THE_END_WRITE
        if self._summaries is None or not fits or len(moves) > MOVES_WITH_THE_SUMMARIES:
            return ()
        return self._summaries(run.moved_all(end.steps).steps)

    def written(self) -> None:
        """The part committed: its durations recorded."""
        committed = self._committed
        assert committed is not None  # called once a write was committed
        if self._durations is not None:
            for move in committed.moves:
                if move.cost_entries:
                    self._durations.appended(move.cost_entries)
            record_end_durations(
                self._durations, [move for move in committed.moves if not move.cost_entries]
            )
        self._carry = self._durations is not None
        self._written.extend(committed.moves)

    def ended(self) -> Run:
        """The run as the end's writes left it (its main row as decided on)."""
        run = self._decided_on
        assert run is not None  # a write committed was decided on a run
        return run.moved_all(self._written)


def commit_decided(
    writer: RunWriter,
    read: Callable[[], Read],
    decide: Callable[[Read], RunWrite | None],
    first: RunWrite | None = None,
    said: Callable[[WorkflowExecution], Read] | None = None,
) -> tuple[RunWrite | None, Read | None]:
    """The application's read-decide-commit loop: `first` (decided without a read) is committed
    as it is; when it is refused, or there is none, the run is read, `decide` says what to write
    and that is committed, read and decided again on each refusal (another writer moved first).
    `said`, for a caller that decides on the main row alone: the run to decide on from the row a
    refusal says (RunWriter.commit's answer), read only when it says none. The write committed
    (None when `decide` found nothing to write) and the last run read."""
    write: RunWrite | None = first
    last: Read | None = None
    for races in range(MAX_RACES):
        answer = False if write is None else writer.commit(write)
        if answer:
            return write, last
        if races:  # refused though decided on a fresh read: others write this run at once
            pause_before_retry(races)
        row = refused_main_row(answer)
        last = said(row) if said is not None and row is not None else read()
        write = decide(last)
        if write is None:
            return None, last
    refused = write.workflow_execution_id if write is not None else "?"
    raise RunContentionError(f"execution {refused}: refused")
