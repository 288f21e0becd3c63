"""The SQLite database the stores run on: plain `sqlite3`, one connection per thread, our BEGIN.

A store call is one `write()` (BEGIN IMMEDIATE ... COMMIT) or one `read()` (BEGIN ... COMMIT, one
snapshot for every query inside). Both cost a few microseconds, against ~50 us for a transaction
through SQLAlchemy's pool, which is why the stores speak to the driver directly.
"""

from __future__ import annotations

import gc
import sqlite3
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from adapters.sqlite.checkpointer import SAFETY_PAGES, Checkpointer

MEMORY = ":memory:"
BUSY_TIMEOUT_MS = 5000
STATEMENT_CACHE = 256  # every fixed statement of the stores stays prepared
_FILES: weakref.WeakSet[SqliteDatabase] = weakref.WeakSet()  # file databases: close_every_file

# What statements inside a transaction run on: its connection, or the transaction's own cursor
# (Transaction.cursor), which spares each statement the cursor connection.execute makes for it.
Statements = sqlite3.Connection | sqlite3.Cursor


def configure(connection: sqlite3.Connection, wal: bool) -> None:
    """The pragmas of every connection to a wfx database."""
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
        # the database's Checkpointer copies the WAL back off the writers' path; a COMMIT only
        # checkpoints when the WAL has grown well past where that thread would have
        connection.execute(f"PRAGMA wal_autocheckpoint={SAFETY_PAGES}")
    # NORMAL with WAL: a COMMIT appends to the WAL without an fsync; the WAL is synced before a
    # checkpoint copies it back, the file after. A crash of wfx loses no commit; a power cut or
    # an OS crash may roll back the last few, never corrupt the file (FULL: an fsync a commit)
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Rows reference each other only by id, as in DynamoDB; nothing is enforced between tables.
    connection.execute("PRAGMA foreign_keys=OFF")


def _connect(database: str, wal: bool) -> sqlite3.Connection:
    # isolation_level=None: the driver never BEGINs on its own (its legacy mode skips BEGIN before
    # a SELECT, so a multi-query read would not be one snapshot); every transaction is ours.
    # check_same_thread=False: a file connection is only used by its own thread, but close() may
    # run on another; the in-memory connection is shared under a lock.
    connection = sqlite3.connect(
        database,
        isolation_level=None,
        check_same_thread=False,
        cached_statements=STATEMENT_CACHE,
    )
    configure(connection, wal)
    return connection


def _rollback(connection: sqlite3.Connection, cursor: sqlite3.Cursor) -> None:
    # SQLite may have rolled back already (a full disk, an interrupt): a second ROLLBACK would
    # raise and hide the error that got us here.
    if connection.in_transaction:
        cursor.execute("ROLLBACK")


