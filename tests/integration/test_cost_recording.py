"""Cost recording through the whole container, on SQLite and DynamoDB (moto): the tracking
callbacks (what the Step Functions Lambda calls) record each attempt's duration, and so does the
end of a run for the attempts it closes; a registration event reports usage, a billing export
loads all or nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers
from pydantic import ValidationError

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import TableNames
from application.ports.costs import CostScope
from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.complete_execution import CompleteExecutionCommand
from application.use_cases.import_costs import ImportCostsCommand
from application.use_cases.register_pipeline_execution import RegisterPipelineExecutionCommand
from application.use_cases.retry_step import RetryStepCommand
from application.use_cases.step_tracking import FinishStepCommand, StartStepCommand
from domain.costs import CostBasis, CostKind, CostLedgerEntry, CostSource
from domain.errors import InvalidInputError
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import a_launch, step_id, write_launch

RUN = "run-1"
ROOT = step_id(RUN, 0)


class TenSecondClock:
    """Each reading ten seconds after the last: every attempt runs a known time."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)

    def now(self) -> datetime:
        self.moment += timedelta(seconds=10)
        return self.moment


@pytest.fixture
def container(inline_container: Any) -> Any:
    inline_container.clock.override(providers.Object(TenSecondClock()))
    write_launch(inline_container.execution_store(), a_launch(RUN, group="nightly"))
    return inline_container


def _entries(container: Any) -> list[CostLedgerEntry]:
    entries: list[CostLedgerEntry] = container.cost_ledger().list_entries(CostScope.EXECUTION, RUN)
    return entries


def _start(container: Any) -> None:
    command = StartStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT)
    container.start_step().execute(command)


def _register(container: Any, costs: list[dict[str, Any]]) -> Any:
    event = RegisterPipelineExecutionCommand.model_validate(
        {
            "source": f"wfx.execution.{RUN}.pipeline.{ROOT}",
            "detail-type": "pipeline.execution.register",
            "detail": {"pipelineExecutionId": ROOT, "costs": costs},
        }
    )
    return container.register_pipeline_execution().execute(event)


def test_a_retry_and_a_finish_record_one_duration_per_attempt_once(container: Any) -> None:
    _start(container)
    retry = RetryStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT, error="x")
    container.retry_step().execute(retry)
    finish = FinishStepCommand(
        workflow_execution_id=RUN, pipeline_execution_id=ROOT, status=StepStatus.SUCCEEDED
    )
    container.finish_step().execute(finish)
    container.finish_step().execute(finish)  # a callback delivered twice

    entries = _entries(container)
    assert [(e.attempt, e.kind, e.unit, e.source) for e in entries] == [
        (1, CostKind.DURATION, "seconds", CostSource.RUNNER),
        (2, CostKind.DURATION, "seconds", CostSource.RUNNER),
    ]
    attempts = container.execution_store().list_attempts([ROOT])
    for entry, attempt in zip(entries, attempts, strict=True):
        seconds = (attempt.stop_date - attempt.start_date).total_seconds()
        assert entry.quantity == Decimal(int(seconds)) and seconds > 0
        assert entry.amount is None  # the default rate card has no price for a local second
    assert {e.execution_group_id for e in entries} == {"nightly"}
    assert entries[0].asset_keys == ("db1:asset1",)


def _started(container: Any) -> datetime:
    command = StartStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT)
    started = container.start_step().execute(command).attempt_started
    assert started is not None
    return started  # type: ignore[no-any-return]


def _finish_started_at(started: datetime) -> FinishStepCommand:
    """A finish from the runner that started the attempt: it says when, and the attempt's
    duration is written with the finish."""
    return FinishStepCommand(
        workflow_execution_id=RUN,
        pipeline_execution_id=ROOT,
        status=StepStatus.SUCCEEDED,
        attempt=1,
        attempt_started=started,
    )


