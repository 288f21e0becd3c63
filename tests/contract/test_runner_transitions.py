"""The local runner's transitions, one write each, on every store: the lease with the first
step's start (RunnerLease.take_and_start), a step's success and the
next step's start (HandOnStep), the last step's success and the run's end with the summaries
(CompleteExecution.finish_last_step); decided again on a read when refused, so a run being
aborted starts nothing more and ends ABORTED, and a step or run ended already is left as it is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.system import SystemClock
from application.step_summaries import SUMMARIES_IN_THE_END_WRITE, StepSummaries
from application.use_cases.complete_execution import (
    CompleteExecution,
    CompleteExecutionCommand,
    FinishLastStepCommand,
)
from application.use_cases.hand_on_step import HandOnStep, HandOnStepCommand
from application.use_cases.runner_lease import RunnerLease
from application.use_cases.step_tracking import FinishStep, StartStep, StartStepCommand
from domain.execution import StepOutputs
from domain.run import AttemptFencedError, Run, as_its_runner_knows, first_start, plain_finish
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import (
    a_completion,
    a_launch,
    at,
    step_id,
    summaries_of,
    write_launch,
)

FIRST, SECOND = step_id("e1", 0), step_id("e1", 1)


@pytest.fixture
def hand_on(execution_store: Any, tmp_path: Path) -> HandOnStep:
    clock = SystemClock()
    objects = FilesystemObjectStore(tmp_path / "objects")
    write_launch(execution_store, a_launch("e1", steps=2))
    StartStep(execution_store, clock).execute(
        StartStepCommand(workflow_execution_id="e1", pipeline_execution_id=FIRST)
    )
    finish = FinishStep(execution_store, objects, clock)
    return HandOnStep(execution_store, execution_store, finish, clock)


def command(attempt: int = 1) -> HandOnStepCommand:
    return HandOnStepCommand(
        workflow_execution_id="e1",
        pipeline_execution_id=FIRST,
        attempt=attempt,
        next_pipeline_execution_id=SECOND,
    )


def step_statuses(store: Any) -> list[StepStatus]:
    return [step.status for step in sorted(store.list_steps("e1"), key=lambda s: s.step_index)]


def test_the_step_ends_and_the_next_one_starts(execution_store: Any, hand_on: HandOnStep) -> None:
    handed = hand_on.execute(command())
    assert (handed.status, handed.next_attempt) == (StepStatus.SUCCEEDED, 1)
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.RUNNING]
    assert [a.status for a in execution_store.get_run("e1").attempts] == [
        StepStatus.SUCCEEDED,
        StepStatus.RUNNING,
    ]


def test_on_a_run_being_aborted_the_step_ends_aborted_and_nothing_starts(
    execution_store: Any, hand_on: HandOnStep
) -> None:
    abort = execution_store.get_run("e1").request_abort(at(1), "stop")
    assert execution_store.commit(RunWrite.of("e1", change=abort))
    handed = hand_on.execute(command())
    assert (handed.status, handed.next_attempt) == (StepStatus.ABORTED, None)
    assert step_statuses(execution_store) == [StepStatus.ABORTED, StepStatus.NEW]


def test_a_repeated_hand_on_leaves_both_steps_as_the_first_left_them(
    execution_store: Any, hand_on: HandOnStep
) -> None:
    hand_on.execute(command())
    again = hand_on.execute(command())
    assert (again.status, again.next_attempt) == (StepStatus.SUCCEEDED, None)
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.RUNNING]
    assert len(execution_store.get_run("e1").attempts) == 2


def test_a_result_of_an_attempt_that_is_not_running_is_refused(
    execution_store: Any, hand_on: HandOnStep
) -> None:
    with pytest.raises(AttemptFencedError):
        hand_on.execute(command(attempt=2))
    assert step_statuses(execution_store) == [StepStatus.RUNNING, StepStatus.NEW]


@pytest.fixture
def completion(execution_store: Any, hand_on: HandOnStep, tmp_path: Path) -> CompleteExecution:
    """The run's second (last) step running, and the completion that ends it."""
    hand_on.execute(command())
    return a_completion(execution_store, tmp_path)


