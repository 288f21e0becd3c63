"""A page of a list, with the opaque token that continues it."""

import base64
import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")

# The most row text one page of a run's rows holds, as VAMS caps its metadata pages: an answer
# stays under the 6 MB a Lambda may return, whatever the page size asked for.
PAGE_TEXT_BUDGET = 4 * 1024 * 1024


class Page(BaseModel, Generic[T]):
    model_config = ConfigDict(frozen=True, defer_build=True)

    items: tuple[T, ...]
    next_token: str | None = None


def page_token(fields: Any) -> str:
    """The token carrying `fields` (JSON: lists, objects of sorted keys, strings, numbers):
    base64url without its padding, what `token_fields` reads back."""
    text = json.dumps(fields, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def string_fields(token: str, count: int) -> list[str] | None:
    """The token's fields when it carries a list of `count` non-empty strings, else None."""
    try:
        fields = token_fields(token)
    except ValueError:
        return None
    if not isinstance(fields, list) or len(fields) != count:
        return None
    if not all(isinstance(field, str) and field for field in fields):
        return None
    return fields


def token_fields(token: str) -> Any:
    """What a page token carries: base64url JSON, its padding left off. ValueError for any text
    that is not one, JSON nested deeper than the decoder recurses among them (a RecursionError,
    which a client's 4096 characters reach at about 1000 brackets)."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        return json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise ValueError("page token: nested too deeply") from None


def is_timestamp(text: str) -> bool:
    """A date a list wrote into its token (ISO 8601, as the stores keep them): a token holding
    anything else was not issued by a list, and must not read as a first page."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def fitting(rows: Sequence[T], size_of: Callable[[T], int], budget: int = PAGE_TEXT_BUDGET) -> int:
    """How many of the rows, from the first, one page holds within the budget: at least one,
    so a page always moves on."""
    used = 0
    for count, row in enumerate(rows):
        used += size_of(row)
        if used > budget and count:
            return count
    return len(rows)
