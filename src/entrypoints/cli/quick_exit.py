"""A process whose work is done and written leaves without Python's teardown of its modules.

After the atexit handlers, Python's own exit frees every module it imported, one by one: ~0.1 s
for a detached worker on SQLite, ~0.2 s with boto3 loaded (moto, 12-06), seconds on a loaded
machine (docs/performance.md, "An abort's way to the worker's exit"). An abort waits for the
worker to be gone, so it waited for that too. Nothing of it is the process's work: the store's
writes are committed, the step logs closed, and the atexit handlers still run (the redacted
standard streams' last lines, the runner record copies removed).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn


def exit_at_once(code: int) -> NoReturn:
    """Exit with `code` as Python would, but for the modules' teardown: its threads ended as
    Python ends them, the atexit handlers run, the standard streams flushed."""
    _end_threads()
    atexit._run_exitfuncs()
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
