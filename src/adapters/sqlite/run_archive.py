"""RunArchive on SQLite: a run's items read and written as the JSON the `item` column holds."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from adapters.records import ALL_LIST_PARTITION, Item, format_table_date
from adapters.run_archive import EXECUTION_ID, RunArchiveRows
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql, load_item, quote
from adapters.sqlite.workflow_tables import create_workflow_tables
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from application.ports.files import ObjectStore


class SqliteRunArchive(RunArchiveRows):
    def __init__(
        self, database: SqliteDatabase, tables: TableNames, objects: ObjectStore | None = None
    ) -> None:
        super().__init__(objects)
        self._database = database
        self._schema = build_schema(tables)
        self._sql = {key: TableSql.render(table) for key, table in self._schema.tables.items()}
        self._ready = False

    def _ensure_tables(self) -> None:
        # a file made by an earlier wfx lacks the newer tables (attempts, artifacts, ...)
        if not self._ready:
            # with the workflow tables' immutability guards, as the catalogs make them
            create_workflow_tables(self._database, self._schema)
            self._ready = True

    def list_run_ids(self, since: datetime | None) -> list[str]:
        self._ensure_tables()
        table = self._sql[ResourceKeys.WORKFLOW_EXECUTIONS]
        start = quote("executionStartDate")
        # the global list's rows (seed 000): a row without the partition is not exported until
        # `wfx maintenance backfill-list-partition` has stamped it, on both stores alike
        statement = (
            f"SELECT {quote(EXECUTION_ID)} FROM {table.name} "
            f"WHERE {quote('allListPartition')} = ? AND {start} >= ? "
            f"ORDER BY {start}, {quote(EXECUTION_ID)}"
        )
        since_text = format_table_date(since) if since is not None else ""
        with self._database.read() as connection:
            rows = connection.execute(statement, (ALL_LIST_PARTITION, since_text)).fetchall()
        return [run_id for (run_id,) in rows]

    def _select(self, table: ResourceKeys, where: str, values: tuple[Any, ...]) -> list[Item]:
        self._ensure_tables()
        sql = self._sql[table]
        order = ", ".join(sql.q(name) for name in sql.table.primary_key)
        statement = f"SELECT item FROM {sql.name} WHERE {where} ORDER BY {order}"
        with self._database.read() as connection:
            return [load_item(text) for (text,) in connection.execute(statement, values)]

    def _partition(self, table: ResourceKeys, value: str) -> list[Item]:
        partition = TABLE_SPECS[table].partition.name
        return self._select(table, f"{quote(partition)} = ?", (value,))

    def _steps(self, workflow_execution_id: str) -> list[Item]:
        where = f"{quote(EXECUTION_ID)} = ?"
        return self._select(ResourceKeys.PIPELINE_EXECUTIONS, where, (workflow_execution_id,))

    def _get(self, table: ResourceKeys, key: Mapping[str, Any]) -> Item | None:
        where = " AND ".join(f"{quote(name)} = ?" for name in key)
        found = self._select(table, where, tuple(key.values()))
        return found[0] if found else None

    def _put_if_absent(self, table: ResourceKeys, item: Mapping[str, Any]) -> bool:
        self._ensure_tables()
        sql = self._sql[table]
        key = TABLE_SPECS[table].key_attributes
        taken = f"SELECT 1 FROM {sql.name} WHERE " + " AND ".join(
            f"{sql.q(a.name)} = ?" for a in key
        )
        with self._database.write() as connection:
            # looked up first, in the same transaction: the workflow tables' immutability
            # triggers refuse even an INSERT that would do nothing on a taken key
            if connection.execute(taken, tuple(item[a.name] for a in key)).fetchone():
                return False
            return connection.execute(sql.insert_if_absent, sql.row(dict(item))).rowcount > 0
