"""`SqliteDatabase`: our own transactions on `sqlite3`, per thread on a file, shared in memory."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.sqlite.database import BUSY_TIMEOUT_MS, SqliteDatabase

COUNTER = "CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"


@pytest.fixture(params=["file", "memory"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqliteDatabase]:
    database = SqliteDatabase(tmp_path / "db" / "wfx.db" if request.param == "file" else None)
    with database.write() as connection:
        connection.execute(COUNTER)
        connection.execute("INSERT INTO counter VALUES (1, 0)")
    yield database
    database.close()


def count(database: SqliteDatabase) -> int:
    with database.read() as connection:
        (n,) = connection.execute("SELECT n FROM counter WHERE id = 1").fetchone()
    return int(n)


def test_a_file_database_has_its_folder_made_and_the_wfx_pragmas(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "new" / "folder" / "wfx.db")

    with database.read() as connection:
        pragmas = [
            connection.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
        ]

    assert database.path == tmp_path / "new" / "folder" / "wfx.db"
    assert pragmas == ["wal", 1, BUSY_TIMEOUT_MS, 0]
    database.close()


def test_a_write_that_raises_is_rolled_back(database: SqliteDatabase) -> None:
    with pytest.raises(RuntimeError, match="half-way"), database.write() as connection:
        connection.execute("UPDATE counter SET n = 41 WHERE id = 1")
        raise RuntimeError("half-way")

    assert count(database) == 0
    with database.write() as connection:  # the connection is usable again, not left in a BEGIN
        connection.execute("UPDATE counter SET n = 1 WHERE id = 1")
    assert count(database) == 1


def test_a_nested_transaction_is_refused_without_harming_the_outer_one(
    database: SqliteDatabase,
) -> None:
    with database.write() as connection:
        connection.execute("UPDATE counter SET n = 5 WHERE id = 1")
        with pytest.raises(sqlite3.OperationalError), database.read():
            pass

    assert count(database) == 5


def test_a_read_sees_one_snapshot_while_another_connection_commits(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "wfx.db")
    with database.write() as connection:
        connection.execute(COUNTER)
        connection.execute("INSERT INTO counter VALUES (1, 0)")
    other = sqlite3.connect(tmp_path / "wfx.db", isolation_level=None)

    with database.read() as connection:
        before = connection.execute("SELECT n FROM counter").fetchone()
        other.execute("UPDATE counter SET n = 9 WHERE id = 1")
        after = connection.execute("SELECT n FROM counter").fetchone()

    assert before == after == (0,)
    assert count(database) == 9
    other.close()
    database.close()


def test_threads_never_interleave_their_transactions(database: SqliteDatabase) -> None:
    # a read-modify-write per transaction: any interleaving on one connection loses increments
    def increment(times: int) -> None:
        for _ in range(times):
            with database.write() as connection:
                (n,) = connection.execute("SELECT n FROM counter WHERE id = 1").fetchone()
                connection.execute("UPDATE counter SET n = ? WHERE id = 1", (n + 1,))

    threads = [threading.Thread(target=increment, args=(200,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert count(database) == 800


def test_the_shared_connection_outside_a_transaction_is_one_threads_until_it_is_left() -> None:
    database = SqliteDatabase(None)  # in memory: every thread's statements on one connection
    wrote = threading.Event()

    def write() -> None:
        with database.write() as connection:
            connection.execute(COUNTER)
        wrote.set()

    with database.exclusive_connection() as connection:
        writer = threading.Thread(target=write)
        writer.start()
        assert not wrote.wait(0.2)  # the other thread's transaction waits for this one's use
        connection.execute("SELECT 1").fetchone()
    writer.join(5)

    assert wrote.is_set()
    database.close()


def test_each_thread_of_a_file_database_has_its_own_connection(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "wfx.db")
    seen: list[sqlite3.Connection] = []

    def remember() -> None:
        with database.read() as connection:
            seen.append(connection)

    remember()
    thread = threading.Thread(target=remember)
    thread.start()
    thread.join()
    remember()

    assert seen[0] is seen[2]
    assert seen[0] is not seen[1]
    database.close()


def test_close_closes_every_connection_and_a_file_database_reopens(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "wfx.db")
    with database.write() as connection:
        connection.execute(COUNTER)
        connection.execute("INSERT INTO counter VALUES (1, 3)")
    first = connection

    database.close()

    with pytest.raises(sqlite3.ProgrammingError):
        first.execute("SELECT 1")
    assert count(database) == 3
    database.close()


def test_every_memory_database_is_its_own() -> None:
    one, two = SqliteDatabase(None), SqliteDatabase(":memory:")
    with one.write() as connection:
        connection.execute(COUNTER)

    with two.read() as connection:
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()

    assert one.path is None and two.path is None
    assert tables == []
    one.close()
    two.close()


CLOSE_WHILE_ANOTHER_THREAD_READS = """
import sys, threading
from adapters.sqlite.database import SqliteDatabase

database = SqliteDatabase(sys.argv[1])
with database.write() as connection:
    connection.execute("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
    connection.execute("INSERT INTO counter VALUES (1, 7)")
reading, read = threading.Event(), []

def reader():
    while not reading.is_set() or len(read) < 20000:
        with database.read() as connection:
            read.append(connection.execute("SELECT n FROM counter").fetchone()[0])
        reading.set()

thread = threading.Thread(target=reader)
thread.start()
reading.wait()
while thread.is_alive():
    database.close()
print(len(read), set(read))
"""


def test_a_close_never_closes_a_connection_under_a_thread_that_still_runs(tmp_path: Path) -> None:
    """A test's teardown, or any caller, may close a database while a thread of the same
    process (a runner's lease keeper) is inside a statement: it must neither crash the process
    nor fail that thread's statement. In a process of its own, as a crash takes it down."""
    import subprocess
    import sys

    ran = subprocess.run(
        [sys.executable, "-c", CLOSE_WHILE_ANOTHER_THREAD_READS, str(tmp_path / "wfx.db")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert (ran.returncode, ran.stderr) == (0, "")
    assert ran.stdout.split(maxsplit=1)[1].strip() == "{7}"
