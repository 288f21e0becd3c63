"""MigrateV1 on every storage adapter of MigratedRuns: the earlier table's items as VAMS 2.5.x
wrote them become exactly the run-time rows, once, and show in every list."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from adapters.sqlite.statements import quote
from adapters.system import SystemClock
from adapters.tables import TABLES, TableNames
from adapters.v1_items import JsonFileV1Items
from application.ports.orchestration import OrchestratorExecution, OrchestratorReadError
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from application.use_cases.migrate_v1 import MigrateV1, MigrateV1Command, MigrateV1Result
from domain.errors import InvalidInputError
from domain.migration import MigrationOutcome
from domain.statuses import ExecutionStatus
from tests.v1_items import (
    BAD_ITEM,
    DB_WORKFLOW,
    GLOBAL,
    MIGRATED_AT,
    OPEN_ROWS,
    ROWS,
    STILL_RUNNING,
    STOPPED,
    UNKNOWN,
    MigrationClock,
    execution_arn,
    expected_rows,
    merged,
    old_items,
)

WRITTEN_TABLES = (
    "WorkflowExecutionsStorageTableV2",
    "WorkflowExecutionInputsStorageTable",
    "PipelineExecutionsStorageTable",
    "PipelineExecutionInputFilesStorageTable",
    "WorkflowExecutionConfigurationStorageTable",
    "PipelineExecutionInputConfigurationStorageTable",
)
STOPPED_AT = datetime(2024, 2, 3, 8, 30, tzinfo=UTC)
SFN_START = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


@dataclass
class Backend:
    runs: Any
    store: Any
    all_items: Callable[[], dict[str, list[dict[str, Any]]]]


def _sqlite_items(database: Any) -> Callable[[], dict[str, list[dict[str, Any]]]]:
    def read() -> dict[str, list[dict[str, Any]]]:
        names = TableNames()
        found: dict[str, list[dict[str, Any]]] = {}
        with database.read() as connection:
            for spec in TABLES:
                name = names.get_table_name(spec.key)
                exists = connection.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
                ).fetchone()
                if exists:
                    rows = connection.execute(f"SELECT item FROM {quote(name)}").fetchall()
                    if rows:
                        found[name] = [json.loads(row[0]) for row in rows]
        return found

    return read


def _dynamodb_items(client: Any) -> Callable[[], dict[str, list[dict[str, Any]]]]:
    from adapters.dynamodb.codec import from_wire

    def read() -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for name in client.list_tables()["TableNames"]:
            items = [from_wire(i) for i in client.scan(TableName=name)["Items"]]
            if items:
                found[name] = [_plain_numbers(item) for item in items]
        return found

    return read


def _plain_numbers(item: Mapping[str, Any]) -> dict[str, Any]:
    return {k: int(v) if type(v).__name__ == "Decimal" else v for k, v in item.items()}


@pytest.fixture(params=["sqlite_file", "sqlite_memory", "dynamodb"])
def backend(request: pytest.FixtureRequest) -> Backend:
    store = request.getfixturevalue(f"{request.param}_execution_store")
    if request.param == "dynamodb":
        from adapters.dynamodb.migrated_runs import DynamoDbMigratedRuns

        client = request.getfixturevalue("moto_dynamodb_client")
        runs = DynamoDbMigratedRuns(client, request.getfixturevalue("dynamodb_table_names"))
        return Backend(runs, store, _dynamodb_items(client))
    from adapters.sqlite.migrated_runs import SqliteMigratedRuns

    database = request.getfixturevalue(f"{request.param}_database")
    return Backend(SqliteMigratedRuns(database, TableNames()), store, _sqlite_items(database))


class ListSource:
    def __init__(self, items: list[dict[str, Any]]) -> None:
        self._items = items

    def items(self) -> Iterator[Mapping[str, Any]]:
        return iter(self._items)


class StepFunctionsAsked:
    """What Step Functions says of the open rows: one stopped, one unknown, one running."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self._answers: dict[str, OrchestratorExecution | None] = {}
        for row in OPEN_ROWS:
            arn = execution_arn(row[8], row[0])
            self._answers[arn] = {
                STOPPED: OrchestratorExecution(ExecutionStatus.ABORTED, stop_date=STOPPED_AT),
                UNKNOWN: None,
                STILL_RUNNING: OrchestratorExecution(ExecutionStatus.RUNNING, start_date=SFN_START),
            }[row[0]]

    def describe(self, arn: str) -> OrchestratorExecution | None:
        self.asked.append(arn)
        return self._answers[arn]


