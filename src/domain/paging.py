"""A page of a list, with the opaque token that continues it."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    model_config = ConfigDict(frozen=True, defer_build=True)

    items: tuple[T, ...]
    next_token: str | None = None
