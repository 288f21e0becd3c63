"""A table written as rich writes a `Table(box=None)` off a terminal, without loading rich.

Importing rich and laying out a table with it is about a seventh of a cold `wfx executions list`
(docs/performance.md, "A cold list's table without rich"). Off a terminal rich writes no colour:
each line is every cell padded to its column's widest with a space either side. That holds only
for text rich shows as it is, so a cell with anything rich would read (markup's `[`, an emoji's
`:name:`, a character not one column wide, a control character) or a table wider than the
console leaves the drawing to rich (None here).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# What rich shows character for character, one column each: no `[` (markup), `\` (its escape),
# `:` (an emoji's name) nor anything outside printable ASCII.
_AS_IT_IS = re.compile(r"[A-Za-z0-9 _.,/<>+=@()-]*")
# A start as the list writes it: its colons hold two digits, and no emoji is named by two.
_MOMENT = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def shown_as_it_is(cell: str) -> bool:
    return bool(_AS_IT_IS.fullmatch(cell) or _MOMENT.fullmatch(cell))


def plain_stdout() -> bool:
    """Whether rich would write to stdout with no colours nor cursor moves, at the width the CLI
    gives a console off a terminal (entrypoints/cli/context.py): stdout is not a terminal, and
    nothing in the environment says it is one or gives it a width."""
    from entrypoints.cli.terminal import raw
    from entrypoints.settings import rich_terminal_variables_set

    if rich_terminal_variables_set():
        return False
    isatty = getattr(raw(), "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:  # a closed stream: rich takes it for no terminal too
        return True


def plain_table(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> str | None:
    """The lines rich writes for `Table(box=None)` of these headers and rows, when it writes
    every cell as it is and the table fits `width` columns; else None."""
    lines = (headers, *rows)
    if not all(shown_as_it_is(cell) for line in lines for cell in line):
        return None
    widths = [max(len(line[column]) for line in lines) for column in range(len(headers))]
    if sum(widths) + 2 * len(widths) > width:  # rich would shrink or wrap a column
        return None
    return "".join(
        "".join(f" {cell.ljust(fit)} " for cell, fit in zip(line, widths, strict=True)) + "\n"
        for line in lines
    )
