"""`python -m tests.bench.cpu_split`: each figure's CPU time is within its wall time."""

from __future__ import annotations

import time
from pathlib import Path

from tests.bench.cpu_split import interleaved, measure


def test_each_call_is_timed_on_both_clocks_and_the_cpu_within_the_wall(tmp_path: Path) -> None:
    figures = measure(tmp_path, runs=5)

    assert set(figures) == {"run", "raw", "replay"}
    for figure in figures.values():
        # the thread's CPU clock counts only the time it ran, so each call's is within its wall
        # time, and so is their median (5 %: the two clocks are read from different sources,
        # and a call that never waits, as the raw recorder's, has the two all but equal)
        assert 0 < figure["cpu_ms"] <= figure["wall_ms"] * 1.05
        assert figure["switches"] >= 0
    assert figures["run"]["run_over_wall"] == 1.0


def test_the_calls_take_turns_going_first_and_each_ratio_is_within_its_round() -> None:
    order: list[str] = []

    def spin(name: str, seconds: float) -> None:
        order.append(name)
        until = time.thread_time() + seconds
        while time.thread_time() < until:
            pass

    figures = interleaved(
        {"slow": lambda: spin("slow", 0.004), "fast": lambda: spin("fast", 0.001)}, runs=9
    )

    assert order[:8] == ["slow", "fast", "fast", "slow", "slow", "fast", "fast", "slow"]
    # each spin runs for its CPU time, whatever the load; its wall time is that or more
    assert 3.0 < figures["fast"]["run_over_cpu"] < 5.0
    assert figures["fast"]["run_over_wall"] > 1.0