def test_a_finish_told_when_its_attempt_started_records_the_duration_it_ran(
    container: Any,
) -> None:
    finish = _finish_started_at(_started(container))
    container.finish_step().execute(finish)
    container.finish_step().execute(finish)  # a callback delivered twice

    (entry,) = _entries(container)
    (attempt,) = container.execution_store().list_attempts([ROOT])
    assert (entry.attempt, entry.kind, entry.source) == (1, CostKind.DURATION, CostSource.RUNNER)
    assert entry.quantity == Decimal(int((attempt.stop_date - attempt.start_date).total_seconds()))
    assert entry.quantity > 0 and entry.execution_group_id == "nightly"


def test_a_duration_recorded_already_does_not_stop_the_finish_nor_count_twice(
    container: Any,
) -> None:
    """Another process recorded this attempt's duration (its id is the attempt's): the finish
    that carries the same entry is made without it."""
    started = _started(container)
    finish = _finish_started_at(started)
    earlier = container.record_attempt_durations().entry_for(
        RUN, ROOT, 1, started, started + timedelta(seconds=3)
    )
    container.cost_ledger().append([earlier])

    step = container.finish_step().execute(finish)

    assert step.status is StepStatus.SUCCEEDED
    assert _entries(container) == [earlier]


class _StepMoves:
    """The execution store, noting the attempts whose cost entries each step move carries; with
    `refuse_costs`, failing every such move (a ledger table gone from under the store) while
    the moves without them still land."""

    def __init__(self, store: Any, refuse_costs: bool = False) -> None:
        self._store, self._refuse_costs = store, refuse_costs
        self.carried: list[tuple[int, ...]] = []

    def commit(self, write: Any) -> Any:
        carried = [tuple(entry.attempt for entry in move.cost_entries) for move in write.moves]
        self.carried.extend(carried)
        if any(carried) and self._refuse_costs:
            raise RuntimeError("the ledger table is gone")
        return self._store.commit(write)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_a_retry_writes_the_closed_attempts_duration_with_its_move(container: Any) -> None:
    _start(container)
    moves = _StepMoves(container.execution_store())
    container.execution_store.override(providers.Object(moves))

    retry = RetryStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT, error="x")
    container.retry_step().execute(retry)

    assert moves.carried == [(1,)]  # attempt 1 closed, its duration in the same write
    assert [e.attempt for e in _entries(container)] == [1]


def _abort(container: Any) -> None:
    container.abort_execution().execute(AbortExecutionCommand(workflow_execution_id=RUN))


def _lose_runner(container: Any) -> None:
    # launched in 2024 and never leased: a read finds its runner gone
    container.reconcile_execution().execute(container.execution_store().get_execution(RUN))


def _fail(container: Any) -> None:
    command = CompleteExecutionCommand(
        workflow_execution_id=RUN, status=ExecutionStatus.FAILED, error="the runner gave up"
    )
    container.complete_execution().execute(command)


RUN_ENDS = {"abort": _abort, "lost runner": _lose_runner, "failed end": _fail}


@pytest.mark.parametrize("end", RUN_ENDS.values(), ids=RUN_ENDS.keys())
def test_a_run_end_records_the_duration_of_each_attempt_it_closes_once(
    container: Any, end: Callable[[Any], None]
) -> None:
    _start(container)  # the root runs; the second step never starts

    end(container)
    end(container)  # an end tried again: the run has ended, nothing is added

    run = container.execution_store().get_execution(RUN)
    assert run.is_terminal
    (attempt,) = container.execution_store().list_attempts([ROOT])
    assert attempt.stop_date is not None
    (entry,) = _entries(container)
    seconds = (attempt.stop_date - attempt.start_date).total_seconds()
    assert (entry.pipeline_execution_id, entry.attempt, entry.kind) == (
        ROOT,
        1,
        CostKind.DURATION,
    )
    assert (entry.quantity, entry.unit, entry.source) == (
        Decimal(int(seconds)),
        "seconds",
        CostSource.RUNNER,
    )
    assert seconds > 0 and entry.execution_group_id == "nightly"


