"""Splitting a step log by the local runner's attempt markers."""

from __future__ import annotations

from domain.attempt_logs import attempt_marker, split_by_attempt


def test_lines_before_any_marker_are_the_first_attempts() -> None:
    lines = ["one", attempt_marker("step-1", 2), "two", attempt_marker("step-1", 3)]

    assert split_by_attempt("step-1", lines) == {1: ["one"], 2: ["two"], 3: []}


def test_a_marker_naming_another_step_is_an_ordinary_line() -> None:
    other = attempt_marker("step-2", 2)

    assert split_by_attempt("step-1", ["one", other]) == {1: ["one", other]}
