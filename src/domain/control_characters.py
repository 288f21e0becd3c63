"""Characters that change what a terminal or a page shows rather than being shown: C0 and C1
controls (NUL, newline, ESC that starts CSI/OSC sequences, DEL) and the bidirectional
formatting characters (the RTL override and its kin) that reorder the text around them.

Identifiers refuse them all; free text keeps newlines and tabs. Output written for a terminal
escapes each one it did not write itself, as Python writes it in a literal (`\\x1b`, `\\u202e`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FREE_TEXT_KEEPS = "\n\t"
RULE = "must hold no control character (NUL, newline, escape) nor bidirectional override"
FREE_TEXT_RULE = (
    "must hold no control character but newlines and tabs (no NUL, no escape) nor "
    "bidirectional override"
)


def first_control_character(text: str, keep: str = "") -> str | None:
    """The first such character of `text` not in `keep`, as an escape; None when there is none."""
    for found in _UNSAFE.finditer(text):
        if found.group() not in keep:
            return _escape(found.group())
    return None


def refusing_control_characters(keep: str = "") -> Callable[[str], str]:
    """A pydantic after-validator: the text as given, or a ValueError naming the rule and the
    first such character (escaped) not in `keep`."""

    def check(text: str) -> str:
        found = first_control_character(text, keep)
        if found is not None:
            raise ValueError(f"{FREE_TEXT_RULE if keep else RULE}; found {found}")
        return text

    return check


def escape_control_characters(text: str, keep: str = FREE_TEXT_KEEPS) -> str:
    """`text` with each such character not in `keep` written as its escape."""
    if _UNSAFE.search(text) is None:
        return text  # the common case, at no cost but the scan
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)


def _escape(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
