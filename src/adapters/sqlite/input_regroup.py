"""The item upgrade's input regrouping on SQLite (adapters/input_regroup.py), inside the
caller's transaction: each run's earlier file rows become its selection rows, and move to the
resolved files' table."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

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
# Runs whose ids are read at a time
RUN_BATCH = 1000


def _present(connection: sqlite3.Connection, name: str) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return connection.execute(query, (name,)).fetchone() is not None


def regroup_sqlite_inputs(
    connection: sqlite3.Connection, schema: SqliteSchema, write: bool
) -> TableItemShapes:
    """The inputs table's rows read a run at a time (one run's rows held, not the table's), and
    its earlier rows regrouped (`write`) or counted. Writing needs the resolved files' table (the
    caller makes it first)."""
    name = schema.tables[ResourceKeys.WORKFLOW_EXECUTION_INPUTS].name
    if not _present(connection, name):
        return TableItemShapes(table=name, read=0)
    tables = _Tables(schema)
    rows_of = f"SELECT item FROM {tables.inputs.name} WHERE {tables.inputs.q(EXECUTION_ID)} = ?"
    read = rewritten = 0
    for execution_id in _run_ids(connection, tables.inputs):
        # read whole before any write: the run's regrouped rows land in its own partition
        rows = [load_item(text) for (text,) in connection.execute(rows_of, (execution_id,))]
        read += len(rows)
        earlier = [item for item in rows if is_earlier_input_row(item)]
        rewritten += len(earlier)
        if write and earlier:
            tables.regroup_run(connection, execution_id, earlier)
    return TableItemShapes(table=name, read=read, rewritten=rewritten)


def _run_ids(connection: sqlite3.Connection, inputs: TableSql) -> Iterator[str]:
    """The runs the inputs table holds rows of, in id order, read a batch at a time (the table's
    key leads with the run: each batch a range of it)."""
    run, table = inputs.q(EXECUTION_ID), inputs.name
    first = f"SELECT DISTINCT {run} FROM {table} ORDER BY {run} LIMIT {RUN_BATCH}"
    after = f"SELECT DISTINCT {run} FROM {table} WHERE {run} > ? ORDER BY {run} LIMIT {RUN_BATCH}"
    ids = [run_id for (run_id,) in connection.execute(first)]
    while ids:
        yield from ids
        last = ids[-1]
        ids = [] if len(ids) < RUN_BATCH else [i for (i,) in connection.execute(after, (last,))]


class _Tables:
    """The statements a run's regrouping runs, rendered once for every run."""

    def __init__(self, schema: SqliteSchema) -> None:
        self.inputs = TableSql.render(schema.tables[ResourceKeys.WORKFLOW_EXECUTION_INPUTS])
        self.resolved = TableSql.render(schema.tables[ResourceKeys.RESOLVED_INPUT_FILES])
        configuration = TableSql.render(
            schema.tables[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION]
        )
        self.configuration_of = (
            f"SELECT item FROM {configuration.name} WHERE {configuration.q(EXECUTION_ID)} = ?"
        )
        self.key_columns = self.inputs.table.primary_key
        where = " AND ".join(f"{self.inputs.q(column)} = ?" for column in self.key_columns)
        self.delete_input = f"DELETE FROM {self.inputs.name} WHERE {where}"

    def regroup_run(
        self, connection: sqlite3.Connection, execution_id: str, rows: list[Item]
    ) -> None:
        """One run's earlier input rows become its selection rows and its resolved files'."""
        found = connection.execute(self.configuration_of, (execution_id,)).fetchone()
        selections = load_item(found[0]).get(INPUT_SELECTIONS, []) if found else []
        regrouped = regroup_inputs(rows, selections)
        connection.executemany(self.resolved.upsert, self.resolved.rows(regrouped.resolved))
        connection.executemany(
            self.delete_input, [tuple(row[c] for c in self.key_columns) for row in rows]
        )
        connection.executemany(self.inputs.upsert, self.inputs.rows(regrouped.selections))
