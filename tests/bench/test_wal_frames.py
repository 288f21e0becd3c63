"""The WAL reader behind `python -m tests.bench.wal_frames`, on a WAL SQLite itself wrote."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.bench.wal_frames import frames_of


def _table_in_wal_mode(tmp_path: Path) -> sqlite3.Connection:
    """A file in WAL mode with a table `t`, checkpointed by hand only."""
    connection = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
    return connection


def test_each_commit_is_read_with_the_pages_it_wrote(tmp_path: Path) -> None:
    connection = _table_in_wal_mode(tmp_path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for value in ("one", "two"):
        connection.execute("INSERT INTO t (v) VALUES (?)", (value,))
    (root,) = connection.execute("SELECT rootpage FROM sqlite_schema WHERE name = 't'").fetchone()

    commits = frames_of((tmp_path / "w.db-wal").read_bytes())

    assert len(commits) == 2
    assert all(root in pages for pages in commits)


def test_frames_of_an_older_generation_past_the_new_ones_are_not_read(tmp_path: Path) -> None:
    connection = _table_in_wal_mode(tmp_path)
    for value in range(5):
        connection.execute("INSERT INTO t (v) VALUES (?)", (str(value),))
    connection.execute("PRAGMA wal_checkpoint(RESTART)")  # the WAL starts over, not truncated
    connection.execute("INSERT INTO t (v) VALUES ('new')")

    commits = frames_of((tmp_path / "w.db-wal").read_bytes())

    assert len(commits) == 1
