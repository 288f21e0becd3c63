"""How a writer that lost a race to another writer waits before its next try."""

from __future__ import annotations

import random
import time

_FIRST_JITTER_SECONDS = 0.005
_MAX_JITTER_SECONDS = 0.25


def pause_before_retry(collisions: int) -> None:
    """Sleep a random while, longer after each collision, so that concurrent writers spread out
    instead of colliding again in lockstep."""
    ceiling = min(_MAX_JITTER_SECONDS, _FIRST_JITTER_SECONDS * 2**collisions)
    time.sleep(random.uniform(0, ceiling))
