"""A worker's exit at once: everything Python's exit does for the process's work, and not the
modules' teardown after it (a real process: the exit is the point)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
