"""Aborting and redriving runs, and what each leaves behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, then, when

from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.redrive_execution import RedriveExecutionCommand
from domain.errors import DomainError, RedriveNotAllowedError
from domain.statuses import ExecutionStatus
from entrypoints.container import Container
from features.steps.observer import ObservingReporter
from features.steps.reading import details_of, step_named
from features.steps.stepfunctions_steps import StepFunctions
from features.steps.world import World

FIX_MARKER_VARIABLE = "WFX_FEATURES_FIX_MARKER"


@given(parsers.parse('the step "{name}" fails until it is fixed'))
def _(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> None:
    # the command step succeeds once this file exists
    # a command step gets only the variables passed on to it (WFX_STEP_ENV)
    passed = os.environ.get("WFX_STEP_ENV", "")
    monkeypatch.setenv("WFX_STEP_ENV", f"{passed} {FIX_MARKER_VARIABLE}")
    monkeypatch.setenv(FIX_MARKER_VARIABLE, str(tmp_path / f"{name}.fixed"))


@when(parsers.parse('the step "{name}" is fixed'))
def _(tmp_path: Path, name: str) -> None:
    (tmp_path / f"{name}.fixed").write_text("fixed\n", encoding="utf-8")


@when("alice aborts the execution")
def _(container: Container, world: World) -> None:
    command = AbortExecutionCommand(workflow_execution_id=world.execution_id)
    container.abort_execution().execute(command)


@when("alice redrives the execution")
def _(container: Container, world: World) -> None:
    world.steps_before = {
        entry.step.pipeline_id: entry.step
        for entry in details_of(container, world.execution_id).steps
    }
    command = RedriveExecutionCommand(workflow_execution_id=world.execution_id)
    try:
        container.redrive_execution().execute(command)
    except DomainError as refused:
        world.refusal = refused


@then(parsers.parse('the redrive is refused with "{reason}"'))
def _(world: World, reason: str) -> None:
    assert isinstance(world.refusal, RedriveNotAllowedError), repr(world.refusal)
    assert str(world.refusal) == reason


@then(parsers.parse("the execution is {status:w} with a redrive count of {count:d}"))
def _(container: Container, world: World, status: str, count: int) -> None:
    execution = details_of(container, world.execution_id).execution
    assert execution.status is ExecutionStatus(status), execution
    assert execution.redrive_count == count, execution
    assert (execution.redrive_date is None) == (count == 0), execution


@then(parsers.re(r'the step "(?P<name>[^"]+)" ran (?P<times>once|twice)'))
def _(observer: ObservingReporter, world: World, name: str, times: str) -> None:
    starts = [
        snapshot
        for snapshot in observer.snapshots[world.execution_id]
        if snapshot.moment == f"after start of {name}"
    ]
    assert len(starts) == {"once": 1, "twice": 2}[times], [s.moment for s in starts]


@then(parsers.parse('the step "{name}" kept the row of its first run'))
def _(container: Container, world: World, name: str) -> None:
    step = step_named(details_of(container, world.execution_id), name).step
    assert step == world.steps_before[name]


@then(parsers.parse('the step "{name}" started again after the redrive'))
def _(container: Container, world: World, name: str) -> None:
    step = step_named(details_of(container, world.execution_id), name).step
    before = world.steps_before[name]
    assert before.start_date is not None and step.start_date is not None, (before, step)
    assert step.start_date > before.start_date, (before, step)


@then("Step Functions holds the execution as ABORTED")
def _(container: Container, stepfunctions: StepFunctions, world: World) -> None:
    arn = container.execution_store().get_execution(world.execution_id).execution_arn
    described = stepfunctions.client.describe_execution(executionArn=arn)
    assert described["status"] == "ABORTED", described


@then(parsers.re(r"Step Functions was asked to stop the execution (?P<count>no|\d+) times?"))
def _(stepfunctions: StepFunctions, count: str) -> None:
    expected = 0 if count == "no" else int(count)
    assert stepfunctions.calls["StopExecution"] == expected, dict(stepfunctions.calls)
