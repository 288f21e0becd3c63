"""Independent reads of a network store sent at once, each answer in its caller's order.

A run's details are a Query for each of seven per-step tables and each step shown: 27 requests
for a 3-step run, ~700 for a hundred steps; then a ranged read of each results file shown (20
files, 20 GETs on S3). Sent one after another, each waits a network round trip (a few
milliseconds from inside AWS, tens from a laptop); sent at once, the read waits about as long as
its slowest few. boto3's low-level clients are safe to share between threads.

The threads are the process's, shared by every adapter that reads this way (the DynamoDB store
and archive, the S3 object store, CloudWatch Logs' sources, Step Functions' describes), made
when first needed and made again in a forked child (a pool's threads do not survive a fork: a
child handed its parent's pool would wait for ever).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
A = TypeVar("A")

# Below botocore's default connection pool (10 a client): a thread never waits for a connection.
READ_THREADS = 8
THREAD_NAME_PREFIX = "wfx-read"


class _ProcessPool:
    """The process's read threads, made on first use; a forked child forgets its parent's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    def get(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(READ_THREADS, THREAD_NAME_PREFIX)
            return self._pool

    def forget(self) -> None:
        """In a forked child: the lock may have been held by a thread the child does not have."""
        self._lock, self._pool = threading.Lock(), None


_threads = _ProcessPool()
os.register_at_fork(after_in_child=_threads.forget)


def _on_a_read_thread() -> bool:
    return threading.current_thread().name.startswith(THREAD_NAME_PREFIX)


class ConcurrentReads:
    """Runs reads on the process's read threads, or (`at_once` false) one after another in the
    caller's thread."""

    def __init__(self, at_once: bool = True) -> None:
        self._at_once = at_once

    def each(self, reads: Sequence[Callable[[], T]]) -> list[T]:
        """Every read's answer, in order. When reads fail, the first failed in order is raised,
        once all have ended: none is left running behind the caller (but after a Ctrl-C, the
        reads already sent, each bounded by the client's timeouts)."""
        if not self._at_once or len(reads) < 2 or _on_a_read_thread():
            # a read thread waiting for the others could wait for ever once all of them wait
            return [read() for read in reads]
        pool = _threads.get()
        futures: list[Future[T]] = []
        try:
            futures.extend(pool.submit(read) for read in reads)
        except RuntimeError:  # the interpreter is ending (a daemon thread's read): no new thread
            for future in futures:
                future.cancel()
            return [read() for read in reads]
        try:
            errors = [future.exception() for future in futures]  # waits for each
        except BaseException:  # a Ctrl-C while waiting: the reads not yet sent are not sent
            for future in futures:
                future.cancel()
            raise
        failed = next((error for error in errors if error is not None), None)
        if failed is not None:
            raise failed
        return [future.result() for future in futures]

    def beside(self, read: Callable[[], A], reads: Sequence[Callable[[], T]]) -> tuple[A, list[T]]:
        """`read`'s answer and each of `reads`', all sent at once."""
        answers: list[Any] = self.each([read, *reads])
        return answers[0], answers[1:]
