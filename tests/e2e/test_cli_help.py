"""`wfx --help` and `wfx GROUP --help` list their commands in paragraphs wrapped to the
terminal, whatever the width: a docstring's own line breaks do not cut a sentence short."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tests.e2e.cli import Wfx


def _command_rows(help_text: str) -> tuple[int, dict[str, list[str]]]:
    """The width of the Commands panel's description column, and each command's description
    as the lines drawn."""
    lines = help_text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("╭─ Commands"))
    rows: dict[str, list[str]] = {}
    name = ""
    start = width = 0
    for line in lines[top + 1 :]:
        if line.startswith("╰"):
            break
        inner = line[2:-2]  # inside "│ " and " │"
        if inner[0] != " ":
            name = inner.split()[0]
            start = len(inner) - len(inner[len(name) :].lstrip())
            width = len(inner) - start
            rows[name] = []
        rows[name].append(inner[start:].rstrip())
    return width, rows


def _cut_short(width: int, rows: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """Lines ended before a word that had room on them."""
    return [
        (name, line, following)
        for name, description in rows.items()
        for line, following in pairwise(description)
        if len(line) + 1 + len(following.split()[0]) <= width
    ]


@pytest.mark.parametrize("columns", ["80", "123"])
def test_command_lists_wrap_paragraphs_to_the_terminal(wfx: Wfx, columns: str) -> None:
    terminal = wfx.with_environment(COLUMNS=columns)
    top = terminal.ok("--help").stdout
    width, rows = _command_rows(top)
    assert {"export", "import", "serve", "executions", "maintenance"} <= rows.keys(), top
    assert all(len(line) <= int(columns) for line in top.splitlines()), top
    assert _cut_short(width, rows) == [], top
    export = " ".join(rows["export"])
    assert "every table, its workflow version and asset files, and its offloaded" in export

    for group in ("executions", "maintenance", "auth", "costs", "approvals", "workflows"):
        listed = terminal.ok(group, "--help").stdout
        assert _cut_short(*_command_rows(listed)) == [], listed
