"""A SQLite file an earlier wfx wrote, moved to the current item shapes when it is first opened.

The file is copied beside itself first (`wfx.db.before-items-3`), then every item of the upgraded
tables is rewritten in one transaction and the file is marked (PRAGMA user_version), so the next
open costs one PRAGMA read. The items are read a batch at a time (SQLite spills the transaction's
pages to the WAL, not to memory): a process holds a batch, whatever the file's size. A process
killed half-way leaves nothing of it (the transaction is not committed): the next open upgrades
the file again. Two processes opening the file at once take turns on a lock beside it (held
through the upgrade): the second waits as long as the upgrade takes, then finds the mark and does
nothing.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from adapters.item_budget import Item
from adapters.item_shapes_version import ITEM_SHAPES_VERSION
from adapters.item_upgrade import UPGRADED_TABLES, upgraded_item
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.input_regroup import regroup_sqlite_inputs
from adapters.sqlite.schema import SqliteSchema, create_tables_unless_present
from adapters.sqlite.statements import TableSql, load_item
from adapters.tables import ResourceKeys
from domain.migration import TableItemShapes

BACKUP_SUFFIX = f".before-items-{ITEM_SHAPES_VERSION}"
# Rows read at a time: ~1 KB each, parsed
BATCH = 1000
UPGRADE_LOCK_SUFFIX = ".upgrade-lock"
# How long a process opening the file waits for another one's upgrade (~0.15 ms a row: a million
# rows take minutes): past it, the usual "another process held a write" error
UPGRADE_WAIT_SECONDS = 3600.0


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def _table_present(connection: sqlite3.Connection, name: str) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return connection.execute(query, (name,)).fetchone() is not None


def _back_up(path: Path) -> None:
    """Copy the file (a consistent snapshot, WAL included) beside itself, unless a copy is there:
    a second process must not replace the copy of the file as it was with an upgraded one."""
    target = backup_path(path)
    if target.exists():
        return
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    with sqlite3.connect(path) as source, sqlite3.connect(partial) as copy:
        source.backup(copy)
    try:
        os.link(partial, target)  # fails if another process made it meanwhile
    except FileExistsError:
        pass
    finally:
        partial.unlink()


def upgrade_items(database: SqliteDatabase, schema: SqliteSchema) -> int:
    """Bring the file's items to the current shapes; the number of items rewritten."""
    with database.read() as connection:
        if _version(connection) >= ITEM_SHAPES_VERSION:
            return 0
        main = schema.tables[UPGRADED_TABLES[0]].name
        holds_runs = _table_present(connection, main) and (
            connection.execute(f'SELECT 1 FROM "{main}" LIMIT 1').fetchone() is not None
        )
    if not holds_runs:
        return _upgrade_unless_marked(database, schema)  # a new file: marked, quick, no copy
    with _one_upgrade_at_a_time(database.path):
        if database.path is not None:
            _back_up(database.path)
        _make_resolved_inputs_table(database, schema)
        return _upgrade_unless_marked(database, schema)


@contextmanager
def _one_upgrade_at_a_time(path: Path | None) -> Iterator[None]:
    """No other process upgrades the file meanwhile: a write lock on an empty SQLite file beside
    it (`wfx.db.upgrade-lock`), which SQLite lets go however the process ends (a kill -9 too). A
    second process waits on it as long as the upgrade takes, where on the file's own write lock
    it would give up after the busy timeout. The holder removes the lock's file when done."""
    if path is None:
        yield  # in memory: one process
        return
    lock_path = path.with_name(path.name + UPGRADE_LOCK_SUFFIX)
    lock = sqlite3.connect(lock_path, timeout=UPGRADE_WAIT_SECONDS, isolation_level=None)
    try:
        lock.execute("BEGIN EXCLUSIVE")
    except sqlite3.OperationalError as error:
        if error.sqlite_errorcode == sqlite3.SQLITE_BUSY:
            raise  # waited as long as an upgrade may take
        # the lock's file removed by the holder it waited on, done: the file's own transaction
        # and mark keep the upgrade to one (a lock that cannot be made at all, likewise)
    try:
        yield
    finally:
        lock.close()
        with suppress(OSError):  # where an open file cannot be removed, the next holder will
            lock_path.unlink()


