"""The item upgrade's input regrouping on SQLite (adapters/input_regroup.py), inside the
caller's transaction: each run's earlier file rows become its selection rows, and move to the
resolved files' table."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from adapters.input_regroup import (
    INPUT_SELECTIONS,
    is_earlier_input_row,
    regroup_inputs,
)
from adapters.item_budget import Item
from adapters.sqlite.schema import SqliteSchema
from adapters.sqlite.statements import TableSql, load_item
from adapters.tables import ResourceKeys
from domain.migration import TableItemShapes

EXECUTION_ID = "workflowExecutionId"


def _present(connection: sqlite3.Connection, name: str) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return connection.execute(query, (name,)).fetchone() is not None


def regroup_sqlite_inputs(
    connection: sqlite3.Connection, schema: SqliteSchema, write: bool
) -> TableItemShapes:
    """The inputs table's rows read, and its earlier rows regrouped (`write`) or counted. Writing
    needs the resolved files' table (the caller makes it first)."""
    name = schema.tables[ResourceKeys.WORKFLOW_EXECUTION_INPUTS].name
    if not _present(connection, name):
        return TableItemShapes(table=name, read=0)
    inputs = TableSql.render(schema.tables[ResourceKeys.WORKFLOW_EXECUTION_INPUTS])
    earlier: dict[str, list[Item]] = defaultdict(list)
    read = 0
    for (text,) in connection.execute(f"SELECT item FROM {inputs.name}").fetchall():
        read += 1
        item = load_item(text)
        if is_earlier_input_row(item):
            earlier[item[EXECUTION_ID]].append(item)
    rewritten = sum(len(rows) for rows in earlier.values())
    if write and earlier:
        resolved = TableSql.render(schema.tables[ResourceKeys.RESOLVED_INPUT_FILES])
        configuration = TableSql.render(
            schema.tables[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION]
        )
        key_columns = inputs.table.primary_key
        for execution_id, rows in earlier.items():
            found = connection.execute(
                f"SELECT item FROM {configuration.name} WHERE {configuration.q(EXECUTION_ID)} = ?",
                (execution_id,),
            ).fetchone()
            selections = load_item(found[0]).get(INPUT_SELECTIONS, []) if found else []
            regrouped = regroup_inputs(rows, selections)
            connection.executemany(resolved.upsert, resolved.rows(regrouped.resolved))
            where = " AND ".join(f"{inputs.q(column)} = ?" for column in key_columns)
            connection.executemany(
                f"DELETE FROM {inputs.name} WHERE {where}",
                [tuple(row[column] for column in key_columns) for row in rows],
            )
            connection.executemany(inputs.upsert, inputs.rows(regrouped.selections))
    return TableItemShapes(table=name, read=read, rewritten=rewritten)
