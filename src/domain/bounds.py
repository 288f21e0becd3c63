"""The largest integer every store holds: SQLite's INTEGER is 64-bit signed, DynamoDB holds
more. Every number a caller gives (a version, an event number, an attempt) is bounded by it at
the edge, so a larger one is refused naming its field, never the store's overflow."""

from __future__ import annotations

MAX_STORED_INTEGER = 2**63 - 1


def is_whole_number(text: str) -> bool:
    """ASCII digits only: `str.isdigit` also passes `²`, which `int` refuses, and other
    scripts' digits, which `int` reads: neither is a number a setting, a token or a name holds."""
    return text.isascii() and text.isdigit()
