"""The event log's writes on SQLite: a transition's rows and its events in one transaction.

Every write is BEGIN IMMEDIATE, which takes the database's write lock first, so between reading
the run's last number and inserting the next nobody else writes: numbers come out gap-free with
no counter to race for (DynamoDB's adapter needs one). An event's key (run id, number) is the
primary key, so a number taken all the same fails the insert and rolls the transition back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from adapters.event_records import (
    SEQUENCE_NUMBER,
    build_event_record,
    event_text,
    parse_execution_event_record,
)
from adapters.item_budget import OffloadedBodies
from adapters.sqlite.database import SqliteDatabase, Statements
from adapters.sqlite.schema import SqliteSchema, create_tables_unless_present
from adapters.sqlite.statements import TableSql, dump_json, load_item
from adapters.tables import ResourceKeys
from application.ports.executions import EventNumberTakenError
from domain.errors import ExecutionNotFoundError
from domain.events import ExecutionEvent, NewEvent
from domain.paging import Page

_EXECUTION_ID = "workflowExecutionId"
_RUNS_KEPT = 1024


class SqliteUnitOfWork:
    """UnitOfWork and ExecutionEvents on SQLite; the execution store writes through it too."""

    def __init__(
        self, database: SqliteDatabase, schema: SqliteSchema, bodies: OffloadedBodies
    ) -> None:
        self._database, self._schema, self._bodies = database, schema, bodies
        events = TableSql.render(schema[ResourceKeys.EXECUTION_EVENTS])
        main = TableSql.render(schema[ResourceKeys.WORKFLOW_EXECUTIONS])
        run, number = events.q(_EXECUTION_ID), events.q(SEQUENCE_NUMBER)
        self._table_name = schema[ResourceKeys.EXECUTION_EVENTS].name
        self._insert = events.insert  # no OR REPLACE: a taken number is an error
        self._last = f"SELECT coalesce(max({number}), 0) FROM {events.name} WHERE {run} = ?"
        # An append numbers its events from the last it saw (a taken number fails the insert,
        # and the run's last is read again), each written only while the run has a main row.
        self._insert_if_run = (
            f"INSERT INTO {events.name} ({run}, {number}, item) SELECT ?, ?, ? "
            f"WHERE EXISTS (SELECT 1 FROM {main.name} WHERE {main.q(_EXECUTION_ID)} = ?)"
        )
        self._last_seen: dict[str, int] = {}
        columns = [*events.columns, "item"]
        self._row_width = len(columns)
        self._insert_rows = f"INSERT INTO {events.name} ({', '.join(map(events.q, columns))})"
        self._number_exists = f"SELECT 1 FROM {events.name} WHERE {run} = ? AND {number} = ?"
        self._page = (
            f"SELECT item FROM {events.name} WHERE {run} = ? AND {number} > ? "
            f"ORDER BY {number} LIMIT ?"
        )
        # rows are built as TableSql.row would build them, from these key columns
        assert events.columns == (_EXECUTION_ID, SEQUENCE_NUMBER), events.columns
        # one INSERT text per count of events appended together (a handful of counts occur)
        self._inserts_after_last: dict[tuple[int, int], str] = {}
        self._inserts_first: dict[tuple[int, int], str] = {}  # a run's first events, by count
        self._ready = False

    def ensure_table(self) -> None:
        """A database made before the event log gets its table on first use (one lookup)."""
        if self._ready:
            return
        create_tables_unless_present(self._database, self._schema, self._table_name)
        self._ready = True

    # -- inside a store's transaction ---------------------------------------------------------

    def append_in(
        self,
        statements: Statements,
        workflow_execution_id: str,
        events: Sequence[NewEvent],
        last: int | None = None,
    ) -> None:
        """Append `events` inside the caller's write transaction (whose lock orders them), as one
        statement, numbered past `last` or else the last number this process wrote for the run.

        That guess needs no read, and the statement checks it: a number taken fails the insert
        (the key), a number past a gap inserts nothing (the last one must be there). Either way
        only the statement is undone, and the run's last is read and the events inserted after
        it, still inside the caller's transaction."""
        if not events:
            return
        run_id = workflow_execution_id
        guess = self._last_seen.get(run_id) if last is None else last
        if guess is None or not self._insert_numbered(statements, run_id, events, guess):
            guess = int(statements.execute(self._last, (run_id,)).fetchone()[0])
            if not self._insert_numbered(statements, run_id, events, guess):
                # the log has a gap below its last number: never written so
                raise EventNumberTakenError(f"execution {run_id}: event {guess + 1} is taken")
        self._seen(run_id, guess + len(events))

    def _insert_numbered(
        self,
        statements: Statements,
        workflow_execution_id: str,
        events: Sequence[NewEvent],
        last: int,
    ) -> bool:
        """`events` numbered from `last + 1` in one INSERT, only when `last` is the run's last
        number: False (nothing inserted) when it is not (a number taken, or `last` not
        written)."""
        rows: list[Any] = []
        for number, event in enumerate(events, last + 1):
            text = event_text(event, number)
            if text is None:  # free text, fitted by the budget: its bodies in before its row
                record = build_event_record(event, number)
                self._bodies.put([record])
                text = record.json_text or dump_json(record)
            # TableSql.row of the record, its key columns being the event's run id and number
            rows += (event.workflow_execution_id, number, text)
        parameters: Sequence[Any] = rows
        if last:
            statement = self._insert_after_last(len(events), self._row_width)
            parameters = (*rows, last, workflow_execution_id, last)
        else:
            # a run's first events: no number before them to find, so a plain multi-row INSERT,
            # which SQLite writes straight in (the guard reads the table it inserts into, and
            # SQLite stages such an INSERT's rows in a temporary table first)
            statement = self._insert_first(len(events), self._row_width)
        try:
            inserted = statements.execute(statement, parameters).rowcount
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" not in str(exc) and "PRIMARY KEY" not in str(exc):
                raise
            return False
        return inserted > 0

    def _insert_after_last(self, count: int, width: int) -> str:
        statement = self._inserts_after_last.get((count, width))
        if statement is None:
            statement = self._inserts_after_last[count, width] = self._render_insert(count, width)
        return statement

    def _insert_first(self, count: int, width: int) -> str:
        statement = self._inserts_first.get((count, width))
        if statement is None:
            values = ", ".join([f"({', '.join('?' * width)})"] * count)
            statement = self._inserts_first[count, width] = f"{self._insert_rows} VALUES {values}"
        return statement

    def _render_insert(self, count: int, width: int) -> str:
        values = ", ".join([f"({', '.join('?' * width)})"] * count)
        return (
            f"{self._insert_rows} SELECT * FROM (VALUES {values}) "
            f"WHERE ? = 0 OR EXISTS ({self._number_exists})"
        )

    def _seen(self, workflow_execution_id: str, number: int) -> None:
        """A guess for the run's next write (a write rolled back after it leaves it too high,
        which the next insert finds out)."""
        self._last_seen[workflow_execution_id] = number
        if len(self._last_seen) > _RUNS_KEPT:
            self._last_seen.pop(next(iter(self._last_seen)), None)

    # -- UnitOfWork ---------------------------------------------------------------------------

    def append_events(
        self, workflow_execution_id: str, events: Sequence[NewEvent]
    ) -> tuple[ExecutionEvent, ...]:
        self.ensure_table()
        run_id = workflow_execution_id
        last = self._last_seen.get(run_id)
        if last is not None and len(events) == 1:
            appended = self._append_one(run_id, events[0], last)
            if appended is not None:
                return appended
        with self._database.write() as connection:
            last = self._last_seen.get(run_id)
            if last is None:
                last = int(connection.execute(self._last, (run_id,)).fetchone()[0])
            try:
                appended = self._insert_after(connection, run_id, events, last)
            except sqlite3.IntegrityError:
                # another process appended since this one last did: number past its events
                last = int(connection.execute(self._last, (run_id,)).fetchone()[0])
                appended = self._insert_after(connection, run_id, events, last)
        if appended:
            self._last_seen[run_id] = appended[-1].sequence_number  # once committed
            if len(self._last_seen) > _RUNS_KEPT:
                self._last_seen.pop(next(iter(self._last_seen)), None)
        return appended

    def _append_one(
        self, workflow_execution_id: str, event: NewEvent, last: int
    ) -> tuple[ExecutionEvent, ...] | None:
        """One event, numbered past the last this process saw, as one statement - its own
        transaction, atomic by itself. None when the number is taken (another process appended
        since): the caller then numbers it under the write lock."""
        number = last + 1
        record = build_event_record(event, number)
        self._bodies.put((record,))
        row = (workflow_execution_id, number, dump_json(record), workflow_execution_id)
        with self._database.exclusive_connection() as connection:
            if connection.in_transaction:
                return None  # inside someone's transaction: not a statement of its own
            try:
                inserted = connection.execute(self._insert_if_run, row).rowcount
            except sqlite3.IntegrityError:
                return None
        if not inserted:
            raise ExecutionNotFoundError(workflow_execution_id)
        self._last_seen[workflow_execution_id] = number
        return (event.numbered(number),)

    def _insert_after(
        self,
        connection: sqlite3.Connection,
        workflow_execution_id: str,
        events: Sequence[NewEvent],
        last: int,
    ) -> tuple[ExecutionEvent, ...]:
        """Insert `events` numbered from `last + 1`, each only while the run has a main row;
        IntegrityError when a number is taken (the statement wrote nothing)."""
        appended = []
        for number, event in enumerate(events, last + 1):
            record = build_event_record(event, number)
            self._bodies.put((record,))
            inserted = connection.execute(
                self._insert_if_run,
                (workflow_execution_id, number, dump_json(record), workflow_execution_id),
            ).rowcount
            if not inserted:
                raise ExecutionNotFoundError(workflow_execution_id)
            appended.append(event.numbered(number))
        return tuple(appended)

    # -- ExecutionEvents ----------------------------------------------------------------------

    def events_after(
        self, workflow_execution_id: str, after_sequence: int, limit: int
    ) -> Page[ExecutionEvent]:
        self.ensure_table()
        with self._database.read() as connection:
            # one row past the page says whether another page follows
            rows = connection.execute(
                self._page, (workflow_execution_id, after_sequence, limit + 1)
            ).fetchall()
        events = tuple(
            parse_execution_event_record(self._bodies.restore(load_item(text)))
            for (text,) in rows[:limit]
        )
        more = len(rows) > limit
        return Page(items=events, next_token=str(events[-1].sequence_number) if more else None)
