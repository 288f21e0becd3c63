"""`python -m tests.bench.cpu_split`: each figure's CPU time is within its wall time."""

from __future__ import annotations

from pathlib import Path

from tests.bench.cpu_split import measure


def test_each_call_is_timed_on_both_clocks_and_the_cpu_within_the_wall(tmp_path: Path) -> None:
    figures = measure(tmp_path, runs=5)

    assert set(figures) == {"run", "raw", "replay"}
    for figure in figures.values():
        # the thread's CPU clock counts only the time it ran, so each call's is within its wall
        # time, and so is their median (5 %: the two clocks are read from different sources,
        # and a call that never waits, as the raw recorder's, has the two all but equal)
        assert 0 < figure["cpu_ms"] <= figure["wall_ms"] * 1.05
        assert figure["switches"] >= 0
