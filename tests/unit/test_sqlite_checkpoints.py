"""The WAL's checkpoints on their own thread: the WAL stays bounded, nothing committed is lost,
and neither `close()` nor the process's exit waits on a thread left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from adapters.sqlite.checkpointer import CHECKPOINT_EVERY, SAFETY_PAGES
from adapters.sqlite.database import SqliteDatabase

ROW = b"x" * 16_000  # a few overflow pages per commit: the WAL fills in a few thousand commits
FRAME = 4096 + 24  # a WAL frame: a page and its header
SRC = Path(__file__).resolve().parents[2] / "src"


def checkpoint_threads(path: Path) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == f"wfx-checkpoint:{path}"]


def test_many_commits_keep_the_wal_bounded_and_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "wfx.db"
    database = SqliteDatabase(path)
    with database.write() as connection:
        connection.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
    commits = 3 * SAFETY_PAGES // 4  # ~4 pages each: the WAL's bound three times over
    largest = 0
    for n in range(commits):
        with database.write() as connection:
            connection.execute("INSERT INTO blobs VALUES (?, ?)", (n, ROW))
        largest = max(largest, path.with_name("wfx.db-wal").stat().st_size)
    running = checkpoint_threads(path)
    database.close()

    assert running, "no checkpoint thread ran"
    assert largest <= 2 * SAFETY_PAGES * FRAME, f"the WAL grew to {largest} bytes"
    assert not checkpoint_threads(path), "close() left the checkpoint thread running"
    reopened = SqliteDatabase(path)
    with reopened.read() as connection:
        assert connection.execute("SELECT count(*), min(id), max(id) FROM blobs").fetchone() == (
            commits,
            0,
            commits - 1,
        )
    reopened.close()


def test_a_process_that_never_closes_its_database_still_exits(tmp_path: Path) -> None:
    script = f"""
from adapters.sqlite.database import SqliteDatabase
database = SqliteDatabase({str(tmp_path / "wfx.db")!r})
with database.write() as connection:
    connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
for n in range({4 * CHECKPOINT_EVERY}):
    with database.write() as connection:
        connection.execute("INSERT INTO t VALUES (?, ?)", (n, b"x" * 8000))
import threading
print(sum(t.name.startswith("wfx-checkpoint:") for t in threading.enumerate()))
"""
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"  # the thread was there, and the exit did not wait on it


def test_threads_writing_at_once_share_one_checkpoint_thread(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "wfx.db")
    with database.write() as connection:
        connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, body BLOB)")

    def write() -> None:
        for _ in range(3 * CHECKPOINT_EVERY):
            with database.write() as connection:
                connection.execute("INSERT INTO t (body) VALUES (?)", (b"x" * 3000,))

    writers = [threading.Thread(target=write) for _ in range(4)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    running = checkpoint_threads(tmp_path / "wfx.db")
    with database.read() as connection:
        (rows,) = connection.execute("SELECT count(*) FROM t").fetchone()
    database.close()

    assert len(running) == 1
    assert rows == 4 * 3 * CHECKPOINT_EVERY
