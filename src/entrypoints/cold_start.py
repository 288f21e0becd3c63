"""A Lambda's cold start with Python's cyclic garbage collector paused.

Nearly everything a cold start makes (modules, classes, pydantic's validators, the container, the
app) lives as long as the process: each collection on the way walks all of it again to free next
to nothing (~4% of the HTTP handler's first request, in instructions). Reference counting still
frees what it frees; only the cycle collector waits.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside, on again after (unless the host had turned it off itself)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def keep_out_of_collections() -> None:
    """What the process holds now is there for good: later collections no longer walk it."""
    gc.freeze()
