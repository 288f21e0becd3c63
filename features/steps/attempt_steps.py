"""Retries and the attempts each run of a step leaves (seed 003)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then

from entrypoints.container import Container
from features.steps.reading import details_of, step_named
from features.steps.world import World

FLAKY_MARKER_VARIABLE = "WFX_FEATURES_FLAKY_MARKER"


@given(parsers.parse('the step "{name}" fails the first time it runs'))
def _(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> None:
    # a command step gets only the variables passed on to it (WFX_STEP_ENV); its first run
    # leaves this file behind
    passed = os.environ.get("WFX_STEP_ENV", "")
    monkeypatch.setenv("WFX_STEP_ENV", f"{passed} {FLAKY_MARKER_VARIABLE}")
    monkeypatch.setenv(FLAKY_MARKER_VARIABLE, str(tmp_path / f"{name}.ran"))


@then(parsers.parse('the attempts of the step "{name}" are "{expected}"'))
def _(container: Container, world: World, name: str, expected: str) -> None:
    step = step_named(details_of(container, world.execution_id), name)
    shown = ", ".join(f"{a.attempt} {a.status.value} by {a.trigger.value}" for a in step.attempts)
    assert shown == expected, step.attempts
    assert all(a.stop_date is not None for a in step.attempts)  # each attempt was closed


@then(parsers.parse('the first attempt of the step "{name}" failed with "{text}"'))
def _(container: Container, world: World, name: str, text: str) -> None:
    first = step_named(details_of(container, world.execution_id), name).attempts[0]
    assert first.error is not None and text in first.error, first


@then(parsers.parse('the runner waited "{seconds}" seconds between attempts'))
def _(retry_waits: list[float], seconds: str) -> None:
    assert retry_waits == [float(part) for part in seconds.split(", ")]


@then(parsers.parse('the step "{name}" has no attempts'))
def _(container: Container, world: World, name: str) -> None:
    assert step_named(details_of(container, world.execution_id), name).attempts == ()
