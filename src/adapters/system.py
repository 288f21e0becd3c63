"""The system clock and id generator."""

from __future__ import annotations

import os
import threading
import time
import uuid
from datetime import UTC, datetime

_LAUNCH_NAMESPACE = uuid.UUID("6f1c2a8e-3b9d-4d5e-9a77-0c4e8f1b2d3a")
_RANDOM_BATCH = 1024  # bytes of os.urandom drawn at a time: ~100 ids


class SystemClock:
    """UTC now."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class RandomBytes:
    """os.urandom's bytes, drawn a batch at a time and handed out in turn, each byte once.

    A launch takes an id for its run and one for each step: each `os.urandom` was a getrandom
    system call, ~3 us inside a run (a kernel path gone cold among the run's own work), where
    a batch's slice costs a tenth of that. The bytes are the kernel's all the same; a forked
    child forgets its parent's batch (`forget`), or it would hand out the bytes its parent does.
    """

    def __init__(self, batch: int = _RANDOM_BATCH) -> None:
        self._batch = batch
        self._lock = threading.Lock()
        self._bytes, self._at = b"", 0

    def take(self, count: int) -> bytes:
        with self._lock:
            start, end = self._at, self._at + count
            if end > len(self._bytes):
                self._bytes, start, end = os.urandom(max(self._batch, count)), 0, count
            self._at = end
            return self._bytes[start:end]

    def forget(self) -> None:
        """Draw a new batch next: a forked child's (its new lock too, as another thread may
        have held the parent's at the fork)."""
        self._lock = threading.Lock()
        self._bytes, self._at = b"", 0


random_bytes = RandomBytes()  # the process's one: ids and lease owners
os.register_at_fork(after_in_child=random_bytes.forget)


class UuidGenerator:
    """VAMS GUIDs: 32 lowercase hex digits. A new one leads with the milliseconds since the epoch
    (then 80 random bits), so ids sort by creation: VAMS's dates are whole seconds, and the id is
    what orders the runs of one second, newest first, in the lists. Derived ids are name-based
    (UUID5), so the same seed gives the same id."""

    def new_id(self) -> str:
        return f"{time.time_ns() // 1_000_000:012x}{random_bytes.take(10).hex()}"

    def derived_id(self, seed: str) -> str:
        return uuid.uuid5(_LAUNCH_NAMESPACE, seed).hex
