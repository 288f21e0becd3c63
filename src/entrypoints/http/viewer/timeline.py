"""The execution page's Gantt chart: each step and each of its attempts as a bar on one time
axis, from the run's start to its stop (or now, while it runs), as SVG coordinates in percent -
attributes, not inline styles, so the page's CSP (no inline style) still holds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

ROW_HEIGHT = 22


@dataclass(frozen=True)
class Bar:
    label: str
    status: str
    kind: str  # "step" or "attempt"
    x: float  # percent of the axis
    width: float
    y: int
    start: str
    stop: str | None


@dataclass(frozen=True)
class Timeline:
    bars: tuple[Bar, ...]
    height: int
    start: str
    stop: str | None
    seconds: float


def _moment(text: str | None) -> datetime | None:
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def timeline_of(details: dict[str, Any], now: datetime | None = None) -> Timeline | None:
    """From VAMS's details document; None for a run with nothing started yet."""
    moment = now or datetime.now(UTC)
    begun = _moment(details.get("executionStartDate"))
    if begun is None:
        return None
    ended = _moment(details.get("executionStopDate"))
    spans: list[tuple[str, str, str, datetime, datetime | None]] = []
    for step in details.get("pipelines", ()):
        name, status = step["pipelineId"], step["executionStatus"]
        started = _moment(step.get("executionStartDate"))
        if started is not None:
            spans.append((name, status, "step", started, _moment(step.get("executionStopDate"))))
        attempts = step.get("attempts", ())
        for attempt in attempts if len(attempts) > 1 else ():
            spans.append(
                (
                    f"{name} attempt {attempt['attempt']}",
                    attempt["status"],
                    "attempt",
                    _moment(attempt["startDate"]) or begun,
                    _moment(attempt.get("stopDate")),
                )
            )
    last = max([ended or moment, *(stop or moment for *_, stop in spans)])
    axis = max((last - begun).total_seconds(), 0.001)
    bars = []
    for row, (label, status, kind, start, stop) in enumerate(spans):
        x = max(0.0, (start - begun).total_seconds() / axis * 100)
        width = max(0.5, ((stop or moment) - start).total_seconds() / axis * 100)
        bars.append(
            Bar(
                label=label,
                status=status,
                kind=kind,
                x=round(x, 2),
                width=round(min(width, 100 - x), 2) if x < 100 else 0.5,
                y=row * ROW_HEIGHT * 2,
                start=start.isoformat(),
                stop=None if stop is None else stop.isoformat(),
            )
        )
    return Timeline(
        bars=tuple(bars),
        height=max(1, len(bars)) * ROW_HEIGHT * 2,
        start=begun.isoformat(),
        stop=None if ended is None else ended.isoformat(),
        seconds=axis,
    )
