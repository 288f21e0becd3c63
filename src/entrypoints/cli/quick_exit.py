"""A process whose work is done and written leaves without Python's teardown of its modules.

After the atexit handlers, Python's own exit frees every module it imported, one by one: ~0.1 s
for a detached worker on SQLite, ~0.2 s with boto3 loaded (moto, 12-06), seconds on a loaded
machine (docs/performance.md, "An abort's way to the worker's exit"), and ~0.1 s of every
command's 0.5-0.7 s of CPU. An abort waits for the worker to be gone, so it waited for that too.
Nothing of it is the process's work: the store's writes are committed, the step logs closed, and
the atexit handlers still run (the redacted standard streams' last lines, the runner record
copies removed), then the SQLite files are closed as the teardown would have closed them.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import NoReturn


def leave_when_done(command_line: Callable[[], object]) -> NoReturn:
    """Run `command_line` (a program's main), then, when it succeeded, exit at once. A failure
    (any other exit code, an exception) leaves the usual way: it may have left a connection
    half-opened on a damaged file, or a run's thread still at work after a signal, which the
    teardown handles as it always has."""
    try:
        command_line()
    except SystemExit as ended:
        if ended.code is None or ended.code == 0:
            exit_at_once(0)
        raise
    exit_at_once(0)


def exit_at_once(code: int) -> NoReturn:
    """Exit with `code` as Python would, but for the modules' teardown: its threads ended as
    Python ends them, the atexit handlers run, the SQLite files closed, the standard streams
    flushed."""
    _end_threads()
    atexit._run_exitfuncs()
    _close_sqlite_files()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):  # closed, or never there (pythonw)
            if stream is not None:
                stream.flush()
    os._exit(code)


def _end_threads() -> None:
    """What Python's exit does first, from the main thread: the threads' exit callbacks (an idle
    ThreadPoolExecutor's workers told to stop) and every thread that is no daemon waited for.
    Joined without the callbacks, such an idle worker would be waited for forever."""
    shutdown = getattr(threading, "_shutdown", None)  # CPython's own, what its exit calls
    if shutdown is not None and threading.current_thread() is threading.main_thread():
        shutdown()
        return
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon:
            thread.join()


def _close_sqlite_files() -> None:
    if "adapters.sqlite.database" in sys.modules:  # else no SQLite file was opened
        from adapters.sqlite.database import close_every_file

        close_every_file()
