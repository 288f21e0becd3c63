"""The run log as a terminal write stores it: redacted, and cut to fit a DynamoDB item."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from itertools import chain

from application.ports.files import ObjectStore
from domain.execution import RUN_LOG_TAIL_BYTES, execution_log_key
from domain.redaction import redacted_pieces

# The row keeps the log's tail, the object store the whole log: the same cut the record builder
# makes of any executionLog over RUN_LOG_TAIL_BYTES (adapters/records.py), done here so that the
# whole log has its own well-known key beside the run's other logs.
MAX_STORED_LOG_BYTES = RUN_LOG_TAIL_BYTES


def fit_run_log(
    objects: ObjectStore, workflow_execution_id: str, pieces: Iterable[str]
) -> tuple[str, str | None]:
    """The run log given in `pieces` as stored on the row, and the object key of the whole log
    if cut. The log is redacted (the object store keeps no secret either) and stored a piece at
    a time: what is held is a piece, the redactor's window and the row's tail, never the log.

    Every writer of a terminal status uses it (completion, reconcile, abort, error handler),
    whatever the text came from (application/run_log_sources.py)."""
    given = iter(pieces)
    first = next(given, None)
    if first is None:  # most runs' steps write nothing: no redactor to set up and close
        return "", None
    # a piece never ends inside a character: the pieces' encodings joined are the log's
    redacted = (piece.encode("utf-8") for piece in redacted_pieces(chain((first,), given)))
    head = bytearray()
    for chunk in redacted:
        head += chunk
        if len(head) > MAX_STORED_LOG_BYTES:
            break
    else:
        return head.decode("utf-8"), None
    tail = _Tail(MAX_STORED_LOG_BYTES)
    stored = objects.put_stream(
        execution_log_key(workflow_execution_id), tail.passed(chain((bytes(head),), redacted))
    )
    return tail.text(), stored.key


def log_tail(pieces: Iterable[str], characters: int) -> str:
    """The last `characters` of the text given in pieces, holding no more than that and a piece:
    "".join(pieces)[-characters:]."""
    kept = ""
    for piece in pieces:
        kept = (kept + piece[-characters:])[-characters:]
    return kept


class StepTails:
    """Each step log's log_tail, kept as a run log is read from the step logs (the tap), so a
    run's end that stores the run log and summarises each step reads each step log once, and
    lists them once."""

    def __init__(self, characters: int) -> None:
        self._characters = characters
        self._tails: dict[str, str] = {}
        self._listed: frozenset[str] | None = None  # None: the run log listed no step logs

    def __call__(self, pipeline_execution_id: str, pieces: Iterator[str]) -> Iterator[str]:
        kept, characters = "", self._characters
        for piece in pieces:
            kept = (kept + piece[-characters:])[-characters:]
            yield piece
        self._tails[pipeline_execution_id] = kept  # only a log read to its end has a tail

    def listed(self, pipeline_execution_ids: Collection[str]) -> None:
        self._listed = frozenset(pipeline_execution_ids)

    def get(self, pipeline_execution_id: str) -> str | None:
        """The step log's tail; empty when the listing the run log was read from found no log
        of the step; None when the run log was not read from it (nor listed it)."""
        kept = self._tails.get(pipeline_execution_id)
        if kept is None and self._listed is not None and pipeline_execution_id not in self._listed:
            return ""
        return kept


class _Tail:
    """The last `size` bytes of what passes through, held in at most twice that."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept = bytearray()

    def passed(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self._kept += chunk[-self._size :]
            if len(self._kept) > 2 * self._size:
                del self._kept[: -self._size]
            yield chunk

    def text(self) -> str:
        # cut at a byte count: a character the cut splits is dropped, not replaced
        return bytes(self._kept[-self._size :]).decode("utf-8", errors="ignore")
