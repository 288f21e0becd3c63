"""A count and its noun, agreeing: `1 step`, `3 steps`, `0 runs`."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`plural` for a noun an s does not make plural (`child`, `children`)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
