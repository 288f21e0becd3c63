"""`python -m tests.bench.cpu_split`: each figure's CPU time is within its wall time."""

from __future__ import annotations

from pathlib import Path

from tests.bench.cpu_split import measure


def test_each_call_is_timed_on_both_clocks_and_the_cpu_within_the_wall(tmp_path: Path) -> None:
    figures = measure(tmp_path, runs=5)

    assert set(figures) == {"run", "raw", "replay"}
    for figure in figures.values():
        # the thread's CPU clock counts only time it ran, so each call's is within its wall
        # time, and so is their median
        assert 0 < figure["cpu_ms"] <= figure["wall_ms"]
        assert figure["switches"] >= 0
