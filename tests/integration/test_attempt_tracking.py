"""StartStep, RetryStep and FinishStep keep one TaskExecution per attempt (seed 003)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.local.object_store import FilesystemObjectStore
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import TableNames
from application.ports.executions import ExecutionStore, Refused
from application.run_writes import end_run
from application.use_cases.retry_step import RetryStep, RetryStepCommand
from application.use_cases.step_tracking import (
    FinishStep,
    FinishStepCommand,
    StartStep,
    StartStepCommand,
)
from domain.attempts import AttemptTrigger, TaskExecution
from domain.run import first_start
from domain.run_write import RunWrite
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, step_id, step_row_saved, write_change, write_launch

pytestmark = pytest.mark.integration


class TickingClock:
    """A minute later on every call, so each write's date is told apart."""

    def __init__(self) -> None:
        self._now = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)

    def now(self) -> datetime:
        self._now += timedelta(minutes=1)
        return self._now


class Tracking:
    def __init__(self, store: ExecutionStore, root: Path) -> None:
        clock = TickingClock()
        self.store = store
        self.start = StartStep(store, clock)
        self.retry = RetryStep(store, clock)
        self.finish = FinishStep(store, FilesystemObjectStore(root), clock)

    def started(self, sid: str) -> None:
        self.start.execute(StartStepCommand(workflow_execution_id="e1", pipeline_execution_id=sid))

    def retried(self, sid: str, error: str) -> None:
        self.retry.execute(
            RetryStepCommand(workflow_execution_id="e1", pipeline_execution_id=sid, error=error)
        )

    def finished(self, sid: str, status: StepStatus, error: str | None = None) -> None:
        self.finish.execute(
            FinishStepCommand(
                workflow_execution_id="e1", pipeline_execution_id=sid, status=status, error=error
            )
        )

    def failed_then_redriven(self, sid: str) -> None:
        """Started, failed with "boom", then reset to NEW as RedriveExecution does."""
        self.started(sid)
        self.finished(sid, StepStatus.FAILED, "boom")
        failed = self.store.get_step(sid)
        fresh = failed.model_copy(
            update={"status": StepStatus.NEW, "stop_date": None, "error": None}
        )
        assert step_row_saved(self.store, fresh, expected=frozenset({StepStatus.FAILED}))

    def attempt(self, sid: str, number: int) -> TaskExecution:
        [found] = [a for a in self.store.list_attempts([sid]) if a.attempt == number]
        return found

    def attempts(self, sid: str) -> list[tuple[int, StepStatus, str | None, AttemptTrigger]]:
        return [(a.attempt, a.status, a.error, a.trigger) for a in self.store.list_attempts([sid])]


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def tracking(request: pytest.FixtureRequest, tmp_path: Path) -> Tracking:
    # DynamoDB as well: its combined writes refuse a taken or closed attempt in their own way
    store: ExecutionStore = request.getfixturevalue(f"{request.param}_execution_store")
    write_launch(store, a_launch("e1"))
    return Tracking(store, tmp_path)


SID = step_id("e1", 0)


def test_starting_a_step_opens_its_first_attempt_and_finishing_closes_it(
    tracking: Tracking,
) -> None:
    tracking.started(SID)
    assert tracking.attempts(SID) == [(1, StepStatus.RUNNING, None, AttemptTrigger.START)]

    tracking.finished(SID, StepStatus.SUCCEEDED)

    [attempt] = tracking.store.list_attempts([SID])
    step = tracking.store.get_step(SID)
    assert (attempt.status, attempt.start_date, attempt.stop_date) == (
        StepStatus.SUCCEEDED,
        step.start_date,
        step.stop_date,
    )


def test_a_start_callback_delivered_twice_opens_one_attempt(tracking: Tracking) -> None:
    tracking.started(SID)
    tracking.started(SID)

    assert [a[0] for a in tracking.attempts(SID)] == [1]


def test_a_retry_keeps_the_failed_attempt_and_opens_the_next_while_the_step_runs(
    tracking: Tracking,
) -> None:
    tracking.started(SID)

    tracking.retried(SID, "exit 3")
    tracking.finished(SID, StepStatus.SUCCEEDED)

    assert tracking.attempts(SID) == [
        (1, StepStatus.FAILED, "exit 3", AttemptTrigger.START),
        (2, StepStatus.SUCCEEDED, None, AttemptTrigger.RETRY),
    ]
    assert tracking.store.get_step(SID).status is StepStatus.SUCCEEDED


def test_a_retry_of_a_step_that_is_not_running_changes_nothing(tracking: Tracking) -> None:
    tracking.started(SID)
    tracking.finished(SID, StepStatus.FAILED, "boom")

    tracking.retried(SID, "late")

    assert tracking.attempts(SID) == [(1, StepStatus.FAILED, "boom", AttemptTrigger.START)]


def test_a_redriven_step_gets_the_next_attempt_number_and_the_failed_one_is_kept(
    tracking: Tracking,
) -> None:
    tracking.failed_then_redriven(SID)

    tracking.started(SID)
    tracking.finished(SID, StepStatus.SUCCEEDED)

    assert tracking.attempts(SID) == [
        (1, StepStatus.FAILED, "boom", AttemptTrigger.START),
        (2, StepStatus.SUCCEEDED, None, AttemptTrigger.REDRIVE),
    ]


