"""A worker's exit at once: everything Python's exit does for the process's work, and not the
modules' teardown after it (a real process: the exit is the point)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAM = """
import atexit, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from entrypoints.cli.quick_exit import exit_at_once

folder = Path(sys.argv[1])

class TornDown:
    # dropped only by the teardown of this module's globals
    def __del__(self):
        (folder / "torn down").touch()

kept = TornDown()

def late():
    time.sleep(0.05)  # still at work when the exit begins
    (folder / "thread").touch()

threading.Thread(target=late).start()
pool = ThreadPoolExecutor(1)
pool.submit(int).result()  # its worker thread left idle, waiting for more (no daemon)
atexit.register(lambda: (folder / "atexit").touch())
sys.stdout.write("no newline yet")  # in the buffer
exit_at_once(3)
"""


def test_the_exit_ends_threads_as_python_does_runs_atexit_flushes_and_skips_the_teardown(
    tmp_path: Path,
) -> None:
    ended = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        # buffered, as a worker's output to its runner.log is
        env={k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"},
    )

    assert ended.returncode == 3, ended.stderr
    assert ended.stdout == "no newline yet"
    assert ended.stderr == ""
    assert (tmp_path / "thread").exists()
    assert (tmp_path / "atexit").exists()
    assert not (tmp_path / "torn down").exists()


SQLITE_PROGRAM = """
import gc, sys, threading
gc.disable()  # no collection on the way, as in a command's short life: only the exit's own
from pathlib import Path
from adapters.sqlite.database import SqliteDatabase
from entrypoints.cli.quick_exit import exit_at_once

database = SqliteDatabase(Path(sys.argv[1]) / "wfx.db")
with database.write() as connection:
    connection.execute("CREATE TABLE t (x)")
    connection.execute("INSERT INTO t VALUES (1)")

def read():
    with database.read() as connection:
        connection.execute("SELECT x FROM t").fetchall()

reader = threading.Thread(target=read)  # its connection outlives it until a collection
reader.start()
reader.join()
if sys.argv[2] == "a daemon still reading":
    opened, asked, answered = threading.Event(), threading.Event(), threading.Event()

    def read_again():  # between two reads on its connection when the files are closed
        with database.read() as connection:
            connection.execute("SELECT x FROM t").fetchall()
        opened.set()
        asked.wait()
        try:
            print(connection.execute("SELECT x FROM t").fetchall(), end="")
        except Exception as error:
            print(type(error).__name__, end="")
        answered.set()
        threading.Event().wait()  # still running, its connection open, when the process exits

    threading.Thread(target=read_again, daemon=True).start()
    opened.wait()
    from adapters.sqlite.database import close_every_file

    close_every_file()
    asked.set()
    answered.wait()
exit_at_once(0)
"""


@pytest.mark.parametrize(
    ("threads", "files", "read"),
    [
        ("no other", ["wfx.db"], ""),
        # closed under it, its next statement would fail (or crash the process, were it in one):
        # left open, as the teardown leaves it
        ("a daemon still reading", ["wfx.db", "wfx.db-shm", "wfx.db-wal"], "[(1,)]"),
    ],
)
def test_the_exit_closes_the_sqlite_files_as_the_teardown_would(
    tmp_path: Path, threads: str, files: list[str], read: str
) -> None:
    """The last connection to a file removes its WAL as it closes: a process that leaves at
    once leaves the file as a normal exit does, every write in it."""
    ended = subprocess.run(
        [sys.executable, "-c", SQLITE_PROGRAM, str(tmp_path), threads],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert ended.returncode == 0, ended.stderr
    assert ended.stdout == read
    assert sorted(path.name for path in tmp_path.iterdir()) == files


LEAVING = """
import sys
from entrypoints.cli.quick_exit import leave_when_done

CODES = {"none": None, "0": 0, "2": 2, "text": "no such thing"}

def command_line():
    print("done", end="")
    if sys.argv[1] in CODES:
        raise SystemExit(CODES[sys.argv[1]])

leave_when_done(command_line)
"""


def test_a_command_line_leaves_with_the_code_it_exits_with() -> None:
    """A text code is Python's to print (exit 1), as a normal exit does; a failure leaves the
    usual way, with its code."""

    def leave(argument: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", LEAVING, argument],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    left = [leave(argument) for argument in ("returns", "none", "0", "2")]
    assert [(process.returncode, process.stdout) for process in left] == [
        (0, "done"),
        (0, "done"),
        (0, "done"),
        (2, "done"),
    ]
    worded = leave("text")
    assert (worded.returncode, worded.stdout, worded.stderr) == (1, "done", "no such thing\n")
