"""A page of a list, with the opaque token that continues it."""

from __future__ import annotations

from datetime import datetime
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    model_config = ConfigDict(frozen=True, defer_build=True)

    items: tuple[T, ...]
    next_token: str | None = None


def is_timestamp(text: str) -> bool:
    """A date a list wrote into its token (ISO 8601, as the stores keep them): a token holding
    anything else was not issued by a list, and must not read as a first page."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True