def _upgrade_unless_marked(database: SqliteDatabase, schema: SqliteSchema) -> int:
    """The rewrite in one transaction, unless the file is marked (by another process that held
    the lock before this one)."""
    with database.write() as connection:
        if _version(connection) >= ITEM_SHAPES_VERSION:
            return 0
        counts = _rewrite_tables(connection, schema, write=True)
        connection.execute(f"PRAGMA user_version = {ITEM_SHAPES_VERSION}")
    return sum(table.rewritten for table in counts)


def _stored_items(connection: sqlite3.Connection, name: str) -> Iterator[str]:
    """The table's items as it held them at the call, read a batch at a time in rowid order. A
    row the caller rewrites meanwhile (INSERT OR REPLACE deletes it and inserts it anew) gets a
    rowid past the last one there was: it is not read again."""
    first, last = connection.execute(f"SELECT MIN(rowid), MAX(rowid) FROM {name}").fetchone()
    statement = (
        f"SELECT rowid, item FROM {name} WHERE rowid BETWEEN ? AND ? ORDER BY rowid LIMIT {BATCH}"
    )
    while first is not None:
        rows = connection.execute(statement, (first, last)).fetchall()
        yield from (text for _, text in rows)
        first = rows[-1][0] + 1 if len(rows) == BATCH else None


def _delete_moved(connection: sqlite3.Connection, table: TableSql, old: Item, new: Item) -> None:
    """An item whose key the upgrade changed (a path now led by "/") leaves its old row."""
    key = table.table.primary_key
    if any(old.get(name) != new.get(name) for name in key):
        where = " AND ".join(f"{table.q(name)} = ?" for name in key)
        connection.execute(
            f"DELETE FROM {table.name} WHERE {where}", tuple(old[name] for name in key)
        )


def _rewrite_tables(
    connection: sqlite3.Connection, schema: SqliteSchema, write: bool
) -> tuple[TableItemShapes, ...]:
    """Each upgraded table's items read, and those not in the current shapes rewritten (`write`)
    or counted, inside the caller's transaction."""
    counts: list[TableItemShapes] = []
    for key in UPGRADED_TABLES:
        table = TableSql.render(schema.tables[key])
        read = rewritten = 0
        if _table_present(connection, schema.tables[key].name):
            for text in _stored_items(connection, table.name):
                read += 1
                item = load_item(text)
                upgraded = upgraded_item(key, item)
                if upgraded is None:
                    continue
                rewritten += 1
                if write:
                    _delete_moved(connection, table, item, upgraded)
                    connection.execute(table.upsert, table.row(upgraded))
        counts.append(
            TableItemShapes(table=schema.tables[key].name, read=read, rewritten=rewritten)
        )
    counts.append(regroup_sqlite_inputs(connection, schema, write))
    return tuple(counts)


def _make_resolved_inputs_table(database: SqliteDatabase, schema: SqliteSchema) -> None:
    """Where the regrouped inputs' files go: a table newer than the file (made, with whatever
    else is missing, before the upgrade's transaction)."""
    create_tables_unless_present(
        database, schema, schema.tables[ResourceKeys.RESOLVED_INPUT_FILES].name
    )


class SqliteItemShapes:
    """`wfx migrate items` on SQLite: the file was upgraded when it was opened; this checks it,
    and rewrites whatever still has an earlier shape (an item copied in from an older export)."""

    def __init__(self, database: SqliteDatabase, schema: SqliteSchema) -> None:
        self._database, self._schema = database, schema

    def upgrade(self, dry_run: bool) -> tuple[TableItemShapes, ...]:
        if not dry_run:
            _make_resolved_inputs_table(self._database, self._schema)
        return self._tables(write=not dry_run)

    def verify(self) -> tuple[TableItemShapes, ...]:
        return self._tables(write=False)

    def _tables(self, write: bool) -> tuple[TableItemShapes, ...]:
        with self._database.write() if write else self._database.read() as connection:
            return _rewrite_tables(connection, self._schema, write)
