"""The SQLite adapter's page token: the (start date, id) of the last row, as base64url JSON."""

from __future__ import annotations

from domain.errors import InvalidInputError
from domain.paging import is_timestamp, page_token, token_fields


def encode_token(execution_start_date: str, workflow_execution_id: str) -> str:
    return page_token([execution_start_date, workflow_execution_id])


def _malformed(token: str) -> InvalidInputError:
    return InvalidInputError(f"startingToken: not a token this list issued: {token!r}")


def decode_token(token: str) -> tuple[str, str]:
    """The keyset position a token names; InvalidInputError for anything we did not issue."""
    try:
        position = token_fields(token)
    except ValueError as malformed:  # bad base64, bad UTF-8, bad JSON and non-ASCII text
        raise _malformed(token) from malformed
    if (
        not isinstance(position, list)
        or len(position) != 2
        or not all(isinstance(part, str) and part for part in position)
        or not is_timestamp(position[0])
    ):
        raise _malformed(token)
    return position[0], position[1]