def last_step() -> FinishLastStepCommand:
    return FinishLastStepCommand(
        workflow_execution_id="e1", pipeline_execution_id=SECOND, attempt=1
    )


def test_the_last_step_and_the_run_end_in_one_write_with_the_summaries(
    execution_store: Any, completion: CompleteExecution
) -> None:
    finished = completion.finish_last_step(last_step())
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.SUCCEEDED,
        ExecutionStatus.SUCCEEDED,
    )
    assert finished.execution == execution_store.get_execution("e1")
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.SUCCEEDED]
    assert summaries_of(execution_store, "e1") == {FIRST: "SUCCEEDED", SECOND: "SUCCEEDED"}


def test_on_a_run_being_aborted_the_last_step_and_the_run_end_aborted(
    execution_store: Any, completion: CompleteExecution
) -> None:
    abort = execution_store.get_run("e1").request_abort(at(1), "stop")
    assert execution_store.commit(RunWrite.of("e1", change=abort))
    finished = completion.finish_last_step(last_step())
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.ABORTED,
        ExecutionStatus.ABORTED,
    )
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.ABORTED]


def as_the_runner_knows(store: Any) -> FinishLastStepCommand:
    run = store.get_run("e1")
    running = run.running_attempt(SECOND)
    assert running is not None
    known = as_its_runner_knows(run.execution, run.steps, SECOND, 1, running.start_date)
    return last_step().model_copy(update={"known": known})


def test_the_last_finish_decided_on_the_run_as_its_runner_knows_it_ends_the_run(
    execution_store: Any, completion: CompleteExecution
) -> None:
    finished = completion.finish_last_step(as_the_runner_knows(execution_store))
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.SUCCEEDED,
        ExecutionStatus.SUCCEEDED,
    )
    assert finished.execution == execution_store.get_execution("e1")
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.SUCCEEDED]


def test_an_abort_the_runner_does_not_know_of_still_ends_the_run_aborted(
    execution_store: Any, completion: CompleteExecution
) -> None:
    command = as_the_runner_knows(execution_store)
    abort = execution_store.get_run("e1").request_abort(at(1), "stop")
    assert execution_store.commit(RunWrite.of("e1", change=abort))
    finished = completion.finish_last_step(command)  # refused by the guard, decided on a read
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.ABORTED,
        ExecutionStatus.ABORTED,
    )
    assert step_statuses(execution_store) == [StepStatus.SUCCEEDED, StepStatus.ABORTED]


def test_a_repeated_last_finish_leaves_the_ended_run_as_it_is(
    execution_store: Any, completion: CompleteExecution
) -> None:
    first = completion.finish_last_step(last_step())
    again = completion.finish_last_step(last_step())
    assert again.execution == first.execution
    assert again.step_status is StepStatus.SUCCEEDED


def test_the_lease_and_the_first_start_are_one_write(execution_store: Any) -> None:
    write_launch(execution_store, a_launch("e2", steps=2))
    lease = RunnerLease(execution_store, SystemClock(), 30)
    launched = execution_store.get_execution("e2")
    leased, attempt = lease.take_and_start("e2", "runner-1", launched, step_id("e2", 0))
    assert attempt == 1 and leased is not None
    assert leased == execution_store.get_execution("e2")  # no read back: as the write left it
    assert leased.runner_lease is not None and leased.runner_lease.owner == "runner-1"
    steps = sorted(execution_store.list_steps("e2"), key=lambda s: s.step_index)
    assert [s.status for s in steps] == [StepStatus.RUNNING, StepStatus.NEW]


def test_on_a_run_being_aborted_the_lease_is_taken_and_nothing_starts(execution_store: Any) -> None:
    write_launch(execution_store, a_launch("e2", steps=2))
    launched = execution_store.get_execution("e2")
    abort = execution_store.get_run("e2").request_abort(at(1), "stop")
    assert execution_store.commit(RunWrite.of("e2", change=abort))
    lease = RunnerLease(execution_store, SystemClock(), 30)
    leased, attempt = lease.take_and_start("e2", "runner-1", launched, step_id("e2", 0))
    assert attempt is None and leased is not None and leased.is_stopping
    assert {s.status for s in execution_store.list_steps("e2")} == {StepStatus.NEW}


