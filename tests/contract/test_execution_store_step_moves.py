"""ExecutionStore contract: a step's move committed (RunWriter), its transition and its attempts
as one atomic write under its guards (the step's status, the run open with no abort requested);
a refused guard writes nothing."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from application.ports.costs import CostLedger, CostScope
from application.ports.executions import ExecutionStore
from domain.errors import PipelineExecutionNotFoundError
from domain.execution import PipelineExecution, StepOutputs
from domain.run import Run, RunChange, RunGuard, StepMove
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import (
    a_duration_entry,
    a_launch,
    an_attempt,
    at,
    some_outputs,
    step_id,
    step_row_saved,
    write_change,
    write_launch,
)

NEW = frozenset({StepStatus.NEW})
RUNNING = frozenset({StepStatus.RUNNING})
OPEN = NEW | RUNNING
SID = step_id("e1", 0)


def start(sid: str = SID, number: int = 1, *, while_open: bool = False) -> StepMove:
    return StepMove(
        "e1",
        sid,
        StepStatus.RUNNING,
        NEW,
        start_date=at(1),
        while_open=while_open,
        open_attempt=an_attempt(sid, number),
    )


def finish(
    status: StepStatus = StepStatus.SUCCEEDED,
    attempt: int | None = 1,
    *,
    error: str | None = None,
    while_open: bool = False,
) -> StepMove:
    return StepMove(
        "e1",
        SID,
        status,
        OPEN,
        stop_date=at(2),
        error=error,
        while_open=while_open,
        close_attempt=attempt,
    )


def moved(store: ExecutionStore, move: StepMove) -> PipelineExecution | None:
    """The step as stored once `move` is committed; None when a guard refused it."""
    if not store.commit(RunWrite.of(move.workflow_execution_id, moves=(move,))):
        return None
    return store.get_step(move.pipeline_execution_id)


def request_abort(store: ExecutionStore) -> None:
    change = Run(execution=store.get_execution("e1")).request_abort(at(5), "stop it")
    assert change is not None and write_change(store, change) is not None


# -- the step -------------------------------------------------------------------------------------


def test_a_move_from_an_expected_status_writes_and_returns_the_stored_row(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1", steps=2)
    write_launch(execution_store, records)
    move = StepMove("e1", step_id("e1", 1), StepStatus.RUNNING, NEW, start_date=at(1))

    returned = moved(execution_store, move)

    expected = records.steps[1].model_copy(
        update={"status": StepStatus.RUNNING, "start_date": at(1)}
    )
    assert returned == expected
    assert execution_store.get_step(step_id("e1", 1)) == expected
    assert execution_store.get_step(step_id("e1", 0)) == records.steps[0]


def test_a_move_from_an_unexpected_status_returns_none_and_writes_nothing(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1")
    write_launch(execution_store, records)

    assert moved(execution_store, replace(finish(attempt=None), expected=RUNNING)) is None
    assert execution_store.get_step(SID) == records.steps[0]


def test_a_terminal_step_is_never_moved_and_its_attempts_are_left_alone(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    moved(execution_store, start())
    done = moved(execution_store, finish())
    again = StepMove(
        "e1", SID, StepStatus.ABORTED, OPEN, stop_date=at(3), open_attempt=an_attempt(SID, 2)
    )

    assert moved(execution_store, again) is None
    assert execution_store.get_step(SID) == done
    assert [a.attempt for a in execution_store.list_attempts([SID])] == [1]


def test_a_move_leaves_the_fields_it_does_not_carry_untouched(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    moved(execution_store, start())

    failed = moved(execution_store, finish(StepStatus.FAILED, error="exit 3"))

    assert failed is not None
    assert (failed.status, failed.start_date, failed.stop_date, failed.error) == (
        StepStatus.FAILED,
        at(1),
        at(2),
        "exit 3",
    )
    assert execution_store.get_step(SID) == failed


def test_moving_a_step_of_another_execution_raises_not_found(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1")
    write_launch(execution_store, records)
    write_launch(execution_store, a_launch("e2"))
    wrong_run = StepMove("e2", SID, StepStatus.RUNNING, NEW, start_date=at(1))
    no_step = StepMove("e1", "ghost-step0", StepStatus.RUNNING, NEW, start_date=at(1))

    with pytest.raises(PipelineExecutionNotFoundError, match="e1-step0"):
        moved(execution_store, wrong_run)
    with pytest.raises(PipelineExecutionNotFoundError, match="ghost-step0"):
        moved(execution_store, replace(no_step, open_attempt=an_attempt("ghost-step0", 1)))
    assert execution_store.get_step(SID) == records.steps[0]
    assert execution_store.list_attempts(["ghost-step0"]) == []


# -- its attempts ---------------------------------------------------------------------------------


def test_a_start_writes_the_running_step_and_its_attempt_together(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))

    started = moved(execution_store, start())

    assert started is not None and started.status is StepStatus.RUNNING
    assert execution_store.list_attempts([SID]) == [an_attempt(SID, 1)]


def test_a_start_whose_attempt_number_is_taken_writes_neither(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1")
    write_launch(execution_store, records)
    moved(execution_store, start())
    moved(execution_store, finish(StepStatus.FAILED, error="boom"))
    reset = records.steps[0]  # a redrive puts the step back to NEW; its attempts stay
    assert step_row_saved(execution_store, reset, expected=frozenset({StepStatus.FAILED}))

    assert moved(execution_store, start(number=1)) is None

    assert execution_store.get_step(SID).status is StepStatus.NEW
    assert [a.status for a in execution_store.list_attempts([SID])] == [StepStatus.FAILED]
    assert moved(execution_store, start(number=2)) is not None


def test_a_finish_closes_the_step_and_its_attempt_with_the_same_status(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    moved(execution_store, start())

    moved(execution_store, finish(StepStatus.FAILED, error="exit 3"))

    (attempt,) = execution_store.list_attempts([SID])
    assert (attempt.status, attempt.stop_date, attempt.error) == (
        StepStatus.FAILED,
        at(2),
        "exit 3",
    )


def test_a_succeeded_attempt_keeps_no_error(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1"))
    moved(execution_store, start())

    moved(execution_store, finish(StepStatus.SUCCEEDED, error="ignored"))

    (attempt,) = execution_store.list_attempts([SID])
    assert (attempt.status, attempt.error) == (StepStatus.SUCCEEDED, None)


def test_a_finish_whose_attempt_is_not_running_writes_neither(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    running = moved(execution_store, start())

    assert moved(execution_store, finish(attempt=2)) is None  # attempt 2 was never opened

    assert execution_store.get_step(SID) == running
    assert execution_store.list_attempts([SID]) == [an_attempt(SID, 1)]


def test_a_finish_appends_its_cost_entries_in_the_same_write(
    store_and_ledger: tuple[ExecutionStore, CostLedger],
) -> None:
    store, ledger = store_and_ledger
    write_launch(store, a_launch("e1"))
    moved(store, start())
    duration = a_duration_entry("e1")

    finished = moved(store, replace(finish(), cost_entries=(duration,)))

    assert finished is not None and finished.status is StepStatus.SUCCEEDED
    assert ledger.list_entries(CostScope.EXECUTION, "e1") == [duration]


def test_a_finish_whose_cost_entry_exists_writes_nothing(
    store_and_ledger: tuple[ExecutionStore, CostLedger],
) -> None:
    store, ledger = store_and_ledger
    write_launch(store, a_launch("e1"))
    running = moved(store, start())
    earlier = a_duration_entry("e1")
    ledger.append([earlier])
    again = replace(earlier, quantity=Decimal("9"))

    assert moved(store, replace(finish(), cost_entries=(again,))) is None

    assert store.get_step(SID) == running
    assert store.list_attempts([SID]) == [an_attempt(SID, 1)]
    assert ledger.list_entries(CostScope.EXECUTION, "e1") == [earlier]


def test_a_retry_closes_one_attempt_and_opens_the_next_leaving_the_step_running(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    running = moved(execution_store, start())
    retry = StepMove(
        "e1",
        SID,
        None,
        RUNNING,
        stop_date=at(2),
        error="flaky",
        open_attempt=an_attempt(SID, 2, minutes=2),
        close_attempt=1,
        close_status=StepStatus.FAILED,
    )

    returned = moved(execution_store, retry)

    assert returned == running
    first, second = execution_store.list_attempts([SID])
    assert (first.status, first.error, second.status) == (
        StepStatus.FAILED,
        "flaky",
        StepStatus.RUNNING,
    )


def test_a_move_that_only_touches_attempts_still_needs_the_expected_status(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1"))
    only_attempts = StepMove("e1", SID, None, RUNNING, open_attempt=an_attempt(SID, 1))

    assert moved(execution_store, only_attempts) is None  # the step is NEW, not RUNNING
    assert execution_store.list_attempts([SID]) == []


# -- the run's guard ------------------------------------------------------------------------------


def test_a_move_while_open_is_written_on_an_open_run(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1"))

    assert moved(execution_store, start(while_open=True)) is not None


def test_a_move_while_open_is_refused_once_an_abort_is_requested(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1", steps=2)
    write_launch(execution_store, records)
    moved(execution_store, start())
    request_abort(execution_store)

    assert moved(execution_store, finish(while_open=True)) is None
    assert moved(execution_store, start(step_id("e1", 1), while_open=True)) is None

    assert execution_store.get_step(SID).status is StepStatus.RUNNING
    assert execution_store.get_step(step_id("e1", 1)) == records.steps[1]
    assert execution_store.list_attempts([SID, step_id("e1", 1)]) == [an_attempt(SID, 1)]
    # a move that does not need the run open still is written: the abort itself closes steps
    aborted = moved(execution_store, finish(StepStatus.ABORTED, error="wfx.Aborted"))
    assert aborted is not None and aborted.status is StepStatus.ABORTED


def test_a_move_while_open_is_refused_on_an_ended_run(execution_store: ExecutionStore) -> None:
    write_launch(execution_store, a_launch("e1"))
    execution = execution_store.get_execution("e1")
    ended = execution.complete(ExecutionStatus.FAILED, at=at(3), log="", error="lost")
    write_change(execution_store, RunChange(execution, ended, RunGuard()))

    assert moved(execution_store, start(while_open=True)) is None
    assert execution_store.list_attempts([SID]) == []


# -- reads of one run -----------------------------------------------------------------------------


def test_get_run_has_the_main_row_the_steps_and_their_attempts(
    execution_store: ExecutionStore,
) -> None:
    records = a_launch("e1", steps=2)
    write_launch(execution_store, records)
    moved(execution_store, start())

    whole = execution_store.get_run("e1")
    one = execution_store.get_run("e1", step_id("e1", 1))

    assert whole.execution == records.execution
    assert [s.pipeline_execution_id for s in whole.steps] == [SID, step_id("e1", 1)]
    assert whole.attempts == (an_attempt(SID, 1),)
    assert one.steps == (records.steps[1],) and one.attempts == ()


def test_details_without_outputs_have_every_other_record_and_empty_outputs(
    execution_store: ExecutionStore,
) -> None:
    write_launch(execution_store, a_launch("e1", steps=2))
    execution_store.add_step_outputs(some_outputs("e1", 0))
    execution_store.add_step_outputs(some_outputs("e1", 1))
    full = execution_store.get_details("e1")

    narrow = execution_store.get_details("e1", include_outputs=False)

    assert all(step.outputs != StepOutputs() for step in full.steps)
    assert all(step.outputs == StepOutputs() for step in narrow.steps)
    without_outputs = [step.model_copy(update={"outputs": StepOutputs()}) for step in full.steps]
    assert sorted(narrow.steps, key=str) == sorted(without_outputs, key=str)
    assert (narrow.execution, narrow.configuration) == (full.execution, full.configuration)
    assert sorted(narrow.inputs, key=str) == sorted(full.inputs, key=str)


def test_get_configuration_returns_the_launch_configuration(
    execution_store: ExecutionStore,
) -> None:
    written = a_launch("written", output_asset="db1:asset1")
    results = a_launch("results", output_asset=None, inputs=())
    write_launch(execution_store, written)
    write_launch(execution_store, results)

    assert execution_store.get_configuration("written") == written.configuration
    stored = execution_store.get_configuration("results")
    assert stored == results.configuration
    assert stored is not None and stored.output_asset_key is None
    assert execution_store.get_configuration("nope") is None
