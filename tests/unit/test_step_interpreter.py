"""The step interpreter without processes: plain functions as steps, the real tracking use cases
on an in-memory SQLite store as its reporter."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from adapters.local.interpreter import STORE_RETRIES, KilledStep, PlannedStep, StepInterpreter
from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.local.supervisor import RunStop, StopReason
from adapters.sqlite.catalogs import SqliteAssetCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.system import SystemClock
from adapters.tables import TableNames
from application.ports.orchestration import RunReporter
from application.reporting import UseCaseRunReporter
from application.use_cases.complete_execution import (
    CompleteExecution,
    FinishLastStepCommand,
    LastStepFinished,
)
from application.use_cases.hand_on_step import HandedOn, HandOnStep, HandOnStepCommand
from application.use_cases.retry_step import RetryStep
from application.use_cases.runner_lease import RunnerLease
from application.use_cases.step_tracking import FinishStep, StartStep
from conftest import sqlite_tables_from_template
from domain.execution import PipelineExecution
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import RetryPolicy
from tests.contract.builders import a_gate_passage, a_launch, step_id, write_change, write_launch

RUN = "e1"


@pytest.fixture
def database() -> Iterator[SqliteDatabase]:
    built = SqliteDatabase(None)
    yield built
    built.close()


@pytest.fixture
def store(database: SqliteDatabase) -> SqliteExecutionStore:
    built = SqliteExecutionStore(database, TableNames())
    sqlite_tables_from_template(database)  # a copy, ~1 ms, where making them is ~45
    built.create_tables()
    write_launch(built, a_launch(RUN, steps=3))
    return built


@pytest.fixture
def reporter(
    store: SqliteExecutionStore, database: SqliteDatabase, tmp_path: Any
) -> UseCaseRunReporter:
    return a_reporter(store, database, tmp_path)


def a_reporter(
    store: SqliteExecutionStore,
    database: SqliteDatabase,
    tmp_path: Any,
    hand_on: type[HandOnStep] = HandOnStep,
    complete: type[CompleteExecution] = CompleteExecution,
) -> UseCaseRunReporter:
    clock, objects = SystemClock(), FilesystemObjectStore(tmp_path / "objects")
    assets = SqliteAssetCatalog(SqliteDatabase(None), TableNames())
    finish = FinishStep(store, objects, clock)
    return UseCaseRunReporter(
        start_step=StartStep(store, clock),
        finish_step=finish,
        complete_execution=complete(store, objects, assets, FileLogStore(tmp_path / "logs"), clock),
        retry_step=RetryStep(store, clock),
        lease=RunnerLease(store, clock, lease_seconds=30),
        store=store,
        gate=a_gate_passage(database, store),
        hand_on=hand_on(store, store, finish, clock),
    )


def planned(store: SqliteExecutionStore, retry: RetryPolicy | None = None) -> list[PlannedStep]:
    return [PlannedStep(step, retry) for step in store.list_steps(RUN)]


def statuses(store: SqliteExecutionStore) -> tuple[ExecutionStatus, list[StepStatus]]:
    return store.get_execution(RUN).status, [s.status for s in store.list_steps(RUN)]


class Calls:
    """The steps a run ran, in order, with the attempt each was given."""

    def __init__(self, outcome: Callable[[PipelineExecution, int], str | None] | None = None):
        self.made: list[tuple[str, int]] = []
        self._outcome = outcome or (lambda step, attempt: None)

    def __call__(self, step: PipelineExecution, attempt: int) -> str | None:
        self.made.append((step.pipeline_id, attempt))
        return self._outcome(step, attempt)


def test_the_steps_run_in_order_and_the_run_ends_succeeded(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter
) -> None:
    calls = Calls()

    ended = StepInterpreter(reporter, RunStop()).run(RUN, planned(store), calls)

    assert ended is ExecutionStatus.SUCCEEDED
    assert calls.made == [("pipe0", 1), ("pipe1", 1), ("pipe2", 1)]
    assert statuses(store) == (ExecutionStatus.SUCCEEDED, [StepStatus.SUCCEEDED] * 3)


def test_a_failing_step_runs_again_under_its_policy_as_new_attempts(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter
) -> None:
    waits: list[float] = []
    calls = Calls(lambda step, n: "flaky" if step.pipeline_id == "pipe1" and n < 3 else None)
    policy = RetryPolicy(max_attempts=3, interval_seconds=1, backoff_rate=2.0)

    ended = StepInterpreter(reporter, RunStop(), sleep=waits.append).run(
        RUN, planned(store, policy), calls
    )

    assert ended is ExecutionStatus.SUCCEEDED
    assert [n for name, n in calls.made if name == "pipe1"] == [1, 2, 3]
    assert waits == [1.0, 2.0]
    attempts = store.list_attempts([step_id(RUN, 1)])
    assert [(a.attempt, a.status) for a in attempts] == [
        (1, StepStatus.FAILED),
        (2, StepStatus.FAILED),
        (3, StepStatus.SUCCEEDED),
    ]


def test_a_step_that_returns_while_the_run_is_stopped_is_aborted_and_nothing_follows(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter
) -> None:
    stop = RunStop()

    def stopped_while_running(step: PipelineExecution, attempt: int) -> str | None:
        stop.request(StopReason.ABORT)  # an abort from elsewhere, seen by the keeper
        return None  # the step's command ends as if nothing happened

    calls = Calls(stopped_while_running)

    ended = StepInterpreter(reporter, stop).run(RUN, planned(store), calls)

    assert ended is ExecutionStatus.ABORTED
    assert calls.made == [("pipe0", 1)]
    assert statuses(store) == (ExecutionStatus.ABORTED, [StepStatus.ABORTED] * 3)


def test_an_abort_requested_in_the_store_between_steps_refuses_the_next_start(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter
) -> None:
    def abort_after_the_first(step: PipelineExecution, attempt: int) -> str | None:
        change = store.get_run(RUN).request_abort(SystemClock().now(), "by another process")
        assert change is not None and write_change(store, change)
        return None

    calls = Calls(abort_after_the_first)

    ended = StepInterpreter(reporter, RunStop()).run(RUN, planned(store), calls)

    assert ended is ExecutionStatus.ABORTED
    assert calls.made == [("pipe0", 1)]  # its success came after the request: ABORTED
    assert statuses(store) == (ExecutionStatus.ABORTED, [StepStatus.ABORTED] * 3)
    assert store.list_attempts([step_id(RUN, 1), step_id(RUN, 2)]) == []


class MainRowMoved:
    """The real reporter, noting what each end of the run was told of its main row."""

    def __init__(self, inner: UseCaseRunReporter) -> None:
        self._inner = inner
        self.told: list[bool] = []

    def last_step_finished(self, *args: Any) -> Any:
        self.told.append(args[-1])  # main_row_moved, the interpreter's last argument
        return self._inner.last_step_finished(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@pytest.mark.parametrize(("error", "moved"), [(KilledStep("killed"), True), ("failed", False)])
def test_a_step_killed_by_a_signal_its_runner_did_not_send_has_its_main_row_read_first(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter, error: str, moved: bool
) -> None:
    """Another process's abort killed the step before the keeper saw the request: the end is
    decided on the main row read first (ABORTED at once), not on the run the runner knows."""

    def killed_by_an_abort(step: PipelineExecution, attempt: int) -> str | None:
        change = store.get_run(RUN).request_abort(SystemClock().now(), "by another process")
        assert change is not None and write_change(store, change)
        return error

    told = MainRowMoved(reporter)
    known = store.get_execution(RUN)
    interpreter = StepInterpreter(told, RunStop())  # type: ignore[arg-type]  # the reporter's part
    ended = interpreter.run(RUN, planned(store), Calls(killed_by_an_abort), known=known)

    assert ended is ExecutionStatus.ABORTED
    assert told.told == [moved]
    assert statuses(store) == (ExecutionStatus.ABORTED, [StepStatus.ABORTED] * 3)


def test_a_runner_that_lost_its_lease_writes_nothing_more(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter
) -> None:
    stop = RunStop()

    def lost(step: PipelineExecution, attempt: int) -> str | None:
        stop.request(StopReason.LOST)
        return None

    ended = StepInterpreter(reporter, stop).run(RUN, planned(store), Calls(lost))

    assert ended is None
    assert statuses(store) == (
        ExecutionStatus.RUNNING,
        [StepStatus.RUNNING, StepStatus.NEW, StepStatus.NEW],
    )


class Flaky:
    """The real reporter, whose store fails the first `failures` calls of each kind."""

    def __init__(self, inner: RunReporter, failures: int) -> None:
        self._inner, self._left = inner, failures

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._inner, name)

        def call(*args: Any) -> Any:
            if self._left > 0:
                self._left -= 1
                raise sqlite3.OperationalError("database is locked")
            return method(*args)

        return call


def test_a_store_that_fails_for_a_while_is_waited_for(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter, capsys: pytest.CaptureFixture[str]
) -> None:
    backoffs: list[float] = []
    flaky: Any = Flaky(reporter, failures=3)

    ended = StepInterpreter(flaky, RunStop(), backoff=backoffs.append).run(
        RUN, planned(store), Calls()
    )

    assert ended is ExecutionStatus.SUCCEEDED
    assert backoffs == [0.1, 0.2, 0.4]
    assert capsys.readouterr().err.count("trying again") == 3


def test_a_store_that_stays_away_ends_the_runner_with_one_line_and_no_traceback(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter, capsys: pytest.CaptureFixture[str]
) -> None:
    away: Any = Flaky(reporter, failures=10_000)

    ended = StepInterpreter(away, RunStop(), backoff=lambda _: None).run(
        RUN, planned(store), Calls()
    )

    assert ended is None
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("trying again") == 2 * STORE_RETRIES  # the start, then recording the end
    assert "local runner: the store failed: OperationalError: database is locked" in err
    assert statuses(store)[0] is ExecutionStatus.RUNNING  # the lease will end it


SEEN: list[BaseModel] = []  # the commands the reporter gave its use cases, in order


class SeenHandOn(HandOnStep):
    def execute(self, command: HandOnStepCommand) -> HandedOn:
        SEEN.append(command)
        return super().execute(command)


class SeenCompletion(CompleteExecution):
    def finish_last_step(self, command: FinishLastStepCommand) -> LastStepFinished:
        SEEN.append(command)
        return super().finish_last_step(command)


def test_the_reporters_commands_are_what_validation_makes_of_their_fields(
    store: SqliteExecutionStore, database: SqliteDatabase, tmp_path: Any
) -> None:
    # built unvalidated (domain.derived) from the runner's values: each equals itself validated
    SEEN.clear()
    reporter = a_reporter(store, database, tmp_path, SeenHandOn, SeenCompletion)

    ended = StepInterpreter(reporter, RunStop()).run(RUN, planned(store), Calls())

    assert ended is ExecutionStatus.SUCCEEDED
    assert [type(command) for command in SEEN] == [HandOnStepCommand] * 2 + [FinishLastStepCommand]
    for command in SEEN:
        fields = {name: getattr(command, name) for name in type(command).model_fields}
        assert type(command)(**fields) == command


def test_a_last_step_ended_with_a_status_that_is_no_end_is_refused_and_nothing_is_written(
    store: SqliteExecutionStore, reporter: UseCaseRunReporter
) -> None:
    attempt = reporter.step_started(RUN, step_id(RUN, 2))

    with pytest.raises(ValueError, match="must be one of"):
        reporter.last_step_finished(RUN, step_id(RUN, 2), attempt, status=StepStatus.RUNNING)

    assert statuses(store) == (ExecutionStatus.RUNNING, [StepStatus.NEW] * 2 + [StepStatus.RUNNING])
