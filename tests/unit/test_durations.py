"""Durations as `wfx executions list`/`show` and the viewer say them: whole seconds from a run's
or a step's whole-second dates ("<1 s", never "0 ms"), milliseconds only from an attempt's
precise dates, and a step's from its attempts when they cover it."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import timedelta

import pytest
from rich.console import Console

from domain.execution import ExecutionDetails, StepDetails
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.cli.render import print_details
from entrypoints.durations import spoken, step_span
from entrypoints.http.viewer.rendering import ENVIRONMENT
from tests.contract.builders import MONDAY, a_step, an_attempt, an_execution


@pytest.mark.parametrize(
    ("seconds", "whole", "precise"),
    [
        (0, "<1 s", "0 ms"),
        (0.4, "<1 s", "400 ms"),
        (0.9996, "<1 s", "1.0 s"),
        (1, "1 s", "1.0 s"),
        (42, "42 s", "42.0 s"),
        (59.97, "59 s", "1 min 0 s"),
        (61, "1 min 1 s", "1 min 1 s"),
        (3 * 3600 + 7 * 60, "3 h 7 min", "3 h 7 min"),
        (-0.2, "<1 s", "0 ms"),  # two writers' clocks a little apart
    ],
)
def test_a_span_is_said_as_precisely_as_its_dates_know_it(
    seconds: float, whole: str, precise: str
) -> None:
    assert spoken(seconds, whole_seconds=True) == whole
    assert spoken(seconds, whole_seconds=False) == precise


def test_a_stopped_step_spans_from_its_first_attempts_start_to_its_last_attempts_stop() -> None:
    start = MONDAY + timedelta(microseconds=300_000)
    attempts = [(start, start + timedelta(seconds=1)), (start + timedelta(seconds=2), None)]
    stop = MONDAY + timedelta(seconds=3)
    assert step_span(MONDAY, stop, attempts).said() == "3 s"  # the last attempt still open
    closed = [*attempts[:1], (start + timedelta(seconds=2), start + timedelta(seconds=2.25))]
    assert step_span(MONDAY, stop, closed).said() == "2.2 s"
    assert step_span(MONDAY, None, closed).said() is None  # the step itself not stopped
    assert step_span(MONDAY, MONDAY, []).said() == "<1 s"  # a row with no attempts (VAMS's)


def _shown(details: ExecutionDetails) -> str:
    into = io.StringIO()
    print_details(details, Console(file=into, width=1000, highlight=False, color_system=None))
    return into.getvalue()


def test_show_says_a_fast_steps_milliseconds_from_its_attempt_and_the_runs_whole_seconds() -> None:
    execution = an_execution("e1", status=ExecutionStatus.SUCCEEDED).model_copy(
        update={"execution_stop_date": MONDAY}
    )
    step = a_step("e1", 0, status=StepStatus.SUCCEEDED).model_copy(
        update={"start_date": MONDAY, "stop_date": MONDAY}
    )
    attempt = replace(
        an_attempt(step.pipeline_execution_id, 1, minutes=0),
        status=StepStatus.SUCCEEDED,
        start_date=MONDAY + timedelta(microseconds=100_000),
        stop_date=MONDAY + timedelta(microseconds=520_000),
    )
    entry = StepDetails(step=step, attempts=(attempt,))
    shown = _shown(ExecutionDetails(execution=execution, steps=(entry,)))
    assert "duration  <1 s" in shown
    assert "420 ms" in shown
    bare = _shown(ExecutionDetails(execution=execution, steps=(StepDetails(step=step),)))
    assert "420 ms" not in bare
    assert " 0 ms" not in bare
    assert bare.count("<1 s") == 2  # the run's and the step's


def test_the_viewer_says_a_steps_duration_from_its_attempts_and_a_runs_in_whole_seconds() -> None:
    template = ENVIRONMENT.from_string(
        "{{ duration(run_start, run_stop) }}|{{ step_duration(start, stop, attempts) }}"
        "|{{ step_duration(start, stop, []) }}|{{ step_duration(start, none, []) }}"
    )
    said = template.render(
        run_start="2026-01-01T00:00:00Z",
        run_stop="2026-01-01T00:00:00Z",
        start="2026-01-01T00:00:00Z",
        stop="2026-01-01T00:00:01Z",
        none=None,
        attempts=[
            {"startDate": "2026-01-01T00:00:00.100000Z", "stopDate": "2026-01-01T00:00:00.500000Z"}
        ],
    )
    assert said == "&lt;1 s|400 ms|1 s|running"  # escaped as all text is; a browser shows "<1 s"
