"""The paging of workflow definitions, versions and asset files, shared by both stores: page
sizes, and tokens that encode the last item returned as base64url JSON.

A token names a position, not a store's key, so the two stores issue the same tokens; whatever
comes back is checked to be a position of the very list it continues before any query sees it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from domain.errors import InvalidInputError
from domain.paging import Page, page_token, string_fields, token_fields

T = TypeVar("T")

# domain.workflow.Identifier: a decoded id that could not be stored is a tampered token.
_IDENTIFIER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$")
MAX_PAGE_SIZE = 100
# an asset's files are listed by the thousand: a page of rows is still a few hundred KB
MAX_FILE_PAGE_SIZE = 1000
_REFUSED = "startingToken: not a token issued by this list"
_OTHER_LIST = "startingToken: the token belongs to another list"


def check_limit(limit: int, most: int = MAX_PAGE_SIZE) -> None:
    if not 1 <= limit <= most:
        raise InvalidInputError(f"limit: must be from 1 to {most}, got {limit}")


def page_of(items: Sequence[T], more: bool, token_of: Callable[[T], str]) -> Page[T]:
    """A page of `items`; where `more` follow (a row read one past the page says so), the token
    that continues after its last item."""
    return Page(items=tuple(items), next_token=token_of(items[-1]) if more else None)


def _decode(token: str, length: int) -> list[Any]:
    try:
        fields: Any = token_fields(token)
    except ValueError as exc:
        raise InvalidInputError(_REFUSED) from exc
    if not isinstance(fields, list) or len(fields) != length:
        raise InvalidInputError(_REFUSED)
    if not all(isinstance(f, str) and _IDENTIFIER.match(f) for f in fields[:2]):
        raise InvalidInputError(_REFUSED)
    return fields


def encode_workflow_token(database_id: str, workflow_id: str) -> str:
    return page_token([database_id, workflow_id])


def decode_workflow_token(token: str, database_id: str | None) -> tuple[str, str]:
    """(database id, workflow id) of the last workflow of the previous page."""
    last_database, last_workflow = _decode(token, 2)
    if database_id is not None and last_database != database_id:
        raise InvalidInputError(_OTHER_LIST)
    return last_database, last_workflow


def encode_version_token(database_id: str, workflow_id: str, version: int) -> str:
    return page_token([database_id, workflow_id, version])


def decode_version_token(token: str, database_id: str, workflow_id: str) -> int:
    """The last version number of the previous page of this workflow's versions."""
    last_database, last_workflow, version = _decode(token, 3)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise InvalidInputError(_REFUSED)
    if (last_database, last_workflow) != (database_id, workflow_id):
        raise InvalidInputError(_OTHER_LIST)
    return version


def encode_file_token(database_id: str, asset_id: str, file_key: str) -> str:
    return page_token([database_id, asset_id, file_key])


def decode_file_token(token: str, database_id: str, asset_id: str) -> str:
    """The last file key of the previous page of this asset's files."""
    fields = string_fields(token, 3)
    if fields is None:
        raise InvalidInputError(_REFUSED)
    if fields[:2] != [database_id, asset_id]:
        raise InvalidInputError(_OTHER_LIST)
    return str(fields[2])
