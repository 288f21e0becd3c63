"""The WAL's checkpoints off the writers' path: a daemon thread per database file copies it back.

SQLite's auto-checkpoint runs inside the COMMIT that takes the WAL past its size: about one commit
in a hundred then waited ~19 ms (the copy and its two fsyncs), ~1.3 ms of every warm run's 7 ms
when amortised. Here that commit only counts itself; every `CHECKPOINT_EVERY` commits of this
process a thread of its own runs a PASSIVE checkpoint (it never waits for a writer, nor a writer
for it; the sqlite3 module releases the GIL while SQLite works).

A WAL only starts over from its beginning after a checkpoint that copied all of it, and under a
steady stream of writes the thread's never does: frames come in while it copies. So once the
WAL holds `FINISH_PAGES`, the thread asks the writer to finish: its next commit checkpoints
inline what the thread has not copied yet (a few runs' pages, no longer the whole WAL), and the
write after it starts the WAL over. A round the thread has not finished when the next is due
holds that commit until it has (on a disk too slow for the writes, the writer slows down rather
than the WAL grow). The connections also keep an auto-checkpoint at `SAFETY_PAGES` for a process
that commits too seldom to start the thread.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path

# ~12 WAL pages per commit of a run: ~770 pages between checkpoints, near SQLite's default 1000
CHECKPOINT_EVERY = 64
# the WAL the thread lets grow before the writer finishes a checkpoint (pages of 4 KiB: 8 MiB)
FINISH_PAGES = 2000
# the auto-checkpoint left on every wfx connection: twice the above
SAFETY_PAGES = 2 * FINISH_PAGES
_JOIN_SECONDS = 5.0
# how long a commit waits for a round still running when the next is due: a thread stuck longer
# is passed by (the auto-checkpoint still bounds the WAL)
_BACKLOG_SECONDS = 10.0


class Checkpointer:
    """Counts one database's commits; a PASSIVE checkpoint on its own thread every so many."""

    __slots__ = (
        "_commits",
        "_due",
        "_every",
        "_finish",
        "_idle",
        "_path",
        "_pid",
        "_stopping",
        "_thread",
        "_wake",
    )

    def __init__(self, path: Path, every: int = CHECKPOINT_EVERY) -> None:
        self._path, self._every = path, every
        self._commits = 0
        self._finish = False  # set by the thread: the next commit checkpoints what is left
        self._wake = threading.Event()
        self._idle = threading.Event()  # set while the thread runs no round
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._due = threading.Lock()  # two threads' commits never start two checkpoint threads

    def committed(self, connection: sqlite3.Connection) -> None:
        """After a write transaction's COMMIT on `connection`: wakes the thread every `every`
        commits, and finishes its checkpoint when it asked."""
        if self._finish:
            self._finish = False
            # the copy is mostly done: what is left completes it, so the WAL can start over
            # (never an error for the write, which has committed: the next finish will do)
            with contextlib.suppress(sqlite3.Error):
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self._commits += 1
        if self._commits < self._every:
            return
        self._commits = 0
        with self._due:
            # started on first need: most databases (a CLI call, a test) never commit that
            # often; a forked child has no thread of its parent's
            thread = self._thread
            if thread is None or self._pid != os.getpid() or not thread.is_alive():
                self._start()
            elif not self._idle.is_set():
                self._idle.wait(_BACKLOG_SECONDS)  # the last round is still copying: wait
            self._idle.clear()
            self._wake.set()

    def _start(self) -> None:
        self._stopping = False
        self._wake, self._idle = threading.Event(), threading.Event()
        self._pid = os.getpid()
        self._thread = threading.Thread(
            target=self._loop, name=f"wfx-checkpoint:{self._path}", daemon=True
        )
        self._thread.start()

    def _loop(self) -> None:
        wake, idle = self._wake, self._idle
        try:
            connection = sqlite3.connect(self._path, isolation_level=None)
        except sqlite3.Error:
            idle.set()  # no commit waits on a thread that could not connect
            return
        try:
            while True:
                wake.wait()
                wake.clear()
                if self._stopping:
                    return
                try:
                    self._round(connection)
                finally:
                    idle.set()
        finally:
            connection.close()

    def _round(self, connection: sqlite3.Connection) -> None:
        if self._finish:
            return  # the writer has yet to finish the last round: no need for another
        try:
            if _checkpoint(connection) >= FINISH_PAGES:
                # the WAL has not started over: copy what came in during that round (less each
                # time), then leave the writer the last few pages
                _checkpoint(connection)
                self._finish = True
        except sqlite3.Error:
            pass  # the connections' auto-checkpoint still bounds the WAL

    def close(self) -> None:
        """Stop the thread (after the checkpoint it may be running) and wait for it."""
        thread, self._thread = self._thread, None
        if thread is None or self._pid != os.getpid():
            return
        self._stopping = True
        self._wake.set()
        thread.join(_JOIN_SECONDS)


def _checkpoint(connection: sqlite3.Connection) -> int:
    """A PASSIVE checkpoint (it copies what no reader still needs and waits for nobody): the
    WAL's length in pages when it began. Another process's checkpoint under way counts as
    nothing to do (a busy row, not an error)."""
    ((busy, frames, _),) = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
    return 0 if busy else int(frames)
