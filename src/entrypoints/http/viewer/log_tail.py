"""What a page shows of a log: its newest lines, each cut at LINE_CHARACTERS, SOURCE_CHARACTERS
in all. A step's 1 MiB lines, or a million of them, never make a page a browser cannot load;
the CLI and the JSON logs route still give every line whole."""

from __future__ import annotations

from typing import Any

SHOWN_LINES = 1000
LINE_CHARACTERS = 2000
SOURCE_CHARACTERS = 200_000


def _cut(text: str) -> str:
    if len(text) <= LINE_CHARACTERS:
        return text
    return f"{text[:LINE_CHARACTERS]} … ({len(text) - LINE_CHARACTERS} more characters)"


def newest(shown: list[dict[str, Any]], read: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last lines of `shown` (already cut) then `read` (whole) that fit the bounds, the
    newest one always."""
    lines = [*shown, *({**event, "message": _cut(event["message"])} for event in read)]
    kept: list[dict[str, Any]] = []
    budget = SOURCE_CHARACTERS
    for event in reversed(lines[-SHOWN_LINES:]):
        if kept and len(event["message"]) > budget:
            break
        budget -= len(event["message"])
        kept.append(event)
    kept.reverse()
    return kept


def newest_text(text: str) -> tuple[str, int]:
    """The tail of a whole log text within the same bounds, and how many lines it leaves out."""
    lines = text.splitlines()
    kept = newest([], [{"message": line} for line in lines])
    return "".join(event["message"] + "\n" for event in kept), len(lines) - len(kept)