class StepFunctionsSilent:
    def __init__(self) -> None:
        self.asked = 0

    def describe(self, arn: str) -> OrchestratorExecution | None:
        self.asked += 1
        raise OrchestratorReadError("DescribeExecution: EndpointConnectionError")


class Checkpoint:
    def __init__(self, last: str | None = None) -> None:
        self.last = last

    def last_done(self) -> str | None:
        return self.last

    def record(self, item_key: str) -> None:
        self.last = item_key


def _migrate(
    backend: Backend,
    items: list[dict[str, Any]],
    sfn: Any,
    dry_run: bool = False,
    checkpoint: Checkpoint | None = None,
    definitions: Any = None,
) -> MigrateV1Result:
    use_case = MigrateV1(
        ListSource(items),
        backend.runs,
        sfn,
        checkpoint,
        clock=MigrationClock(),
        definitions=definitions,
    )
    return use_case.execute(MigrateV1Command(dry_run=dry_run))


def _by_key(tables: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    return {
        table: sorted(items, key=lambda i: json.dumps(i, sort_keys=True))
        for table, items in tables.items()
    }


EXPECTED_OPEN = (
    expected_rows(OPEN_ROWS[0], status="ABORTED", stop="2024-02-03T08:30:00Z"),
    expected_rows(OPEN_ROWS[1]),
    expected_rows(OPEN_ROWS[2], start="2024-06-01T12:00:00Z"),
)


def test_every_item_becomes_exactly_its_run_time_rows(backend: Backend) -> None:
    sfn = StepFunctionsAsked()
    result = _migrate(backend, [*old_items(), BAD_ITEM], sfn)

    expected = merged(*(expected_rows(row) for row in ROWS), *EXPECTED_OPEN)
    assert _by_key(backend.all_items()) == _by_key(expected)
    assert set(backend.all_items()) == set(WRITTEN_TABLES)  # no event, log or output
    outcomes = {item.workflow_execution_id: item.outcome for item in result.items}
    assert outcomes[STOPPED] is MigrationOutcome.RECONCILED
    assert outcomes[UNKNOWN] is MigrationOutcome.UNKNOWN_EXECUTION
    assert outcomes[STILL_RUNNING] is MigrationOutcome.RECONCILED
    assert all(outcomes[row[0]] is MigrationOutcome.MIGRATED for row in ROWS)
    assert result.counts[MigrationOutcome.MIGRATED] == len(ROWS)
    assert result.counts[MigrationOutcome.SKIPPED] == 1
    (skipped,) = [i for i in result.items if i.outcome is MigrationOutcome.SKIPPED]
    assert skipped.item_key == "db-a:asset-1:e1000000-0000-4000-8000-000000000099"
    assert skipped.detail is not None and skipped.detail.startswith("executionStatus: 'DONE'")
    assert len(sfn.asked) == len(OPEN_ROWS)  # only the open rows are asked about
    assert "$" not in json.dumps(backend.all_items())


def test_a_second_run_writes_nothing_and_says_every_item_is_migrated(backend: Backend) -> None:
    _migrate(backend, old_items(), StepFunctionsAsked())
    before = backend.all_items()
    sfn = StepFunctionsAsked()

    again = _migrate(backend, old_items(), sfn)

    assert backend.all_items() == before
    assert again.counts[MigrationOutcome.ALREADY_MIGRATED] == len(ROWS) + len(OPEN_ROWS)
    assert sum(again.counts.values()) == len(ROWS) + len(OPEN_ROWS)
    assert sfn.asked == []


def test_a_dry_run_writes_nothing_and_counts_every_outcome(backend: Backend) -> None:
    result = _migrate(backend, [*old_items(), BAD_ITEM], StepFunctionsAsked(), dry_run=True)

    assert backend.all_items() == {}
    assert result.dry_run
    assert result.counts == {
        MigrationOutcome.MIGRATED: len(ROWS),
        MigrationOutcome.RECONCILED: 2,
        MigrationOutcome.UNREACHABLE: 0,
        MigrationOutcome.UNKNOWN_EXECUTION: 1,
        MigrationOutcome.ALREADY_MIGRATED: 0,
        MigrationOutcome.SKIPPED: 1,
    }


def test_open_rows_stay_running_when_step_functions_does_not_answer(backend: Backend) -> None:
    sfn = StepFunctionsSilent()
    result = _migrate(backend, old_items(OPEN_ROWS), sfn)

    expected = merged(*(expected_rows(row) for row in OPEN_ROWS))
    assert _by_key(backend.all_items()) == _by_key(expected)
    assert sfn.asked == 1  # asked once; the rest are not made to wait on the same silence
    assert [i.outcome for i in result.items] == [MigrationOutcome.UNREACHABLE] * 3
    assert all("not reachable" in (i.detail or "") for i in result.items)
    main = backend.store.get_execution(OPEN_ROWS[2][0])
    assert main.status is ExecutionStatus.RUNNING
    # no start, no stop, no workflow known: the migration's time, flagged, never 1970
    assert main.execution_start_date == MIGRATED_AT
    assert main.start_date_estimated


def test_a_run_cut_short_resumes_after_its_checkpoint(backend: Backend) -> None:
    items = old_items(ROWS)
    checkpoint = Checkpoint()
    _migrate(backend, items[:2], StepFunctionsAsked(), checkpoint=checkpoint)
    assert checkpoint.last == f"db-a:asset-1:{ROWS[1][0]}"

    resumed = _migrate(backend, items, StepFunctionsAsked(), checkpoint=checkpoint)

    assert resumed.resumed_after == f"db-a:asset-1:{ROWS[1][0]}"
    assert resumed.before_checkpoint == 2
    assert [i.workflow_execution_id for i in resumed.items] == [row[0] for row in ROWS[2:]]
    expected = merged(*(expected_rows(row) for row in ROWS))
    assert _by_key(backend.all_items()) == _by_key(expected)


def test_migrated_runs_show_in_every_list_in_start_order(backend: Backend) -> None:
    _migrate(backend, old_items(), StepFunctionsAsked())
    lists = ListExecutions(backend.store, None, clock=SystemClock())

    def ids(**query: Any) -> list[str]:
        page = lists.execute(ListExecutionsQuery(limit=100, **query))
        return [e.workflow_execution_id for e in page.items]

    runs = [backend.store.get_execution(row[0]) for row in (*ROWS, *OPEN_ROWS)]
    newest_first = sorted(runs, key=lambda e: e.execution_start_date, reverse=True)
    assert ids() == [e.workflow_execution_id for e in newest_first]
    for workflow in ("GLOBAL/mesh-convert", "db-a/thumbnails"):
        key = workflow.replace("/", ":")
        assert ids(workflow=workflow) == [
            e.workflow_execution_id for e in newest_first if e.workflow_key == key
        ]
    rows = (*ROWS, *OPEN_ROWS)
    for database_id, asset_id in {(row[1], row[2]) for row in rows}:
        on_asset = {row[0] for row in rows if (row[1], row[2]) == (database_id, asset_id)}
        listed = ids(asset=f"{database_id}/{asset_id}")
        assert set(listed) == on_asset
        assert listed == [
            e.workflow_execution_id for e in newest_first if e.workflow_execution_id in on_asset
        ]


def test_a_typed_export_file_reads_as_the_plain_items(tmp_path: Path) -> None:
    def typed(value: Any) -> dict[str, Any]:
        return {"S": value}

    items = old_items()
    exported = tmp_path / "scan.json"
    exported.write_text(
        json.dumps({"Items": [{k: typed(v) for k, v in item.items()} for item in items]})
    )
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(items))

    assert list(JsonFileV1Items(exported).items()) == items
    assert list(JsonFileV1Items(plain).items()) == items


