"""Which attempt of a step wrote which lines of its log. The local runner appends every attempt
of a step to one file, and writes a marker line before the lines of each attempt after the first
(so a step that ran once, or wrote nothing, has a log with no marker at all)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_MARKER = re.compile(r"===== wfx: attempt (\d+) of step (\S+) =====")


def attempt_marker(pipeline_execution_id: str, attempt: int) -> str:
    """The line that opens attempt `attempt` (2 or more) in the step's log."""
    return f"===== wfx: attempt {attempt} of step {pipeline_execution_id} ====="


def marked_attempt(pipeline_execution_id: str, line: str) -> int | None:
    """The attempt a marker line of this step's log opens; None for any other line (a marker
    naming another step included: a step may print anything)."""
    found = _MARKER.fullmatch(line)
    if found is None or found.group(2) != pipeline_execution_id:
        return None
    return int(found.group(1))


def split_by_attempt(pipeline_execution_id: str, lines: Sequence[str]) -> dict[int, list[str]]:
    """The step log's lines by attempt number; what comes before any marker is attempt 1's."""
    attempts: dict[int, list[str]] = {1: []}
    current = 1
    for line in lines:
        opened = marked_attempt(pipeline_execution_id, line)
        if opened is not None:
            current = opened
            attempts.setdefault(current, [])
            continue
        attempts[current].append(line)
    return attempts
