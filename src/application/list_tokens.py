"""The tokens ListExecutions issues itself (the stores issue those of an unfiltered index list).

All are base64url JSON. An asset list resumes after an ExecutionRef; a status-filtered index
list resumes inside a store page: the store token that page started from, and how many of its
rows were already looked at (store pages are always SCAN_PAGE rows, so the page reads again the
same).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from application.ports.executions import ExecutionRef
from domain.errors import InvalidInputError
from domain.paging import is_timestamp, page_token, token_fields

# A store page of a filtered list: fixed, so that a token's `skip` names the same rows again.
SCAN_PAGE = 100

# Every token of every list is base64url text; anything else is refused before a store sees it.
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,4096}")


def _refused() -> InvalidInputError:
    return InvalidInputError("startingToken: not a token this list returned")


def check_token_shape(token: str | None) -> None:
    if token is not None and not _TOKEN_SHAPE.fullmatch(token):
        raise _refused()


def _encode(value: Any) -> str:
    return page_token(value)


def _decode(token: str) -> Any:
    try:
        return token_fields(token)
    except ValueError:
        raise _refused() from None


def encode_ref(ref: ExecutionRef) -> str:
    return _encode([ref.execution_start_date, ref.workflow_execution_id, ref.workflow_key])


def decode_ref(token: str | None) -> ExecutionRef | None:
    if token is None:
        return None
    fields = _decode(token)
    if (
        not isinstance(fields, list)
        or len(fields) != 3
        or not all(isinstance(field, str) and field for field in fields)
        or ":" not in fields[2]
        or not is_timestamp(fields[0])
    ):
        raise _refused()
    return ExecutionRef(*fields)


@dataclass(frozen=True)
class ScanPosition:
    """Inside a filtered index list: the store page's own token (None: the first), and how
    many of that page's rows were looked at already."""

    status: str
    page_token: str | None = None
    skip: int = 0


def encode_scan(position: ScanPosition) -> str:
    return _encode({"status": position.status, "page": position.page_token, "skip": position.skip})


def decode_scan(token: str | None, status: str) -> ScanPosition:
    if token is None:
        return ScanPosition(status)
    fields = _decode(token)
    if not isinstance(fields, dict) or set(fields) != {"status", "page", "skip"}:
        raise _refused()
    page, skip = fields["page"], fields["skip"]
    if (
        fields["status"] != status
        or not (page is None or (isinstance(page, str) and page))
        or not isinstance(skip, int)
        or isinstance(skip, bool)
        or not 0 <= skip < SCAN_PAGE
    ):
        raise _refused()
    return ScanPosition(status, page, skip)
