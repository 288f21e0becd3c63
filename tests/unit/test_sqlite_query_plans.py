"""Each newest-first list of the SQLite store walks its GSI's index: no scan, no sort, any size."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_sql import ASSET_LINKS, LIST_PARTITIONS
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import AssetDirection, ListScope
from conftest import sqlite_tables_from_template
from tests.contract.builders import a_launch, at, write_launch

SCHEMA = build_schema(TableNames())
PAGES = {"page 1": False, "page 2": True}


@pytest.fixture
def database(tmp_path: Path) -> Iterator[SqliteDatabase]:
    database = SqliteDatabase(tmp_path / "plans.db")
    yield database
    database.close()


@pytest.fixture(params=["empty", "analyzed"])
def store(request: pytest.FixtureRequest, database: SqliteDatabase) -> SqliteExecutionStore:
    """A fresh database, and one whose planner has statistics of a skewed population."""
    store = SqliteExecutionStore(database, TableNames())
    sqlite_tables_from_template(database)  # a copy, ~1 ms, where making them is ~45
    store.create_tables()
    if request.param == "analyzed":
        for n in range(60):
            write_launch(
                store,
                a_launch(
                    f"e{n:02}",
                    start=at(n % 7),
                    workflow=f"db1:wf{n % 3}",
                    group="g1" if n % 2 else None,
                    inputs=[("db1:asset1", "a.obj"), (f"db1:asset{n % 5}", "b.obj")],
                    output_asset="db1:asset1" if n % 4 else None,
                ),
            )
        with database.write() as connection:
            connection.execute("ANALYZE")
    return store


def query_plan(database: SqliteDatabase, sql: str) -> str:
    with database.read() as connection:
        rows = connection.execute(f"EXPLAIN QUERY PLAN {sql}", ("x",) * sql.count("?"))
        return "\n".join(row[3] for row in rows)


def assert_walks_index(plan: str, index: str, continued: bool) -> None:
    assert f"USING INDEX {index} (" in plan or f"USING COVERING INDEX {index} (" in plan, plan
    assert "TEMP B-TREE" not in plan, plan  # neither ORDER BY nor GROUP BY sorts
    assert "SCAN" not in plan, plan
    if continued:  # page 2 seeks to the last row seen instead of filtering everything newer
        assert "(executionStartDate,workflowExecutionId)<(?,?)" in plan, plan


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("scope", list(ListScope))
def test_an_execution_list_walks_its_index_newest_first(
    store: SqliteExecutionStore, database: SqliteDatabase, scope: ListScope, page: str
) -> None:
    gsi, _ = LIST_PARTITIONS[scope]
    index = SCHEMA[ResourceKeys.WORKFLOW_EXECUTIONS].index_name(gsi)

    plan = query_plan(database, store.list_executions_sql(scope, PAGES[page]))

    assert_walks_index(plan, index, PAGES[page])


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("direction", list(AssetDirection))
def test_an_asset_list_walks_its_index_newest_first(
    store: SqliteExecutionStore, database: SqliteDatabase, direction: AssetDirection, page: str
) -> None:
    table, gsi, _ = ASSET_LINKS[direction]
    index = SCHEMA[table].index_name(gsi)

    plan = query_plan(database, store.asset_execution_refs_sql(direction, PAGES[page]))

    assert_walks_index(plan, index, PAGES[page])
