"""ListPartitionBackfill contract: rows written without `allListPartition` are listed again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adapters.records import Item
from adapters.run_records import build_execution_record
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import ExecutionStore, ListScope
from application.ports.migration import ListPartitionBackfill, MainRowKey
from application.use_cases.backfill_list_partition import (
    BackfillListPartition,
    BackfillListPartitionCommand,
)
from domain.errors import InvalidInputError
from tests.contract.builders import a_launch, an_execution, at, write_launch
from tests.contract.conftest import BACKENDS

RawPut = Callable[[Item], None]


def _sqlite_put(database: Any) -> RawPut:
    from adapters.sqlite.schema import build_schema
    from adapters.sqlite.statements import TableSql

    table = TableSql.render(build_schema(TableNames())[ResourceKeys.WORKFLOW_EXECUTIONS])

    def put(item: Item) -> None:
        with database.write() as connection:
            connection.execute(table.upsert, table.row(item))

    return put


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> tuple[ExecutionStore, ListPartitionBackfill, RawPut]:
    """The store, its backfill, and a raw write of a main row as an older write path made it."""
    name = request.param
    store = request.getfixturevalue(f"{name}_execution_store")
    backfill = request.getfixturevalue(f"{name}_list_partition_backfill")
    if name == "dynamodb":
        from adapters.dynamodb.codec import to_wire

        client = request.getfixturevalue("moto_dynamodb_client")
        table = TableNames().get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)

        def put(item: Item) -> None:
            client.put_item(TableName=table, Item=to_wire(item))

        return store, backfill, put
    return store, backfill, _sqlite_put(request.getfixturevalue(f"{name}_database"))


def _unstamped(execution_id: str, minutes: int) -> Item:
    item = build_execution_record(an_execution(execution_id, start=at(minutes)))
    del item["allListPartition"]
    return item


def _listed(store: ExecutionStore) -> list[str]:
    page = store.list_executions(ListScope.ALL, None, 100, None)
    return [execution.workflow_execution_id for execution in page.items]


@pytest.fixture
def mixed(
    backend: tuple[ExecutionStore, ListPartitionBackfill, RawPut],
) -> tuple[ExecutionStore, ListPartitionBackfill]:
    """Three runs launched today, three raw rows without the partition, start dates interleaved."""
    store, backfill, put = backend
    for execution_id, minutes in (("r1", 1), ("r3", 3), ("r5", 5)):
        write_launch(store, a_launch(execution_id, start=at(minutes)))
    for execution_id, minutes in (("u2", 2), ("u4", 4), ("u6", 6)):
        put(_unstamped(execution_id, minutes))
    return store, backfill


def _run(backfill: ListPartitionBackfill, **command: Any) -> Any:
    return BackfillListPartition(backfill).execute(BackfillListPartitionCommand(**command))


def test_rows_without_the_partition_are_missing_from_the_global_list_until_stamped(
    mixed: tuple[ExecutionStore, ListPartitionBackfill],
) -> None:
    store, backfill = mixed
    assert _listed(store) == ["r5", "r3", "r1"]

    result = _run(backfill, page_size=2)

    assert (result.scanned, result.stamped, result.already_stamped) == (6, 3, 3)
    assert _listed(store) == ["u6", "r5", "u4", "r3", "u2", "r1"]
    assert store.get_execution("u4").execution_start_date == at(4)


def test_a_second_run_stamps_nothing(mixed: tuple[ExecutionStore, ListPartitionBackfill]) -> None:
    store, backfill = mixed
    _run(backfill)

    again = _run(backfill, page_size=1)

    assert (again.scanned, again.stamped, again.already_stamped, again.missing) == (6, 0, 6, 0)
    assert len(_listed(store)) == 6


def test_a_dry_run_counts_and_writes_nothing(
    mixed: tuple[ExecutionStore, ListPartitionBackfill],
) -> None:
    store, backfill = mixed

    result = _run(backfill, dry_run=True)

    assert (result.scanned, result.missing, result.stamped) == (6, 3, 0)
    assert _listed(store) == ["r5", "r3", "r1"]
    assert _run(backfill).stamped == 3


def test_an_empty_table_scans_nothing(
    backend: tuple[ExecutionStore, ListPartitionBackfill, RawPut],
) -> None:
    assert _run(backend[1]).scanned == 0


def test_a_stamp_never_overwrites_a_stamped_row_nor_makes_a_missing_one(
    mixed: tuple[ExecutionStore, ListPartitionBackfill],
) -> None:
    _, backfill = mixed
    row = MainRowKey("u2", "db1:wf1")
    assert backfill.stamp(row)
    # a concurrent backfill (or a writer) got there first: the second write is refused
    assert not backfill.stamp(row)
    assert not backfill.stamp(MainRowKey("gone", "db1:wf1"))
    assert backfill.stamp(MainRowKey("r1", "db1:wf1")) is False
    assert _run(backfill).scanned == 6


def test_pages_resume_from_the_cursor(
    mixed: tuple[ExecutionStore, ListPartitionBackfill],
) -> None:
    _, backfill = mixed
    first = backfill.scan_page(None, 4)
    assert first.scanned == 4 and first.next_cursor is not None
    rest = backfill.scan_page(first.next_cursor, 4)
    assert rest.scanned == 2
    unstamped = {row.workflow_execution_id for row in (*first.unstamped, *rest.unstamped)}
    assert unstamped == {"u2", "u4", "u6"}


@pytest.mark.parametrize("cursor", ["", "not-base64!", "WyJhIl0"])
def test_a_cursor_not_issued_by_the_scan_is_refused(
    backend: tuple[ExecutionStore, ListPartitionBackfill, RawPut], cursor: str
) -> None:
    with pytest.raises(InvalidInputError, match="cursor"):
        backend[1].scan_page(cursor, 10)