def test_a_chain_too_long_for_one_write_gets_its_summaries_after_it(
    execution_store: Any, tmp_path: Path
) -> None:
    length = SUMMARIES_IN_THE_END_WRITE + 1
    write_launch(execution_store, a_launch("e3", steps=length))
    for index in range(length):
        sid = step_id("e3", index)
        moves = [first_start("e3", sid, at(index))]
        if index:
            before = step_id("e3", index - 1)
            moves.insert(0, plain_finish("e3", before, StepStatus.SUCCEEDED, None, at(index), 1))
        assert execution_store.commit(RunWrite.of("e3", moves=tuple(moves)))
    completion = a_completion(execution_store, tmp_path)
    finished = completion.finish_last_step(
        FinishLastStepCommand(
            workflow_execution_id="e3", pipeline_execution_id=step_id("e3", length - 1), attempt=1
        )
    )
    assert finished.execution.status is ExecutionStatus.SUCCEEDED
    details = execution_store.get_details("e3")
    assert sum(len(step.outputs.logs) for step in details.steps) == length


def test_a_last_step_ended_already_still_ends_its_run(
    execution_store: Any, completion: CompleteExecution
) -> None:
    finish = plain_finish("e1", SECOND, StepStatus.SUCCEEDED, None, at(2), 1)
    assert execution_store.commit(RunWrite.of("e1", moves=(finish,)))
    finished = completion.finish_last_step(last_step())
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.SUCCEEDED,
        ExecutionStatus.SUCCEEDED,
    )
    assert execution_store.get_execution("e1").status is ExecutionStatus.SUCCEEDED


class CountedWrites:
    """The store, counting its writes: the commits, and the summaries written apart from them;
    `before_commit` runs before the next commit (another writer moving first)."""

    def __init__(self, store: Any) -> None:
        self.store, self.commits, self.summaries, self.reads = store, 0, 0, 0
        self.main_rows = 0
        self.before_commit: Callable[[], None] | None = None

    def get_run(self, *args: Any) -> Any:
        self.reads += 1
        return self.store.get_run(*args)

    def get_execution(self, *args: Any) -> Any:
        self.main_rows += 1
        return self.store.get_execution(*args)

    def commit(self, write: RunWrite) -> bool:
        self.commits += 1
        before, self.before_commit = self.before_commit, None
        if before is not None:
            before()
        return bool(self.store.commit(write))

    def add_step_outputs(self, outputs: StepOutputs) -> None:
        self.summaries += bool(outputs.logs)
        self.store.add_step_outputs(outputs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


@pytest.fixture
def first_running(execution_store: Any, tmp_path: Path) -> tuple[CountedWrites, CompleteExecution]:
    """The run's first of two steps running, and the completion its failure ends it through,
    counting the store's writes."""
    write_launch(execution_store, a_launch("e1", steps=2))
    StartStep(execution_store, SystemClock()).execute(
        StartStepCommand(workflow_execution_id="e1", pipeline_execution_id=FIRST)
    )
    counted = CountedWrites(execution_store)
    return counted, a_completion(counted, tmp_path)


def first_ended(status: StepStatus, error: str | None, attempt: int = 1) -> FinishLastStepCommand:
    return FinishLastStepCommand(
        workflow_execution_id="e1",
        pipeline_execution_id=FIRST,
        attempt=attempt,
        status=status,
        error=error,
    )


@pytest.mark.parametrize(
    ("status", "ended"),
    [
        (StepStatus.FAILED, ExecutionStatus.FAILED),
        (StepStatus.TIMED_OUT, ExecutionStatus.TIMED_OUT),
    ],
)
def test_a_step_that_fails_ends_with_the_run_in_one_write_with_the_summaries(
    execution_store: Any,
    first_running: tuple[CountedWrites, CompleteExecution],
    status: StepStatus,
    ended: ExecutionStatus,
) -> None:
    counted, completion = first_running
    finished = completion.finish_last_step(first_ended(status, "boom"))
    assert (finished.step_status, finished.execution.status) == (status, ended)
    assert (counted.commits, counted.summaries) == (1, 0)  # the summaries in the one write
    assert finished.execution == execution_store.get_execution("e1")
    assert finished.execution.execution_error == "boom"
    assert step_statuses(execution_store) == [status, StepStatus.NEW]  # never started: NEW
    (attempt,) = execution_store.get_run("e1").attempts
    assert attempt.status is status and attempt.stop_date is not None
    # one decision, one moment (the main row keeps whole seconds)
    assert attempt.stop_date.replace(microsecond=0) == finished.execution.execution_stop_date
    assert summaries_of(execution_store, "e1") == {FIRST: status.value, SECOND: "NEW"}


def test_an_interrupted_step_ends_aborted_with_its_run_and_the_steps_after_it(
    execution_store: Any, first_running: tuple[CountedWrites, CompleteExecution]
) -> None:
    counted, completion = first_running
    finished = completion.finish_last_step(first_ended(StepStatus.ABORTED, "interrupted"))
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.ABORTED,
        ExecutionStatus.ABORTED,
    )
    assert counted.commits == 1
    assert step_statuses(execution_store) == [StepStatus.ABORTED, StepStatus.ABORTED]
    assert {step.error for step in execution_store.list_steps("e1")} == {"interrupted"}


