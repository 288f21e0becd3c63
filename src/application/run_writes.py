"""Writing what the run aggregate decides: each decision under its guard, decided again on a
fresh read whenever another writer moved first (DESIGN §3a). `commit_decided` is the loop over
the RunWriter port, which the use cases move to one by one; `write_end` and `end_run` are the
older form over the stores' own write methods."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from application.ports import AttemptNotRunningError, RunLifecycleStore, RunWriter
from domain.execution import PipelineExecution, WorkflowExecution
from domain.run import Run, RunEnd, StepMove
from domain.run_write import RunWrite

if TYPE_CHECKING:
    from application.use_cases.record_cost import RecordAttemptDurations

# Each lost race means another writer moved the run; this many in a row means something is wrong.
MAX_RACES = 20

_LOG = logging.getLogger(__name__)


class RunContentionError(RuntimeError):
    """A run kept changing under a writer: it lost MAX_RACES races in a row."""


def write_end(
    store: RunLifecycleStore,
    end: RunEnd,
    durations: RecordAttemptDurations | None = None,
    run: Run | None = None,
) -> WorkflowExecution | None:
    """The steps first, then the main row: a crash in between leaves the run open, and the next
    read (or lease check) finishes the job. None when the main row's guard turned it down.

    With `durations`, each attempt the end closes gets its duration entry, as a step's finish
    records its own: with the step's move when `run` (as the end was decided on) says when the
    attempt started, else after the main row, whatever its guard said, since the steps' moves
    (and the attempts they close) are written either way."""
    unrecorded: list[StepMove] = []
    for move in end.steps:
        carried = move if durations is None else with_closed_attempt_duration(durations, run, move)
        if _end_step(store, carried) and durations is not None:
            durations.appended(carried.cost_entries)
        elif move.close_attempt is not None:
            unrecorded.append(move)
    stored = store.update_execution(end.change)
    if durations is not None:
        record_end_durations(durations, unrecorded)
    return stored


def _end_step(store: RunLifecycleStore, move: StepMove) -> bool:
    """Write one step's part of an end; True when its duration entries went with it."""
    try:
        store.move_step(move)
        return bool(move.cost_entries)
    except AttemptNotRunningError:
        # its attempt was closed by another writer meanwhile: the step still ends
        store.move_step(replace(move, close_attempt=None, cost_entries=()))
        return False
    except Exception:
        if not move.cost_entries:
            raise
        # the entry recorded already, or the ledger failing: a cost not recorded must not fail
        # the end of a run, so the step ends without it (recorded, or logged, after the run)
        store.move_step(replace(move, cost_entries=()))
        return False


def with_closed_attempt_duration(
    durations: RecordAttemptDurations, run: Run | None, move: StepMove
) -> StepMove:
    """The move with the duration entry of the attempt it closes, when `run` has that attempt."""
    if run is None or move.close_attempt is None or move.stop_date is None:
        return move
    opened = next(
        (
            attempt
            for attempt in run.attempts
            if attempt.pipeline_execution_id == move.pipeline_execution_id
            and attempt.attempt == move.close_attempt
        ),
        None,
    )
    if opened is None:
        return move
    try:
        return durations.carried_by(move, opened.start_date)
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
    """Read the run, ask `decide` how it ends, write that; again on a fresh read whenever the
    write is turned down. The main row as stored at the end (unchanged when `decide` says
    there is nothing to do, as for a run that has ended already)."""
    return end_run_and_steps(store, workflow_execution_id, decide, durations=durations)[0]


def end_run_and_steps(
    store: RunLifecycleStore,
    workflow_execution_id: str,
    decide: Callable[[Run], RunEnd | None],
    first: Run | None = None,
    durations: RecordAttemptDurations | None = None,
) -> tuple[WorkflowExecution, tuple[PipelineExecution, ...]]:
    """end_run, and the steps as the end left them; `first` is the run as the caller has just
    read it (the first decision is taken on it, saving a read)."""
    run = first
    for _ in range(MAX_RACES):
        if run is None:
            run = store.get_run(workflow_execution_id)
        end = decide(run)
        if end is None:
            return run.execution, run.steps
        stored = write_end(store, end, durations, run)
        if stored is not None:
            return stored, _steps_after(run.steps, end)
        run = None
    raise RunContentionError(f"execution {workflow_execution_id}: changed under every write")


def _steps_after(
    steps: tuple[PipelineExecution, ...], end: RunEnd
) -> tuple[PipelineExecution, ...]:
    moves = {move.pipeline_execution_id: move for move in end.steps}
    after = []
    for step in steps:
        move = moves.get(step.pipeline_execution_id)
        if move is not None and move.status is not None:
            step = step._evolve(status=move.status, stop_date=move.stop_date, error=move.error)
        after.append(step)
    return tuple(after)


def commit_decided(
    writer: RunWriter,
    read: Callable[[], Run],
    decide: Callable[[Run], RunWrite | None],
    first: RunWrite | None = None,
) -> tuple[RunWrite | None, Run | None]:
    """The application's read-decide-commit loop: `first` (decided without a read) is committed
    as it is; when it is refused, or there is none, the run is read, `decide` says what to write
    and that is committed, read and decided again on each refusal (another writer moved first).
    The write committed (None when `decide` found nothing to write) and the last run read."""
    write, run = first, None
    for _ in range(MAX_RACES):
        if write is not None and writer.commit(write):
            return write, run
        run = read()
        write = decide(run)
        if write is None:
            return None, run
    raise RunContentionError(f"execution {run.workflow_execution_id if run else '?'}: refused")
