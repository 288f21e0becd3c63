"""The tail of each attempt of a step log, split by the local runner's attempt markers."""

from __future__ import annotations

from domain.attempt_logs import attempt_marker, attempt_tails


def test_lines_before_any_marker_are_the_first_attempts() -> None:
    lines = ["one", attempt_marker("step-1", 2), "two", attempt_marker("step-1", 3)]

    tails = attempt_tails("step-1", lines, 10, (1, 2, 3))

    assert tails == {1: (["one"], 0), 2: (["two"], 0), 3: ([], 0)}


def test_a_marker_naming_another_step_is_an_ordinary_line() -> None:
    other = attempt_marker("step-2", 2)

    assert attempt_tails("step-1", ["one", other], 10, (1,)) == {1: (["one", other], 0)}


def test_each_attempt_keeps_its_last_lines_and_counts_those_before_them() -> None:
    lines = [f"a{n}" for n in range(1000)] + [attempt_marker("s", 2), "b0", "b1", "b2"]

    tails = attempt_tails("s", lines, 2, (1, 2))

    assert tails == {1: (["a998", "a999"], 998), 2: (["b1", "b2"], 1)}


def test_only_the_lines_kept_are_counted_and_an_attempt_not_asked_for_is_not_held() -> None:
    lines = ["x1", "y1", "x2", attempt_marker("s", 7), "x3"]

    tails = attempt_tails("s", lines, 1, (1,), keeps=lambda line: line.startswith("x"))

    assert tails == {1: (["x2"], 1)}