def test_an_abort_requested_after_the_read_refuses_the_failure_then_both_end_aborted(
    execution_store: Any, first_running: tuple[CountedWrites, CompleteExecution]
) -> None:
    counted, completion = first_running

    def abort() -> None:
        requested = execution_store.get_run("e1").request_abort(at(1), "stop")
        assert execution_store.commit(RunWrite.of("e1", change=requested))

    counted.before_commit = abort
    finished = completion.finish_last_step(first_ended(StepStatus.FAILED, "boom"))
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.ABORTED,
        ExecutionStatus.ABORTED,
    )
    assert counted.commits == 2  # the failure refused by the run's guard, decided again
    assert step_statuses(execution_store) == [StepStatus.ABORTED, StepStatus.ABORTED]
    assert execution_store.get_execution("e1").execution_error is None  # an abort's: none


def failure_with_the_run_s_end(run: Run) -> RunWrite:
    """The first step's failure and the run's end, decided on `run`: one write."""
    move = run.finish_step(FIRST, StepStatus.FAILED, "boom", at(2), 1)
    assert move is not None
    end = run.moved(move).complete(ExecutionStatus.FAILED, at(2), "boom", "", None)
    assert end is not None
    return RunWrite.of("e1", moves=(move, *end.steps), change=end.change)


def abort_requested(run: Run) -> RunWrite:
    """The main row moves: the step's move, guarded on an open run not stopping, is refused."""
    return RunWrite.of("e1", change=run.request_abort(at(1), "stop"))


def step_ended(run: Run) -> RunWrite:
    """The step row moves: its move, guarded on an open step, is refused."""
    return RunWrite.of("e1", moves=(plain_finish("e1", FIRST, StepStatus.TIMED_OUT, "", at(1), 1),))


@pytest.mark.parametrize(
    ("meanwhile", "first_step"),
    [(abort_requested, StepStatus.RUNNING), (step_ended, StepStatus.TIMED_OUT)],
)
def test_a_step_end_refused_by_either_guard_writes_neither_the_step_nor_the_run(
    execution_store: Any,
    first_running: tuple[CountedWrites, CompleteExecution],
    meanwhile: Callable[[Run], RunWrite],
    first_step: StepStatus,
) -> None:
    run = execution_store.get_run("e1")
    both = failure_with_the_run_s_end(run)
    assert execution_store.commit(meanwhile(run))
    assert not execution_store.commit(both)
    assert execution_store.get_execution("e1").status is ExecutionStatus.RUNNING
    assert step_statuses(execution_store) == [first_step, StepStatus.NEW]


