"""A page of only the rows a caller may see, still filled to its limit.

A store page can hold rows the caller may not see; this reads store pages until it has `limit`
kept rows or the list ends. The next token must resume right after the last row returned, but a
store token points after the last row *read* and cannot be built from a row (each adapter
encodes its own). So the first read asks for `limit` rows (all kept, the usual case, is one read
with the store's exact token); a read that finds more kept rows than are still wanted is read
again from the same token with its limit ending at the last row kept, whose token is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from domain.paging import Page

T = TypeVar("T")

Read = Callable[[int, str | None], Page[T]]
Keep = Callable[[Sequence[T]], list[T]]


def filled_page(read: Read[T], keep: Keep[T], limit: int, token: str | None, wide: int) -> Page[T]:
    """`read(size, token)` one store page, `keep(rows)` those the caller may see, in order;
    after a page with rows filtered out, pages of `wide` rows are read, so a caller who may see
    few rows of a long list costs fewer reads."""
    kept: list[T] = []
    size = limit
    while True:
        page = read(size, token)
        shown = keep(page.items)
        room = limit - len(kept)
        if len(shown) > room:
            last = shown[room - 1]
            through = next(i for i, row in enumerate(page.items) if row is last) + 1
            kept.extend(shown[:room])
            return Page(items=tuple(kept), next_token=read(through, token).next_token)
        kept.extend(shown)
        if len(kept) == limit or page.next_token is None:
            return Page(items=tuple(kept), next_token=page.next_token)
        token, size = page.next_token, wide
