"""Small timing helpers shared by every measurement: medians, per-call samples, timed rounds."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile; enough for p10/p90/p99 of a few hundred samples."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[rank]


@dataclass
class Samples:
    """Per-call durations in seconds, gathered over several rounds."""

    seconds: list[float] = field(default_factory=list)

    def add(self, duration: float) -> None:
        self.seconds.append(duration)

    def extend(self, durations: Sequence[float]) -> None:
        self.seconds.extend(durations)

    @property
    def count(self) -> int:
        return len(self.seconds)

    @property
    def median_ms(self) -> float:
        return median(self.seconds) * 1000

    def percentile_ms(self, fraction: float) -> float:
        return percentile(self.seconds, fraction) * 1000

    def summary_ms(self) -> dict[str, float | int]:
        return {
            "median_ms": round(self.median_ms, 4),
            "p10_ms": round(self.percentile_ms(0.10), 4),
            "p90_ms": round(self.percentile_ms(0.90), 4),
            "p99_ms": round(self.percentile_ms(0.99), 4),
            "samples": self.count,
        }


def turns(names: Sequence[str], rounds: int) -> Iterator[list[str]]:
    """Each round's order of calls: every name once, who goes first turning with the rounds.

    Calls timed one block after another meet the machine at different speeds (this one moves
    by a third within a minute); a round of one call each is a few milliseconds long.
    """
    for index in range(rounds):
        turn = index % len(names)
        yield [*names[turn:], *names[:turn]]


def median_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """The median of the rounds' own ratios: each taken between two calls of one round."""
    return median([a / b for a, b in zip(numerators, denominators, strict=True)])


def time_each(call: Callable[[], object], count: int) -> list[float]:
    """`count` calls, each timed on its own (perf_counter costs ~0.1 us, far below any call)."""
    clock = time.perf_counter
    durations = []
    for _ in range(count):
        started = clock()
        call()
        durations.append(clock() - started)
    return durations


@dataclass
class Round:
    """One timed round of back-to-back calls: how many, in how long, and each one's duration."""

    calls: int
    seconds: float
    durations: list[float]

    @property
    def per_second(self) -> float:
        return self.calls / self.seconds if self.seconds else float("nan")


def counted_round(call: Callable[[], object], calls: int) -> Round:
    """`calls` back-to-back calls; a fixed count keeps two interleaved writers at the same table
    sizes round after round (a fixed duration would let the faster one grow its file faster)."""
    clock = time.perf_counter
    durations: list[float] = []
    started = clock()
    for _ in range(calls):
        before = clock()
        call()
        durations.append(clock() - before)
    return Round(calls=calls, seconds=clock() - started, durations=durations)