def test_a_failure_of_an_attempt_no_longer_running_writes_nothing(
    execution_store: Any, first_running: tuple[CountedWrites, CompleteExecution]
) -> None:
    counted, completion = first_running
    with pytest.raises(AttemptFencedError):
        completion.finish_last_step(first_ended(StepStatus.FAILED, "boom", attempt=2))
    assert (counted.commits, counted.summaries) == (0, 0)
    assert step_statuses(execution_store) == [StepStatus.RUNNING, StepStatus.NEW]


def test_a_failure_delivered_again_leaves_the_ended_run_as_it_is(
    execution_store: Any, first_running: tuple[CountedWrites, CompleteExecution]
) -> None:
    _, completion = first_running
    first = completion.finish_last_step(first_ended(StepStatus.FAILED, "boom"))
    again = completion.finish_last_step(first_ended(StepStatus.FAILED, "other"))
    assert again.execution == first.execution
    assert again.step_status is StepStatus.FAILED


def first_as_its_runner_knows(store: Any) -> Any:
    run = store.get_run("e1")
    running = run.running_attempt(FIRST)
    assert running is not None
    return as_its_runner_knows(run.execution, run.steps, FIRST, 1, running.start_date)


def test_a_failure_decided_on_the_run_as_its_runner_knows_it_needs_no_read(
    execution_store: Any, first_running: tuple[CountedWrites, CompleteExecution]
) -> None:
    counted, completion = first_running
    command = first_ended(StepStatus.FAILED, "boom")
    known = command.model_copy(update={"known": first_as_its_runner_knows(execution_store)})
    finished = completion.finish_last_step(known)
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.FAILED,
        ExecutionStatus.FAILED,
    )
    assert (counted.commits, counted.reads, counted.summaries) == (1, 0, 0)
    assert finished.execution == execution_store.get_execution("e1")
    assert step_statuses(execution_store) == [StepStatus.FAILED, StepStatus.NEW]
    assert summaries_of(execution_store, "e1") == {
        FIRST: "FAILED",
        SECOND: "NEW",
    }  # the step after it, as it stands


def known_failure(store: Any, status: StepStatus = StepStatus.FAILED) -> FinishLastStepCommand:
    """The first step's end as its runner reports it, decided on the run as the runner knows it
    (the write refused whenever another writer moved the run after the runner knew it)."""
    command = first_ended(status, "stopped")
    return command.model_copy(update={"known": first_as_its_runner_knows(store)})


def made(counted: CountedWrites) -> tuple[int, int, int, int]:
    """The commits, main rows read, runs read and summaries written apart."""
    return counted.commits, counted.main_rows, counted.reads, counted.summaries


@pytest.fixture(params=[False, True], ids=["write-first", "main-row-first"])
def moved(request: pytest.FixtureRequest) -> bool:
    """Whether the runner knows its main row moved (it saw the abort, or its step was killed
    by a signal it did not send)."""
    return bool(request.param)


def test_the_runner_s_end_after_an_abort_s_end_reads_the_main_row_alone(
    execution_store: Any, first_running: Any, tmp_path: Path, moved: bool
) -> None:
    """The abort's end wrote what a run's end leaves, the summaries too: the main row says the
    run ended ABORTED, and nothing is left to write. A runner that knows its main row moved (it
    saw the abort, or its step was killed by a signal it did not send) reads it first and
    writes nothing; one that does not has its one write refused first."""
    counted, completion = first_running
    command = known_failure(execution_store).model_copy(update={"main_row_moved": moved})
    requested = execution_store.get_run("e1").request_abort(at(1), "stop")
    assert execution_store.commit(RunWrite.of("e1", change=requested))
    run = execution_store.get_run("e1")
    end = run.abort(at(2), "", None)
    assert end is not None
    logs = StepSummaries(FileLogStore(tmp_path / "logs"))(run.moved_all(end.steps).steps)
    ended = RunWrite.of("e1", moves=end.steps, change=end.change, step_logs=logs)
    assert execution_store.commit(ended)
    finished = completion.finish_last_step(command)
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.ABORTED,
        ExecutionStatus.ABORTED,
    )
    assert finished.execution == execution_store.get_execution("e1")
    # the main row alone: no read of the run, no summaries again
    assert made(counted) == (0 if moved else 1, 1, 0, 0)
    assert summaries_of(execution_store, "e1") == {FIRST: "ABORTED", SECOND: "ABORTED"}


