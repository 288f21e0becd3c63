"""The runs a read answered as stored, because the write that would have brought them up to date
(a lost runner found, an end found out of band, a sync date) failed.

A read reconciles as it goes (ReconcileExecution); when that write fails (a full disk, a
read-only file, a write throttled past its retries, a race lost too often) the read still
answers, and its caller must be able to say that what it shows may be stale. The reconciler is
deep below the use case a caller runs and its answer has no room for such a flag, so the
caller opens a scope around the request (`noting_stale_reads`) and reads what was noted in it:
one scope per CLI command or HTTP request, kept apart across threads and tasks by a ContextVar.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_NOTED: ContextVar[list[str] | None] = ContextVar("wfx_stale_reads", default=None)


def note_stale(workflow_execution_id: str) -> None:
    """Say that the run was answered as stored; nothing happens outside a scope."""
    noted = _NOTED.get()
    if noted is not None and workflow_execution_id not in noted:
        noted.append(workflow_execution_id)


@contextmanager
def noting_stale_reads() -> Iterator[list[str]]:
    """The ids of the runs answered as stored inside the scope, in the order they were met."""
    noted: list[str] = []
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)
