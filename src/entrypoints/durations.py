"""How long something took, in words, for the CLI and the viewer alike.

A run's and a step's dates are whole seconds (VAMS's format), an attempt's keep microseconds. A
span between whole-second dates is said in whole seconds, "<1 s" when both fall in one second:
"0 ms" or "1.0 s" would claim a precision those dates do not have."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime


def spoken(seconds: float, *, whole_seconds: bool) -> str:
    seconds = max(seconds, 0.0)  # clocks of two writers may disagree by a little
    if seconds < 60:
        if whole_seconds:
            return "<1 s" if seconds < 1 else f"{int(seconds)} s"
        if round(seconds * 1000) < 1000:
            return f"{round(seconds * 1000)} ms"
        if round(seconds, 1) < 60:
            return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


@dataclass(frozen=True)
class Span:
    start: datetime | None
    stop: datetime | None
    whole_seconds: bool

    def said(self) -> str | None:
        """None while it has not started or not stopped."""
        if self.start is None or self.stop is None:
            return None
        return spoken((self.stop - self.start).total_seconds(), whole_seconds=self.whole_seconds)


def table_span(start: datetime | None, stop: datetime | None) -> Span:
    """A run's or a step's own dates: whole seconds."""
    return Span(start, stop, whole_seconds=True)


def step_span(
    start: datetime | None,
    stop: datetime | None,
    attempts: Sequence[tuple[datetime, datetime | None]],
) -> Span:
    """A stopped step from its attempts' precise dates (the first one's start to the last one's
    stop) when it has attempts and the last is closed, else from its own whole-second dates."""
    if stop is not None and attempts and attempts[-1][1] is not None:
        return Span(attempts[0][0], attempts[-1][1], whole_seconds=False)
    return table_span(start, stop)
