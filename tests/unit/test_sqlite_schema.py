"""The SQLite DDL (declared with SQLAlchemy) and the hand-written statements agree on every name.

The statements are plain strings rendered from `adapters.tables`; the tables are created by
SQLAlchemy's `create_all`. These tests read what SQLite actually holds after `create_tables` and
hold it against the layout the statements are rendered from.
"""

from __future__ import annotations

import gc
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_sql import ExecutionSql
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import (
    ITEM_COLUMN,
    build_schema,
    create_tables,
    index_columns,
    index_name,
)
from adapters.tables import CREATED_TABLES, ResourceKeys, TableNames
from tests.contract.builders import a_launch, write_launch

NAMES = TableNames(prefix="T1.")  # a prefix with a dot: every name must be quoted to work
SCHEMA = build_schema(NAMES)


def _created(kind: str, folder: Path) -> SqliteDatabase:
    database = SqliteDatabase(folder / "schema.db" if kind == "file" else None)
    create_tables(database, SCHEMA)
    return database


@pytest.fixture(params=["file", "memory"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqliteDatabase]:
    database = _created(request.param, tmp_path)
    yield database
    database.close()


@pytest.fixture(scope="module", params=["file", "memory"])
def created(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SqliteDatabase]:
    """The tables as `create_tables` made them, once per kind for the tests that only read what
    SQLite holds (90 of them; each made its own before, 0.1 s apiece)."""
    database = _created(request.param, tmp_path_factory.mktemp("schema"))
    yield database
    database.close()


def table_info(connection: sqlite3.Connection, table: str) -> list[tuple[str, str, int, int]]:
    """(name, type, not null, position in the primary key) of each column, in order."""
    rows = connection.execute(f"PRAGMA table_info({_literal(table)})").fetchall()
    return [(name, kind, notnull, pk) for _, name, kind, notnull, _, pk in rows]


def indexes(connection: sqlite3.Connection, table: str) -> dict[str, tuple[str, ...]]:
    """The columns of each index SQLAlchemy created (not SQLite's primary-key autoindex)."""
    found = {}
    for _, name, _, origin, _ in connection.execute(f"PRAGMA index_list({_literal(table)})"):
        if origin == "c":  # CREATE INDEX, as opposed to "pk" / "u"
            rows = connection.execute(f"PRAGMA index_info({_literal(name)})").fetchall()
            found[name] = tuple(column for _, _, column in sorted(rows))
    return found


def _literal(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"


@pytest.mark.parametrize("key", [spec.key for spec in CREATED_TABLES])
def test_each_table_has_the_key_columns_and_item_that_the_statements_write(
    created: SqliteDatabase, key: ResourceKeys
) -> None:
    table = SCHEMA[key]
    rendered = ExecutionSql(SCHEMA).tables[table.spec.key]

    with created.read() as connection:
        columns = table_info(connection, table.name)

    assert [name for name, *_ in columns] == [*rendered.columns, ITEM_COLUMN]
    primary_key = sorted((pk, name) for name, _, _, pk in columns if pk)
    assert tuple(name for _, name in primary_key) == table.primary_key
    required = {name for name, _, notnull, _ in columns if notnull}
    assert required == {*table.primary_key, ITEM_COLUMN}  # index-only keys are sparse (NULL)
    numeric = {name for name, kind, _, _ in columns if kind == "INTEGER"}
    assert numeric == {a.name for a in table.spec.all_key_attributes if a.type == "N"}


@pytest.mark.parametrize("key", [spec.key for spec in CREATED_TABLES])
def test_each_gsi_is_one_index_on_the_columns_the_lists_seek_on(
    created: SqliteDatabase, key: ResourceKeys
) -> None:
    table = SCHEMA[key]

    with created.read() as connection:
        found = indexes(connection, table.name)

    assert found == {
        index_name(table.name, index): index_columns(table.spec, index)
        for index in table.spec.indexes
    }
    for index in table.spec.indexes:  # the name the query-plan tests look for
        assert table.index_name(index.name) in found


def test_the_earlier_table_is_not_made_a_sqlite_user_migrates_from_a_file(
    created: SqliteDatabase,
) -> None:
    earlier = SCHEMA[ResourceKeys.WORKFLOW_EXECUTIONS_V1].name
    with created.read() as connection:
        assert table_info(connection, earlier) == []


def test_creating_the_tables_twice_changes_nothing(database: SqliteDatabase) -> None:
    store = SqliteExecutionStore(database, NAMES)
    write_launch(store, a_launch("e1"))

    create_tables(database, SCHEMA)
    store.create_tables()

    assert store.get_execution("e1").workflow_execution_id == "e1"
    with database.read() as connection:
        (count,) = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    tables = len(CREATED_TABLES)
    gsi_indexes = sum(len(spec.indexes) for spec in CREATED_TABLES)
    assert count == tables + gsi_indexes + tables  # plus one primary-key autoindex per table


def test_the_memory_database_outlives_the_engine_that_created_its_tables() -> None:
    database = SqliteDatabase(None)
    store = SqliteExecutionStore(database, NAMES)
    store.create_tables()
    gc.collect()  # SQLAlchemy's engine and pool are gone: they must not have closed the connection

    write_launch(store, a_launch("e1"))

    assert store.get_execution("e1").workflow_execution_id == "e1"
    database.close()


def test_reading_and_writing_rows_never_imports_sqlalchemy(tmp_path: Path) -> None:
    """Cold start: a command that only reads or writes rows does not pay ~0.12 s for SQLAlchemy."""
    path = tmp_path / "rows.db"
    created = SqliteDatabase(path)
    SqliteExecutionStore(created, TableNames()).create_tables()
    created.close()
    script = textwrap.dedent(
        f"""
        import sys
        from adapters.sqlite.catalogs import SqliteAssetCatalog, SqliteWorkflowCatalog
        from adapters.sqlite.database import SqliteDatabase
        from adapters.sqlite.execution_store import SqliteExecutionStore
        from adapters.tables import TableNames
        from application.ports.executions import ListScope
        from tests.contract.builders import a_launch, write_launch

        database = SqliteDatabase({str(path)!r})
        store = SqliteExecutionStore(database, TableNames())
        write_launch(store, a_launch("e1"))
        assert store.list_executions(ListScope.ALL, None, 10, None).items
        assert store.get_details("e1").steps
        assert SqliteWorkflowCatalog(database, TableNames()).latest_version("db", "wf") is None
        assert SqliteAssetCatalog(database, TableNames()).list_files("db", "asset") == []
        print(sorted(name for name in sys.modules if name.split(".")[0] == "sqlalchemy"))
        """
    )
    root = Path(__file__).resolve().parents[2]

    result = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "[]"
