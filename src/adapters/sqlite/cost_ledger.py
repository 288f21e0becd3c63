"""`CostLedger` on SQLite: the ledger table, one transaction per append, reads through its
indexes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from adapters.cost_records import (
    ALL_COSTS,
    ALL_COSTS_PARTITION,
    ENTRY_KEY,
    GROUP,
    PARTITION,
    RECORDED_AT,
    WORKFLOW_KEY,
    build_cost_ledger_record,
    parse_cost_ledger_record,
)
from adapters.sqlite.database import SqliteDatabase, Statements
from adapters.sqlite.schema import build_schema, create_tables
from adapters.sqlite.statements import TableSql, load_item
from adapters.tables import ResourceKeys, TableNames
from application.ports.costs import CostScope
from domain.costs import CostEntryExistsError, CostLedgerEntry, CostTally
from domain.errors import ExecutionNotFoundError

TALLY_BATCH = 1000  # rows fetched at a time: a tally holds one batch of entries, not the scope


def insert_cost_entries(
    statements: Statements, table: TableSql, entries: Iterable[CostLedgerEntry]
) -> None:
    """The entries, inside the caller's write: CostEntryExistsError (the caller's write rolls
    back) when an id is taken, as the ledger is append-only."""
    for entry in entries:
        if not statements.execute(
            table.insert_if_absent, table.row(build_cost_ledger_record(entry))
        ).rowcount:
            raise CostEntryExistsError.of(entry)


class SqliteCostLedger:
    """Cost entries in wfx's cost-ledger table."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        self._database = database
        self._schema = build_schema(tables)
        t = self._table = TableSql.render(self._schema[ResourceKeys.COST_LEDGER])
        # The table and the three index columns are those of the DynamoDB indexes; ordering by
        # the index sort key, then the table's keys, keeps equal dates in one stable order.
        self._by = {
            CostScope.EXECUTION: (PARTITION, t.q(ENTRY_KEY)),
            CostScope.WORKFLOW: (WORKFLOW_KEY, f"{t.q(RECORDED_AT)}, {t.q(PARTITION)}"),
            CostScope.GROUP: (GROUP, f"{t.q(RECORDED_AT)}, {t.q(PARTITION)}"),
            CostScope.ALL: (ALL_COSTS, f"{t.q(RECORDED_AT)}, {t.q(PARTITION)}"),
        }
        main = TableSql.render(self._schema[ResourceKeys.WORKFLOW_EXECUTIONS])
        self._run_exists = (
            f"SELECT 1 FROM {main.name} WHERE {main.q(PARTITION)} = ? LIMIT 1"  # the run's id
        )
        self._select = {
            scope: f"SELECT item FROM {t.name} WHERE {t.q(column)} = ? ORDER BY {order}, "
            f"{t.q(ENTRY_KEY)}"
            for scope, (column, order) in self._by.items()
        }

        # a tally needs no order; the corrections' targets first, in the same snapshot
        self._tally = {
            scope: f"SELECT item FROM {t.name} WHERE {t.q(column)} = ?"
            for scope, (column, _) in self._by.items()
        }
        self._replaced = {
            scope: f"SELECT json_extract(item, '$.supersedes') FROM {t.name} "
            f"WHERE {t.q(column)} = ? AND json_extract(item, '$.supersedes') IS NOT NULL"
            for scope, (column, _) in self._by.items()
        }

    def create_tables(self) -> None:
        create_tables(self._database, self._schema)

    def append(self, entries: Sequence[CostLedgerEntry]) -> None:
        if not entries:
            return
        with self._database.write() as connection:  # leaving with an error rolls it all back
            # read under the write lock: a delete of the run cannot land before the inserts
            for run_id in dict.fromkeys(entry.workflow_execution_id for entry in entries):
                if connection.execute(self._run_exists, (run_id,)).fetchone() is None:
                    raise ExecutionNotFoundError(run_id)
            insert_cost_entries(connection, self._table, entries)

    def list_entries(self, scope: CostScope, key: str | None) -> list[CostLedgerEntry]:
        value = ALL_COSTS_PARTITION if scope is CostScope.ALL else key
        if value is None:
            return []
        with self._database.read() as connection:
            rows = connection.execute(self._select[scope], (value,)).fetchall()
        return [parse_cost_ledger_record(load_item(text)) for (text,) in rows]

    def tally(self, scope: CostScope, key: str | None, tally: CostTally) -> None:
        value = ALL_COSTS_PARTITION if scope is CostScope.ALL else key
        if value is None:
            return
        with self._database.read() as connection:
            replaced = {row[0] for row in connection.execute(self._replaced[scope], (value,))}
            cursor = connection.execute(self._tally[scope], (value,))
            while rows := cursor.fetchmany(TALLY_BATCH):
                for (text,) in rows:
                    entry = parse_cost_ledger_record(load_item(text))
                    tally.add(entry, entry.entry_id in replaced)