def test_a_migrated_run_deleted_leaves_no_row_in_any_table(backend: Backend) -> None:
    _migrate(backend, old_items(ROWS[:2]), StepFunctionsAsked())

    assert backend.store.delete_execution(ROWS[0][0])

    assert _by_key(backend.all_items()) == _by_key(expected_rows(ROWS[1]))


def test_a_checkpoint_naming_no_item_of_the_source_is_refused(backend: Backend) -> None:
    with pytest.raises(InvalidInputError, match=r"^--checkpoint: item 'db:gone:e0' is not in"):
        _migrate(
            backend, old_items(ROWS), StepFunctionsAsked(), checkpoint=Checkpoint("db:gone:e0")
        )
    assert backend.all_items() == {}


def test_a_second_item_of_the_same_execution_is_skipped_naming_the_first(
    backend: Backend,
) -> None:
    first = old_items(ROWS[:1])[0]
    other_asset = first | {"databaseId:assetId": "$db-a:$asset-3", "assetId": "asset-3"}

    result = _migrate(backend, [first, other_asset], StepFunctionsAsked())

    assert [i.outcome for i in result.items] == [
        MigrationOutcome.MIGRATED,
        MigrationOutcome.SKIPPED,
    ]
    assert result.items[1].detail == (
        f"executionId: also the id of item db-a:asset-1:{ROWS[0][0]}, migrated from that item"
    )
    assert _by_key(backend.all_items()) == _by_key(expected_rows(ROWS[0]))


