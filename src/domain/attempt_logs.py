"""Which attempt of a step wrote which lines of its log. The local runner appends every attempt
of a step to one file, and writes a marker line before the lines of each attempt after the first
(so a step that ran once, or wrote nothing, has a log with no marker at all)."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Collection, Iterable

_MARKER = re.compile(r"===== wfx: attempt (\d+) of step (\S+) =====")
_MARKER_START = "===== wfx: attempt "


def attempt_marker(pipeline_execution_id: str, attempt: int) -> str:
    """The line that opens attempt `attempt` (2 or more) in the step's log."""
    return f"===== wfx: attempt {attempt} of step {pipeline_execution_id} ====="


def marked_attempt(pipeline_execution_id: str, line: str) -> int | None:
    """The attempt a marker line of this step's log opens; None for any other line (a marker
    naming another step included: a step may print anything)."""
    if not line.startswith(_MARKER_START):  # most lines: no regex for them
        return None
    found = _MARKER.fullmatch(line)
    if found is None or found.group(2) != pipeline_execution_id:
        return None
    return int(found.group(1))


def attempt_tails(
    pipeline_execution_id: str,
    lines: Iterable[str],
    size: int,
    attempts: Collection[int],
    keeps: Callable[[str], bool] = lambda _: True,
) -> dict[int, tuple[list[str], int]]:
    """The last `size` lines `keeps` keeps of each of `attempts` in the step log, and how many
    such lines came before them; what comes before any marker is attempt 1's. It holds `size`
    lines an attempt however long the log is (a step may print markers of attempts never run)."""
    tails: dict[int, deque[str]] = {attempt: deque(maxlen=size) for attempt in attempts}
    counts = dict.fromkeys(tails, 0)
    current = 1
    for line in lines:
        opened = marked_attempt(pipeline_execution_id, line)
        if opened is not None:
            current = opened
        elif current in tails and keeps(line):
            tails[current].append(line)
            counts[current] += 1
    return {attempt: (list(tail), counts[attempt] - len(tail)) for attempt, tail in tails.items()}