def test_a_redriven_step_is_running_on_its_next_attempt_and_the_failed_one_is_untouched(
    tracking: Tracking,
) -> None:
    tracking.failed_then_redriven(SID)

    tracking.started(SID)  # attempt 1 is taken: the start falls back to the next number

    step = tracking.store.get_step(SID)
    assert (step.status, step.start_date) == (
        StepStatus.RUNNING,
        tracking.attempt(SID, 2).start_date,
    )
    assert tracking.attempts(SID) == [
        (1, StepStatus.FAILED, "boom", AttemptTrigger.START),
        (2, StepStatus.RUNNING, None, AttemptTrigger.REDRIVE),
    ]


@pytest.mark.parametrize("expected", [2, 1], ids=["known", "guessed-wrong"])
def test_a_start_expecting_the_redriven_steps_next_attempt_opens_that_one(
    tracking: Tracking, expected: int
) -> None:
    tracking.failed_then_redriven(SID)

    # a redrive hands its runner the next number; a taken one is decided again on a read
    started = tracking.start.execute(
        StartStepCommand(workflow_execution_id="e1", pipeline_execution_id=SID, attempt=expected)
    )

    assert started.attempt == 2
    assert tracking.attempts(SID) == [
        (1, StepStatus.FAILED, "boom", AttemptTrigger.START),
        (2, StepStatus.RUNNING, None, AttemptTrigger.REDRIVE),
    ]


def test_a_step_whose_first_attempt_was_closed_finishes_its_latest_running_attempt(
    tracking: Tracking,
) -> None:
    tracking.started(SID)
    tracking.retried(SID, "exit 3")
    tracking.retried(SID, "exit 4")

    tracking.finished(SID, StepStatus.FAILED, "boom")

    step = tracking.store.get_step(SID)
    assert (step.status, step.error) == (StepStatus.FAILED, "boom")
    assert tracking.attempts(SID) == [
        (1, StepStatus.FAILED, "exit 3", AttemptTrigger.START),
        (2, StepStatus.FAILED, "exit 4", AttemptTrigger.RETRY),
        (3, StepStatus.FAILED, "boom", AttemptTrigger.RETRY),
    ]
    assert tracking.attempt(SID, 3).stop_date == step.stop_date


def test_a_step_finished_without_a_start_ends_with_no_attempt(tracking: Tracking) -> None:
    tracking.finished(SID, StepStatus.ABORTED, "stopped")

    assert tracking.store.get_step(SID).status is StepStatus.ABORTED
    assert tracking.attempts(SID) == []


def test_a_finish_callback_delivered_twice_changes_nothing(tracking: Tracking) -> None:
    tracking.started(SID)
    tracking.finished(SID, StepStatus.SUCCEEDED)
    step, attempts = tracking.store.get_step(SID), tracking.store.list_attempts([SID])

    tracking.finished(SID, StepStatus.FAILED, "late")

    assert tracking.store.get_step(SID) == step
    assert tracking.store.list_attempts([SID]) == attempts


def test_a_start_racing_another_start_of_the_same_step_opens_one_attempt(
    tracking: Tracking,
) -> None:
    class RacingStore:
        """The real store, where another writer starts the step just before our first write."""

        def __init__(self, inner: ExecutionStore) -> None:
            self.inner, self.raced = inner, False

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

        def commit(self, write: RunWrite) -> bool | Refused:
            if not self.raced:
                self.raced = True
                other = first_start("e1", SID, datetime(2026, 1, 1, tzinfo=UTC))
                assert self.inner.commit(RunWrite.of("e1", moves=(other,)))
            return self.inner.commit(write)

    started = StartStep(RacingStore(tracking.store), TickingClock()).execute(  # type: ignore[arg-type]
        StartStepCommand(workflow_execution_id="e1", pipeline_execution_id=SID)
    )

    assert started.attempt == 1 and started.step.status is StepStatus.RUNNING
    assert [a[0] for a in tracking.attempts(SID)] == [1]


def test_ending_a_run_closes_the_running_attempt_with_its_step(tracking: Tracking) -> None:
    tracking.started(SID)
    at = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)
    change = tracking.store.get_run("e1").request_abort(at, "aborted by alice")
    assert change is not None and write_change(tracking.store, change)

    end_run(tracking.store, "e1", lambda run: run.abort(at, "", None))

    [attempt] = tracking.store.list_attempts([SID])
    assert (attempt.status, attempt.stop_date, attempt.error) == (
        StepStatus.ABORTED,
        at,
        "wfx.Aborted: aborted by alice",
    )
    assert tracking.store.list_attempts([step_id("e1", 1)]) == []  # never started: no attempt


def test_a_sqlite_file_made_before_attempts_were_kept_gets_their_table_on_first_use(
    tmp_path: Path,
) -> None:
    path = tmp_path / "older.db"
    older = SqliteDatabase(path)
    SqliteExecutionStore(older, TableNames()).create_tables()
    with older.write() as connection:
        connection.execute('DROP TABLE "WfxTaskExecutionsTable"')
    older.close()
    database = SqliteDatabase(path)
    store = SqliteExecutionStore(database, TableNames())
    write_launch(store, a_launch("e1"))
    try:
        assert store.get_details("e1").steps[0].attempts == ()
        tracking = Tracking(store, tmp_path)

        tracking.started(SID)

        assert [a[0] for a in tracking.attempts(SID)] == [1]
    finally:
        database.close()
