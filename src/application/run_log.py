"""The run log as a terminal write stores it: redacted, and cut to fit a DynamoDB item."""

from __future__ import annotations

from application.ports.files import ObjectStore
from domain.execution import RUN_LOG_TAIL_BYTES, execution_log_key
from domain.redaction import redact

# The row keeps the log's tail, the object store the whole log: the same cut the record builder
# makes of any executionLog over RUN_LOG_TAIL_BYTES (adapters/records.py), done here so that the
# whole log has its own well-known key beside the run's other logs.
MAX_STORED_LOG_BYTES = RUN_LOG_TAIL_BYTES


def fit_run_log_text(
    objects: ObjectStore, workflow_execution_id: str, text: str
) -> tuple[str, str | None]:
    """The run log `text` as stored on the row, and the object key of the whole log if cut.

    Every writer of a terminal status uses it (completion, reconcile, abort, error handler),
    whatever the text came from (application/run_log_sources.py)."""
    log = redact(text)  # the object store keeps no secret either
    body = log.encode("utf-8")
    if len(body) <= MAX_STORED_LOG_BYTES:
        return log, None
    stored = objects.put_bytes(execution_log_key(workflow_execution_id), body)
    tail = body[-MAX_STORED_LOG_BYTES:].decode("utf-8", errors="ignore")
    return tail, stored.key
