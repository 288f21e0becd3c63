"""ListPartitionBackfill on SQLite: the main table in key order, item and column stamped."""

from __future__ import annotations

from adapters.list_partition import (
    EXECUTION_ID,
    PARTITION,
    PARTITION_VALUE,
    WORKFLOW_KEY,
    decode_cursor,
    encode_cursor,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import ITEM_COLUMN, build_schema
from adapters.sqlite.statements import json_path, quote
from adapters.tables import ResourceKeys, TableNames
from application.ports.migration import MainRowKey, MainRowPage


class SqliteListPartitionBackfill:
    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        self._database = database
        name = quote(build_schema(tables)[ResourceKeys.WORKFLOW_EXECUTIONS].name)
        run, workflow, partition = quote(EXECUTION_ID), quote(WORKFLOW_KEY), quote(PARTITION)
        item, path = quote(ITEM_COLUMN), json_path(PARTITION)
        # The index column mirrors the item's attribute (schema.py); a row lacks the partition
        # when either does, and the stamp sets both, so the index and the item agree again.
        lacking = f"({partition} IS NULL OR json_extract({item}, {path}) IS NULL)"
        select = f"SELECT {run}, {workflow}, {lacking} FROM {name}"
        order = f"ORDER BY {run}, {workflow} LIMIT ?"
        self._first = f"{select} {order}"
        self._after = f"{select} WHERE ({run}, {workflow}) > (?, ?) {order}"
        self._stamp = (
            f"UPDATE {name} SET {partition} = ?, {item} = json_set({item}, {path}, ?) "
            f"WHERE {run} = ? AND {workflow} = ? AND {lacking}"
        )

    def scan_page(self, cursor: str | None, limit: int) -> MainRowPage:
        with self._database.read() as connection:
            if cursor is None:
                rows = connection.execute(self._first, (limit,)).fetchall()
            else:
                after = decode_cursor(cursor)
                parameters = (after.workflow_execution_id, after.workflow_key, limit)
                rows = connection.execute(self._after, parameters).fetchall()
        keys = [MainRowKey(run, workflow) for run, workflow, _ in rows]
        return MainRowPage(
            scanned=len(rows),
            unstamped=tuple(
                key for key, (_, _, lacking) in zip(keys, rows, strict=True) if lacking
            ),
            next_cursor=encode_cursor(keys[-1]) if len(rows) == limit else None,
        )

    def stamp(self, row: MainRowKey) -> bool:
        parameters = (PARTITION_VALUE, PARTITION_VALUE, row.workflow_execution_id, row.workflow_key)
        with self._database.write() as connection:
            return connection.execute(self._stamp, parameters).rowcount > 0