def test_an_abort_requested_after_the_runner_knew_the_run_ends_it_on_the_main_row_read(
    execution_store: Any, first_running: Any, moved: bool
) -> None:
    """Requested but not ended yet: the end is decided on the main row as read with the steps
    as the runner knows them, and both end ABORTED in one write: at once when the runner knows
    its main row moved (its step killed by the abort's signal), else after its write of the
    step's own end was refused."""
    counted, completion = first_running
    command = known_failure(execution_store).model_copy(update={"main_row_moved": moved})
    requested = execution_store.get_run("e1").request_abort(at(1), "stop")
    assert execution_store.commit(RunWrite.of("e1", change=requested))
    finished = completion.finish_last_step(command)
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.ABORTED,
        ExecutionStatus.ABORTED,
    )
    assert made(counted) == (1 if moved else 2, 1, 0, 0)
    assert step_statuses(execution_store) == [StepStatus.ABORTED, StepStatus.ABORTED]
    assert summaries_of(execution_store, "e1") == {FIRST: "ABORTED", SECOND: "ABORTED"}


def test_a_main_row_that_did_not_move_costs_a_read_and_the_step_s_own_end_stands(
    execution_store: Any, first_running: tuple[CountedWrites, CompleteExecution]
) -> None:
    """A step killed by a signal that was no abort's (the kernel's, the user's): the main row
    read first says nothing moved, and the failure is written as the step reported it."""
    counted, completion = first_running
    command = known_failure(execution_store).model_copy(update={"main_row_moved": True})
    finished = completion.finish_last_step(command)
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.FAILED,
        ExecutionStatus.FAILED,
    )
    assert made(counted) == (1, 1, 0, 0)
    assert summaries_of(execution_store, "e1") == {FIRST: "FAILED", SECOND: "NEW"}


def test_a_run_another_writer_ended_after_its_runner_knew_it_gets_its_summaries(
    execution_store: Any, first_running: tuple[CountedWrites, CompleteExecution]
) -> None:
    """An end that wrote no summaries (a lost runner's, FAILED): the runner's end, refused and
    decided on a read to nothing, writes them, as a completion tried again does."""
    _, completion = first_running
    command = known_failure(execution_store)
    end = execution_store.get_run("e1").complete(ExecutionStatus.FAILED, at(2), "lost", "", None)
    assert end is not None
    assert execution_store.commit(RunWrite.of("e1", moves=end.steps, change=end.change))
    finished = completion.finish_last_step(command)
    assert (finished.step_status, finished.execution.status) == (
        StepStatus.FAILED,
        ExecutionStatus.FAILED,
    )
    assert summaries_of(execution_store, "e1") == {FIRST: "FAILED", SECOND: "NEW"}


def test_a_completion_whose_run_another_writer_ended_meanwhile_writes_the_summaries(
    execution_store: Any, first_running: Any
) -> None:
    """A completion's end carries the summaries in its write; refused because another writer
    ended the run after the completion read it (an end that wrote none), it writes them apart,
    as a completion tried again does."""
    counted, completion = first_running

    def lost() -> None:
        end = execution_store.get_run("e1").complete(ExecutionStatus.FAILED, at(2), "x", "", None)
        assert end is not None
        assert execution_store.commit(RunWrite.of("e1", moves=end.steps, change=end.change))

    counted.before_commit = lost
    command = CompleteExecutionCommand(workflow_execution_id="e1", status=ExecutionStatus.FAILED)
    ended = completion.execute(command)
    assert ended.status is ExecutionStatus.FAILED and ended.execution_error == "x"
    assert (counted.commits, counted.summaries) == (1, 1)  # refused, then the summaries apart
    assert summaries_of(execution_store, "e1") == {FIRST: "FAILED", SECOND: "NEW"}