class Definitions:
    """The workflows wfx knows, by key: only when each was created matters here."""

    def __init__(self, created: dict[tuple[str, str], datetime]) -> None:
        self._created = created
        self.asked: list[tuple[str, str]] = []

    def find_definition(self, database_id: str, workflow_id: str) -> Any:
        self.asked.append((database_id, workflow_id))
        created = self._created.get((database_id, workflow_id))
        return None if created is None else SimpleNamespace(created_at=created)


def test_an_unknown_start_is_dated_from_its_workflow_never_after_its_stop(
    backend: Backend,
) -> None:
    """VAMS 2.6 dates a run with no start from its workflow's creation; wfx does too, but a
    workflow created after the run stopped dates it from its stop."""
    early, late = datetime(2023, 5, 6, 7, 8, 9, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
    definitions = Definitions({DB_WORKFLOW: late, GLOBAL: early})
    no_start = (ROWS[4], OPEN_ROWS[2])  # db-a/thumbnails stopped 2024-07-08; GLOBAL never stopped

    _migrate(backend, old_items(no_start), StepFunctionsSilent(), definitions=definitions)

    expected = merged(
        expected_rows(ROWS[4]),  # its workflow is newer than its stop: the stop
        expected_rows(OPEN_ROWS[2], estimated="2023-05-06T07:08:09Z"),
    )
    assert _by_key(backend.all_items()) == _by_key(expected)
    assert sorted(definitions.asked) == sorted([DB_WORKFLOW, GLOBAL])
    for row in no_start:
        run = backend.store.get_execution(row[0])
        assert run.start_date_estimated
    recorded = _migrate(
        backend, old_items(ROWS[:1]), StepFunctionsSilent(), definitions=definitions
    )
    assert recorded.counts[MigrationOutcome.MIGRATED] == 1
    assert not backend.store.get_execution(ROWS[0][0]).start_date_estimated
    assert len(definitions.asked) == 2  # a run with its start recorded asks nothing


def test_a_migrated_run_shows_its_one_step_with_the_runs_status_and_dates(
    backend: Backend,
) -> None:
    _migrate(backend, old_items(ROWS[1:2]), StepFunctionsAsked())

    (step,) = backend.store.list_steps(ROWS[1][0])
    run = backend.store.get_execution(ROWS[1][0])
    assert (step.pipeline_id, step.end_state, step.step_index) == ("DELETED", True, 0)
    assert step.status.value == run.status.value == "FAILED"
    assert (step.start_date, step.stop_date) == (
        run.execution_start_date,
        run.execution_stop_date,
    )
