"""The SQLite adapter's page token: the (start date, id) of the last row, as base64url JSON."""

from __future__ import annotations

import base64
import json

from domain.errors import InvalidInputError
from domain.paging import is_timestamp


def encode_token(execution_start_date: str, workflow_execution_id: str) -> str:
    payload = json.dumps([execution_start_date, workflow_execution_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode("utf-8")).decode("ascii").rstrip("=")


def _malformed(token: str) -> InvalidInputError:
    return InvalidInputError(f"startingToken: not a token this list issued: {token!r}")


def decode_token(token: str) -> tuple[str, str]:
    """The keyset position a token names; InvalidInputError for anything we did not issue."""
    try:
        padded = token + "=" * (-len(token) % 4)
        position = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, RecursionError) as malformed:  # bad base64, UTF-8, JSON, nesting
        raise _malformed(token) from malformed
    if (
        not isinstance(position, list)
        or len(position) != 2
        or not all(isinstance(part, str) and part for part in position)
        or not is_timestamp(position[0])
    ):
        raise _malformed(token)
    return position[0], position[1]
