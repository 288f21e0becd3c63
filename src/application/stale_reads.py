"""The runs a read answered as stored, because the write that would have brought them up to date
(a lost runner found, an end found out of band, a sync date) failed.

A read reconciles as it goes (ReconcileExecution); when that write fails (a full disk, a
read-only file, a write throttled past its retries, a race lost too often) the read still
answers, and its caller must be able to say that what it shows may be stale. The reconciler is
deep below the use case a caller runs and its answer has no room for such a flag, so the
caller opens a scope around the request (`noting_stale_reads`) and reads what was noted in it:
one scope per CLI command or HTTP request, kept apart across threads and tasks by a ContextVar.
What the write met is kept for the operator's log only: a store's text may name paths or hold
secrets, and the caller is told no more than that the run is shown as stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_NOTED: ContextVar[dict[str, BaseException] | None] = ContextVar("wfx_stale_reads", default=None)


def note_stale(workflow_execution_id: str, cause: BaseException) -> None:
    """Say that the run was answered as stored, because of `cause`; nothing happens outside a
    scope."""
    noted = _NOTED.get()
    if noted is not None:
        noted.setdefault(workflow_execution_id, cause)


@contextmanager
def noting_stale_reads() -> Iterator[dict[str, BaseException]]:
    """The runs answered as stored inside the scope, in the order they were met, each with what
    its write met (for the operator's log, never for the caller)."""
    noted: dict[str, BaseException] = {}
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)