def test_an_attempt_closed_by_its_finish_is_not_charged_again_by_the_run_end(
    container: Any,
) -> None:
    _start(container)
    finish = FinishStepCommand(
        workflow_execution_id=RUN, pipeline_execution_id=ROOT, status=StepStatus.FAILED
    )
    container.finish_step().execute(finish)

    _fail(container)

    assert [(e.pipeline_execution_id, e.attempt) for e in _entries(container)] == [(ROOT, 1)]


class _BrokenLedger:
    def create_tables(self) -> None: ...

    def append(self, entries: Sequence[CostLedgerEntry]) -> None:
        raise RuntimeError("the ledger is down")

    def list_entries(self, scope: CostScope, key: str | None) -> list[CostLedgerEntry]:
        raise RuntimeError("the ledger is down")


@pytest.mark.parametrize("end", RUN_ENDS.values(), ids=RUN_ENDS.keys())
def test_a_ledger_that_fails_never_fails_the_end_of_a_run(
    container: Any, end: Callable[[Any], None]
) -> None:
    container.cost_ledger.override(providers.Object(_BrokenLedger()))
    _start(container)

    end(container)

    run = container.execution_store().get_execution(RUN)
    assert run.is_terminal
    steps = {s.pipeline_execution_id: s for s in container.execution_store().list_steps(RUN)}
    assert steps[ROOT].is_terminal
    (attempt,) = container.execution_store().list_attempts([ROOT])
    assert attempt.stop_date is not None


@pytest.mark.parametrize("end", RUN_ENDS.values(), ids=RUN_ENDS.keys())
def test_an_end_whose_duration_cannot_be_written_with_the_step_still_ends_the_run(
    container: Any, end: Callable[[Any], None]
) -> None:
    _start(container)
    refusing = _StepMoves(container.execution_store(), refuse_costs=True)
    container.execution_store.override(providers.Object(refusing))

    end(container)

    run = container.execution_store().get_execution(RUN)
    assert run.is_terminal and [c for c in refusing.carried if c] == [(1,)]
    (attempt,) = container.execution_store().list_attempts([ROOT])
    assert attempt.stop_date is not None
    (entry,) = _entries(container)  # recorded after the run, through the ledger
    assert (entry.pipeline_execution_id, entry.attempt) == (ROOT, 1)


@pytest.mark.parametrize("end", RUN_ENDS.values(), ids=RUN_ENDS.keys())
def test_an_end_closing_an_attempt_whose_duration_is_recorded_adds_nothing(
    container: Any, end: Callable[[Any], None]
) -> None:
    started = _started(container)
    earlier = container.record_attempt_durations().entry_for(
        RUN, ROOT, 1, started, started + timedelta(seconds=3)
    )
    container.cost_ledger().append([earlier])

    end(container)

    assert container.execution_store().get_execution(RUN).is_terminal
    assert _entries(container) == [earlier]


def test_a_registration_reports_usage_priced_by_itself_or_by_the_rate_card(
    container: Any,
) -> None:
    _start(container)

    result = _register(
        container,
        [
            {"quantity": 100, "unit": "lambda-GB-seconds"},
            {
                "quantity": "2",
                "unit": "batch-vCPU-seconds",
                "unitPrice": "0.1",
                "currency": "EUR",
                "basis": "actual",
            },
        ],
    )

    assert result.accepted, result.reason
    by_unit = {e.unit: e for e in _entries(container)}
    lambda_entry = by_unit["lambda-GB-seconds"]
    assert (lambda_entry.amount, lambda_entry.currency) == (Decimal("0.00166667"), "USD")
    assert (lambda_entry.attempt, lambda_entry.source) == (1, CostSource.REGISTRATION)
    batch = by_unit["batch-vCPU-seconds"]
    assert (batch.amount, batch.currency, batch.basis) == (Decimal("0.2"), "EUR", CostBasis.ACTUAL)


