"""RunArchive on SQLite: a run's items read and written as the JSON the `item` column holds."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from adapters.records import ALL_LIST_PARTITION, Item
from adapters.run_archive import EXECUTION_ID, RUN_PAGE, START, RunArchiveRows, definition_key
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql, load_item, quote
from adapters.sqlite.workflow_tables import create_workflow_tables
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from application.ports.files import ObjectStore
from application.ports.migration import ArchivedRun, ImportedRun


class SqliteRunArchive(RunArchiveRows):
    def __init__(
        self,
        database: SqliteDatabase,
        tables: TableNames,
        objects: ObjectStore | None = None,
        page_size: int = RUN_PAGE,
    ) -> None:
        super().__init__(objects, page_size)
        self._database = database
        self._schema = build_schema(tables)
        self._sql = {key: TableSql.render(table) for key, table in self._schema.tables.items()}
        # each table's items in key order: the ORDER BY of every select, made once
        self._order = {
            key: ", ".join(sql.q(name) for name in sql.table.primary_key)
            for key, sql in self._sql.items()
        }
        self._ready = False
        # the transaction this thread's import (a write) or export of a run (a read) holds
        self._held = threading.local()

    def _ensure_tables(self) -> None:
        # a file made by an earlier wfx lacks the newer tables (attempts, artifacts, ...)
        if not self._ready:
            # with the workflow tables' immutability guards, as the catalogs make them
            create_workflow_tables(self._database, self._schema)
            self._ready = True

    def _list_where(self) -> tuple[str, str]:
        self._ensure_tables()
        table = self._sql[ResourceKeys.WORKFLOW_EXECUTIONS]
        # the global list's rows (seed 000): a row without the partition is not exported until
        # `wfx maintenance backfill-list-partition` has stamped it, on both stores alike
        return table.name, f"{quote('allListPartition')} = ? AND {quote(START)} >= ?"

    def _newest_start(self, since: str) -> str | None:
        table, where = self._list_where()
        statement = f"SELECT MAX({quote(START)}) FROM {table} WHERE {where}"
        with self._database.read() as connection:
            (newest,) = connection.execute(statement, (ALL_LIST_PARTITION, since)).fetchone()
        return None if newest is None else str(newest)

    def _count_runs(self, since: str, until: str) -> int:
        table, where = self._list_where()
        statement = f"SELECT COUNT(*) FROM {table} WHERE {where} AND {quote(START)} <= ?"
        with self._database.read() as connection:
            (count,) = connection.execute(statement, (ALL_LIST_PARTITION, since, until)).fetchone()
        return int(count)

    def _run_ids_oldest_first(self, since: str, until: str) -> Iterator[str]:
        table, where = self._list_where()
        start, run = quote(START), quote(EXECUTION_ID)
        # after the last run read, in the date index's own order (start, run id): each page a
        # range of the index, no sort, however many runs lie behind it; a run deleted meanwhile
        # moves nothing
        statement = (
            f"SELECT {start}, {run} FROM {table} "
            f"WHERE {where} AND ({start}, {run}) > (?, ?) AND {start} <= ? "
            f"ORDER BY {start}, {run} LIMIT ?"
        )
        after: tuple[str, str] = (since, "")
        while True:
            values = (ALL_LIST_PARTITION, since, *after, until, self._page_size)
            with self._database.read() as connection:
                rows = connection.execute(statement, values).fetchall()
            yield from (str(run_id) for _, run_id in rows)
            if len(rows) < self._page_size:
                return
            after = rows[-1]

    def import_run(self, run: ArchivedRun) -> ImportedRun:
        # One BEGIN IMMEDIATE for the whole run, its checks with it: nothing another process
        # writes lands between a check and the write it allows, and a refused run leaves nothing
        with self._holding(write=True):
            return super().import_run(run)

    def export_run(self, workflow_execution_id: str) -> ArchivedRun:
        # One read transaction for the run's dozen selects: its items as of one moment (a write
        # landing meanwhile is wholly in or wholly out), and one BEGIN ... COMMIT, not one each
        with self._holding(write=False):
            return super().export_run(workflow_execution_id)

    @contextmanager
    def _holding(self, write: bool) -> Iterator[None]:
        """This thread's selects and writes in one transaction until the block ends."""
        self._ensure_tables()
        with self._database.write() if write else self._database.read() as connection:
            self._held.connection = connection
            try:
                yield
            finally:
                self._held.connection = None

    @contextmanager
    def _connection(self, write: bool) -> Iterator[sqlite3.Connection]:
        held: sqlite3.Connection | None = getattr(self._held, "connection", None)
        if held is not None:
            yield held
            return
        with self._database.write() if write else self._database.read() as connection:
            yield connection

    def _select(
        self,
        table: ResourceKeys,
        where: str,
        values: tuple[Any, ...],
        connection: sqlite3.Connection | None = None,
    ) -> list[Item]:
        self._ensure_tables()
        name, order = self._sql[table].name, self._order[table]
        statement = f"SELECT item FROM {name} WHERE {where} ORDER BY {order}"
        if connection is None:  # else inside the caller's write
            connection = getattr(self._held, "connection", None)
        if connection is not None:
            return [load_item(text) for (text,) in connection.execute(statement, values)]
        with self._database.read() as reading:
            return [load_item(text) for (text,) in reading.execute(statement, values)]

    def _partition(self, table: ResourceKeys, value: str) -> list[Item]:
        partition = TABLE_SPECS[table].partition.name
        return self._select(table, f"{quote(partition)} = ?", (value,))

    def _steps(self, workflow_execution_id: str) -> list[Item]:
        where = f"{quote(EXECUTION_ID)} = ?"
        return self._select(ResourceKeys.PIPELINE_EXECUTIONS, where, (workflow_execution_id,))

    def _get(
        self,
        table: ResourceKeys,
        key: Mapping[str, Any],
        connection: sqlite3.Connection | None = None,
    ) -> Item | None:
        where = " AND ".join(f"{quote(name)} = ?" for name in key)
        found = self._select(table, where, tuple(key.values()), connection)
        return found[0] if found else None

    def _put_if_absent(self, table: ResourceKeys, item: Mapping[str, Any]) -> bool:
        self._ensure_tables()
        with self._connection(write=True) as connection:
            return self._insert_if_absent(connection, table, item)

    def _put_version_if_absent(
        self, table: ResourceKeys, item: Mapping[str, Any], version: int | float
    ) -> bool | None:
        self._ensure_tables()
        with self._connection(write=True) as connection:
            key = definition_key(item)
            definition = self._get(ResourceKeys.WORKFLOW_DEFINITIONS, key, connection)
            latest = None if definition is None else definition.get("latestVersion")
            if isinstance(latest, (int, float)) and version > latest:
                return None
            return self._insert_if_absent(connection, table, item)

    def _insert_if_absent(
        self, connection: sqlite3.Connection, table: ResourceKeys, item: Mapping[str, Any]
    ) -> bool:
        sql = self._sql[table]
        key = TABLE_SPECS[table].key_attributes
        taken = f"SELECT 1 FROM {sql.name} WHERE " + " AND ".join(
            f"{sql.q(a.name)} = ?" for a in key
        )
        # looked up first, in the same transaction: the workflow tables' immutability triggers
        # refuse even an INSERT that would do nothing on a taken key
        if connection.execute(taken, tuple(item[a.name] for a in key)).fetchone():
            return False
        return connection.execute(sql.insert_if_absent, sql.row(dict(item))).rowcount > 0

    def _delete(self, table: ResourceKeys, key: Mapping[str, Any]) -> None:
        sql = self._sql[table]
        where = " AND ".join(f"{sql.q(name)} = ?" for name in key)
        with self._connection(write=True) as connection:
            connection.execute(f"DELETE FROM {sql.name} WHERE {where}", tuple(key.values()))