class Transaction:
    """BEGIN on entry, yielding the connection; COMMIT on a clean exit, ROLLBACK on an error.

    BEGIN, COMMIT and ROLLBACK go through a cursor of the transaction's own, made once, and so
    may the statements between (`cursor`): `execute` on the connection makes a cursor for each
    statement and drops it (a warm run's writes made ~35). Each statement on the cursor resets
    the one before, and COMMIT or ROLLBACK the last.
    """

    __slots__ = ("_begin", "_committed", "_connection", "_cursor", "_lock")

    def __init__(
        self,
        connection: sqlite3.Connection,
        begin: str,
        lock: threading.RLock | None,
        committed: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        self._connection, self._begin, self._lock = connection, begin, lock
        self._cursor = connection.cursor()
        self._committed = committed

    @property
    def cursor(self) -> sqlite3.Cursor:
        """The transaction's cursor, for its statements: one result read at a time (a
        statement's rows read as the next is run are lost)."""
        return self._cursor

    def __enter__(self) -> sqlite3.Connection:
        lock = self._lock
        if lock is not None:
            lock.acquire()
        try:
            self._cursor.execute(self._begin)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return self._connection

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        connection = self._connection
        try:
            if exc_type is not None:
                _rollback(connection, self._cursor)
                return
            try:
                self._cursor.execute("COMMIT")
            except BaseException:
                _rollback(connection, self._cursor)
                raise
            if self._committed is not None:
                self._committed(connection)
        finally:
            if self._lock is not None:
                self._lock.release()


class _Exclusive:
    """The connection outside any transaction, its lock held throughout (in memory)."""

    __slots__ = ("_connection", "_lock")

    def __init__(self, connection: sqlite3.Connection, lock: threading.RLock | None) -> None:
        self._connection, self._lock = connection, lock

    def __enter__(self) -> sqlite3.Connection:
        if self._lock is not None:
            self._lock.acquire()
        return self._connection

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._lock is not None:
            self._lock.release()


class _Connection:
    """One connection, its two reusable transactions and its use outside one (weakly tracked,
    so close() finds it)."""

    __slots__ = ("__weakref__", "connection", "exclusive", "lock", "owner", "read", "write")

    def __init__(
        self,
        connection: sqlite3.Connection,
        lock: threading.RLock | None,
        committed: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        self.connection, self.lock = connection, lock
        self.owner = threading.get_ident()  # a file's connection is only used by its maker
        self.write = Transaction(connection, "BEGIN IMMEDIATE", lock, committed)
        self.read = Transaction(connection, "BEGIN", lock)
        self.exclusive = _Exclusive(connection, lock)


def close_every_file() -> None:
    """Close every SQLite file this process has open (each one's connections and checkpoint
    thread), as the interpreter's exit does when it frees them: the last connection to a file
    checkpoints its WAL and removes it. For a process that leaves without that teardown; a
    connection another thread that is still running holds stays open (`close`), as the
    teardown leaves it, and so does its WAL."""
    gc.collect()  # an ended thread's connection is garbage only a collection frees (cycles)
    for database in list(_FILES):
        database.close()


class SqliteDatabase:
    """A SQLite file (WAL, one connection per thread), or one in-memory database for all threads.

    In memory every thread shares one connection (each new ":memory:" connection would be an empty
    database of its own), so a lock keeps two threads' transactions from interleaving on it.
    """

    def __init__(self, path: str | Path | None) -> None:
        self._shared: _Connection | None = None
        self._path: Path | None = None
        self._checkpointer: Checkpointer | None = None
        if path is None or str(path) == MEMORY:
            self._shared = _Connection(_connect(MEMORY, wal=False), threading.RLock())
        else:
            self._path = Path(path).expanduser()
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._checkpointer = Checkpointer(self._path)
            _FILES.add(self)
        self._local = threading.local()
        self._opened: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._opening = threading.Lock()

    @property
    def path(self) -> Path | None:
        """The database file; None in memory."""
        return self._path

    def user_version(self) -> int:
        """PRAGMA user_version: the item shapes the file's items are in (item_upgrade.py)."""
        with self.read() as connection:
            return int(connection.execute("PRAGMA user_version").fetchone()[0])

    def write(self) -> Transaction:
        """A write transaction: BEGIN IMMEDIATE takes the write lock first, so it never has to
        upgrade a read lock half-way (the upgrade is what fails with SQLITE_BUSY in WAL mode)."""
        try:
            transaction: Transaction = self._local.current.write
        except AttributeError:
            transaction = self._current().write
        return transaction

    def read(self) -> Transaction:
        """A read transaction: every query inside sees the same snapshot."""
        try:
            transaction: Transaction = self._local.current.read
        except AttributeError:
            transaction = self._current().read
        return transaction

    def exclusive_connection(self) -> _Exclusive:
        """This thread's connection outside any transaction, for a caller that runs its own (the
        schema's create_all) or one statement that is a transaction by itself; in memory the lock
        is held throughout. (A class, not a generator's context: each launch reads its
        workflow's version through it.)"""
        try:
            exclusive: _Exclusive = self._local.current.exclusive
        except AttributeError:
            exclusive = self._current().exclusive
        return exclusive

    def close(self) -> None:
        """Close every connection (and stop the checkpoint thread); a later call on a file
        database opens new ones. The connection of another thread that is still running is let
        go, not closed: that thread may be inside a statement on it (closing it there crashes
        the process), and it closes as that thread drops it; the thread's next call opens a new
        one. A connection opened after the connections are taken is the next close's."""
        with self._opening:
            opened, self._opened = list(self._opened), weakref.WeakSet()
            self._local = threading.local()
        if self._checkpointer is not None:
            self._checkpointer.close()
        others = {thread.ident for thread in threading.enumerate()} - {threading.get_ident()}
        for held in opened:
            if held.owner not in others:
                held.connection.close()
        if self._shared is not None:
            self._shared.connection.close()

    def _current(self) -> _Connection:
        current = self._shared
        if current is None:
            assert self._path is not None and self._checkpointer is not None
            connection = _connect(str(self._path), wal=True)
            current = _Connection(connection, None, self._checkpointer.committed)
            with self._opening:
                self._opened.add(current)
        # A thread that ends drops its entry here; the connection then closes with it.
        self._local.current = current
        return current