@pytest.mark.parametrize(
    ("cost", "named"),
    [
        ({"quantity": -1, "unit": "seconds"}, "costs.0.quantity"),
        ({"quantity": 1, "unit": "has space"}, "costs.0.unit"),
        ({"quantity": 1, "unit": "seconds", "unitPrice": "1"}, "currency"),
        ({"quantity": "NaN", "unit": "seconds"}, "costs.0.quantity"),
        ({"quantity": 1, "unit": "seconds", "price": 2}, "costs.0.price"),
    ],
)
def test_a_bad_cost_in_a_registration_is_refused_naming_the_field(
    container: Any, cost: dict[str, Any], named: str
) -> None:
    _start(container)

    with pytest.raises(ValidationError) as refused:
        _register(container, [cost])

    assert named in str(refused.value).replace("\n", " ").replace("detail.", "")
    assert _entries(container) == []


def test_costs_alone_are_taken_on_a_finished_step(container: Any) -> None:
    _start(container)
    finish = FinishStepCommand(
        workflow_execution_id=RUN, pipeline_execution_id=ROOT, status=StepStatus.SUCCEEDED
    )
    container.finish_step().execute(finish)

    assert _register(container, [{"quantity": 5, "unit": "lambda-GB-seconds"}]).accepted
    assert len(_entries(container)) == 2  # its duration and the late usage


def test_an_import_corrects_an_estimate_and_a_bad_line_applies_nothing(container: Any) -> None:
    _start(container)
    _register(container, [{"quantity": 100, "unit": "lambda-GB-seconds"}])
    (estimate,) = _entries(container)
    good = (
        "executionId,stepId,attempt,quantity,unit,amount,currency,entryId,supersedes\n"
        f"{RUN},{ROOT},1,100,lambda-GB-seconds,0.0015,USD,bill-1,{estimate.entry_id}\n"
    )

    result = container.import_costs().execute(ImportCostsCommand(text=good))

    assert result.corrections == 1
    (bill,) = result.entries
    assert (bill.basis, bill.amount, bill.unit_price) == (CostBasis.ACTUAL, Decimal("0.0015"), None)
    before = _entries(container)
    bad_lines = [
        (f"{RUN},{ROOT},,1,seconds,,,,\n{RUN},{ROOT},3,1,seconds,,,,\n", "line 3, column attempt"),
        (f"{RUN},{ROOT},,1,seconds,,,bill-1,\n", "line 2, column entryId: bill-1 is taken"),
        (f"nope,{ROOT},,1,seconds,,,,\n", "line 2, column executionId"),
        (f"{RUN},{ROOT},,1,seconds,1,,,\n", "line 2, column currency"),
        (f"{RUN},{ROOT},,1,seconds,,,,{estimate.entry_id}\n", "superseded already by bill-1"),
    ]
    header = good.splitlines()[0] + "\n"
    for rows, message in bad_lines:
        with pytest.raises(InvalidInputError, match=message):
            container.import_costs().execute(ImportCostsCommand(text=header + rows))
    with pytest.raises(InvalidInputError, match="line 1: header: missing unit; unknown cost"):
        container.import_costs().execute(
            ImportCostsCommand(text="executionId,stepId,quantity,cost\n")
        )
    assert _entries(container) == before


def test_a_sqlite_file_made_before_the_ledger_still_deletes_a_run(tmp_path: Path) -> None:
    path = tmp_path / "older.db"
    older = SqliteDatabase(path)
    SqliteExecutionStore(older, TableNames()).create_tables()
    with older.write() as connection:
        connection.execute('DROP TABLE "WfxCostLedgerTable"')
    older.close()
    database = SqliteDatabase(path)
    try:
        store = SqliteExecutionStore(database, TableNames())
        write_launch(store, a_launch(RUN))

        assert store.delete_execution(RUN) is True
    finally:
        database.close()


def test_a_step_reports_usage_on_the_local_bus_with_its_own_token(container: Any) -> None:
    _start(container)
    token = container.registration_credentials().issue(RUN, ROOT)

    published = container.publish_registration().register(
        RUN, ROOT, costs=[{"quantity": "7", "unit": "batch-vCPU-seconds"}], registration_token=token
    )

    assert published.accepted, published.reason
    (entry,) = _entries(container)
    assert (entry.source, entry.quantity, entry.currency) == (
        CostSource.REGISTRATION,
        Decimal(7),
        "USD",
    )
    assert entry.amount == Decimal(7) * Decimal("0.0000112444")
