"""The shared state of the SQLite execution store's parts (writer, reads, queries)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from adapters.item_budget import OffloadedBodies
from adapters.records import Item
from adapters.sqlite.approval_rows import ApprovalRowSql
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_sql import EXECUTION_ID, STEP_ID, ExecutionSql
from adapters.sqlite.schema import build_schema, create_tables
from adapters.sqlite.statements import TableSql, chunks, load_item, placeholders
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.step_records import parse_run_steps
from adapters.tables import ResourceKeys, TableNames
from application.ports.files import ObjectStore
from domain.execution import PipelineExecution, UnreadableRow


class SqliteStoreBase:
    """What the parts of the SQLite execution store share: the database, the statements, the
    offloaded bodies and the run's unit of work."""

    def __init__(
        self, database: SqliteDatabase, tables: TableNames, *, objects: ObjectStore | None = None
    ) -> None:
        """`objects` holds the bodies the item budgets move out of rows (adapters/item_budget):
        SQLite rows follow DynamoDB's budgets, so both stores hold the same items."""
        self._database = database
        self._bodies = OffloadedBodies(objects)
        self._whole = self._bodies.restore
        self._sql = ExecutionSql(build_schema(tables))
        self._attempts_ready = False
        self._write_tables_ready = False  # a run's write: the above and the event log's table
        # every transition's write goes through it, with the transition's events
        self._unit_of_work = SqliteUnitOfWork(database, self._sql.schema, self._bodies)
        self._approval_rows = ApprovalRowSql(self._sql.schema)
        steps = self._sql.steps
        step_key = f"{steps.q(STEP_ID)} = ? AND {steps.q(EXECUTION_ID)} = ?"
        self._step_by_key = f"SELECT item FROM {steps.name} WHERE {step_key}"
        self._step_key = step_key
        # one versioned UPDATE per set of attributes it writes, made on first use
        self._lists_updates: dict[tuple[tuple[str, ...], tuple[str, ...]], str] = {}

    def _ensure_attempts_table(self) -> None:
        """A database made before attempts were kept gets their table on first use.

        Other tables are created with the file; this one is newer, and a run on an older file
        must not fail for want of it. One lookup per store, SQLAlchemy only when it is missing.
        """
        if self._attempts_ready:
            return
        # the cost ledger, approvals and artifacts are newer still, and a permanent delete goes
        # through their tables too
        names = [
            self._sql.schema.tables[key].name
            for key in (
                ResourceKeys.TASK_EXECUTIONS,
                ResourceKeys.COST_LEDGER,
                ResourceKeys.APPROVAL_REQUESTS,
                ResourceKeys.ARTIFACTS,
                ResourceKeys.RESOLVED_INPUT_FILES,
            )
        ]
        with self._database.read() as connection:
            found = connection.execute(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                f"({placeholders(len(names))})",
                names,
            ).fetchone()
        if found[0] < len(names):
            create_tables(self._database, self._sql.schema)
        self._attempts_ready = True

    def _steps(
        self,
        connection: sqlite3.Connection,
        workflow_execution_id: str,
        left_out: list[UnreadableRow] | None = None,
    ) -> list[PipelineExecution]:
        rows = connection.execute(self._sql.steps_of_execution, (workflow_execution_id,))
        return parse_run_steps([self._whole(load_item(text)) for (text,) in rows], left_out)

    @staticmethod
    def _items_in(
        connection: sqlite3.Connection,
        table: TableSql,
        column: str,
        values: Sequence[str],
        per_partition: int | None = None,
    ) -> list[Item]:
        """Every item whose `column` is one of `values`; with `per_partition` (`column` then
        being the partition key), only the first that many of each partition by sort key."""
        items: list[Item] = []
        for chunk in chunks(values):
            if per_partition is None:
                rows = connection.execute(table.select_items_in(column, len(chunk)), chunk)
            else:
                statement = ExecutionSql.first_rows_in(table, len(chunk))
                rows = connection.execute(statement, (*chunk, per_partition))
            items.extend(load_item(text) for (text,) in rows)
        return items
