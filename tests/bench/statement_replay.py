"""wfx's own statements for one recorded run, replayed with plain `sqlite3`: the SQLite share.

The raw recorder (`raw_recorder.py`) is the floor of what a run must make durable; this is the
floor of what wfx asks SQLite to do for it - the same statements, in the same transactions, on
the same tables and indexes (the seed's eleven tables and their GSIs), with no Python between
them. A run's time over its replay is wfx's Python; the replay over the raw recorder is the
price of the layout and of the statements themselves.

The statements are captured with `set_trace_callback` as SQLite expands them (literals in
place), and each replay gets fresh ids, so it inserts new rows as a run does. Its connection has
wfx's pragmas and its commits wake a checkpoint thread of their own, as wfx's do: neither side
pays the other's checkpoints.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from adapters.sqlite.checkpointer import Checkpointer
from adapters.sqlite.database import SqliteDatabase, configure

_CHECKPOINT = "PRAGMA wal_checkpoint"
_SEPARATOR = "\x1e"  # between statements while ids are replaced: in no SQL text
# the run's and its steps' ids: VAMS GUIDs (32 hex), dashed UUIDs from wfx before 0.2
_UUID = re.compile(r"\b[0-9a-f]{32}\b|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def capture(database: SqliteDatabase, call: Callable[[], object]) -> list[str]:
    """The statements `call` runs on this thread's connection to `database`, in order."""
    statements: list[str] = []
    with database.read() as connection:
        pass  # the thread's connection, opened if need be
    connection.set_trace_callback(statements.append)
    try:
        call()
    finally:
        connection.set_trace_callback(None)
    if not any(statement.startswith("COMMIT") for statement in statements):
        raise AssertionError("no transaction was captured: the run used another connection")
    # the checkpointer's finishing round, when it falls in the captured run, is the WAL's
    # (once in ~2,000 pages), not the run's: replayed each time, it made the replay 2-3x dearer
    return [statement for statement in statements if not statement.startswith(_CHECKPOINT)]


class StatementReplay:
    """The captured statements, replayed on a raw connection of their own to the same file."""

    def __init__(self, path: Path, statements: list[str]) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        configure(self.connection, wal=True)
        self._checkpointer = Checkpointer(path)
        self.statements = statements
        self._commits = frozenset(i for i, s in enumerate(statements) if s.startswith("COMMIT"))
        self.transactions = len(self._commits)
        self._ids = sorted(set(_UUID.findall(_SEPARATOR.join(statements))))
        self._prepared: Iterator[list[str]] = iter(())

    def prepare(self, runs: int) -> None:
        """Texts for the next `runs` replays, each with ids of its own, made before the timing."""
        template = _SEPARATOR.join(self.statements)
        batches = []
        for _ in range(runs):
            text = template
            for old in self._ids:
                text = text.replace(old, uuid.uuid4().hex if len(old) == 32 else str(uuid.uuid4()))
            batches.append(text.split(_SEPARATOR))
        self._prepared = iter(batches)

    def run(self) -> None:
        execute, commits = self.connection.execute, self._commits
        committed = self._checkpointer.committed
        for index, statement in enumerate(next(self._prepared)):
            execute(statement).fetchall()
            if index in commits:
                committed(self.connection)

    def close(self) -> None:
        self._checkpointer.close()
        self.connection.close()
