"""Sub-executions a step registered, run on moto's Step Functions parser mode (real ASL, real
history), and `wfx executions show` run in-process through typer's CliRunner.

The CLI builds its own container from the environment, as for a user: the scenario's SQLite file
or DynamoDB tables (moto in-process answers the CLI's boto3 clients too), and its own Step
Functions client. Its AWS calls are counted on boto3's default session (the process's, while the
scenario runs), which every client the CLI creates comes from.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when
from tests.contract.builders import a_registrar
from tests.moto_state_machines import (
    ACCOUNT,
    PARSER_MODE,
    REGION,
    create_sub_pipeline,
    run_to_the_end,
)

from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecutionCommand,
)
from entrypoints.container import Container
from features.steps.observer import ObservingReporter
from features.steps.world import World, split_list


@dataclass
class SubPipelines:
    """moto's Step Functions in parser mode, the runs made on it, and the AWS calls counted."""

    client: Any
    machine_arn: str = ""
    runs: dict[str, str] = field(default_factory=dict)  # name -> execution ARN
    calls: collections.Counter[str] = field(default_factory=collections.Counter)
    shown: dict[str, Any] = field(default_factory=dict)  # the CLI's JSON answer
    text: str = ""

    def _count(self, model: Any, **_: Any) -> None:
        if model.service_model.service_name != "dynamodb":  # the store's own calls
            self.calls[model.name] += 1

    def arn(self, name: str) -> str:
        machine = "sub-pipeline"
        return self.runs.get(name, f"arn:aws:states:{REGION}:{ACCOUNT}:execution:{machine}:{name}")


@pytest.fixture
def sub_pipelines(container: Container, monkeypatch: pytest.MonkeyPatch) -> Iterator[SubPipelines]:
    import boto3
    from moto import mock_aws

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws(config=PARSER_MODE):  # nested in the DynamoDB scenario's mock when there is one
        # the scenario's own default session (the mock puts back the one before it), counted:
        # every client made from here on counts
        session = boto3.DEFAULT_SESSION = boto3.session.Session()
        world = SubPipelines(session.client("stepfunctions", region_name=REGION))
        session.events.register("before-call.*.*", world._count, unique_id="features-sub-calls")
        yield world


def _step_id(container: Container, world: World, pipeline_id: str) -> str:
    steps = container.execution_store().list_steps(world.execution_id)
    found: list[str] = [s.pipeline_execution_id for s in steps if s.pipeline_id == pipeline_id]
    assert found, f"no step {pipeline_id!r}: {[s.pipeline_id for s in steps]}"
    return found[0]


@given(parsers.parse('the sub-pipeline ran on Step Functions as "{name}"'))
def _(sub_pipelines: SubPipelines, name: str) -> None:
    if not sub_pipelines.machine_arn:
        sub_pipelines.machine_arn = create_sub_pipeline(sub_pipelines.client)
    sub_pipelines.runs[name] = run_to_the_end(sub_pipelines.client, sub_pipelines.machine_arn, name)


@given(parsers.parse('the step "{pipeline_id}" registers the sub-executions "{names}" as it runs'))
def _(
    container: Container,
    observer: ObservingReporter,
    sub_pipelines: SubPipelines,
    pipeline_id: str,
    names: str,
) -> None:
    def register(execution_id: str) -> None:
        step = next(
            s.pipeline_execution_id
            for s in container.execution_store().list_steps(execution_id)
            if s.pipeline_id == pipeline_id
        )
        result = a_registrar(container.execution_store()).execute(
            RegisterPipelineExecutionCommand.model_validate(
                {
                    "source": f"wfx.execution.{execution_id}.pipeline.{step}",
                    "detail-type": "pipeline.execution.register",
                    "detail": {
                        "pipelineExecutionId": step,
                        "subExecutions": [
                            {"resourceType": "stepFunctions", "resourceId": sub_pipelines.arn(n)}
                            for n in split_list(names)
                        ],
                    },
                }
            )
        )
        assert result.accepted, result.reason
        sub_pipelines.calls.clear()  # count only what showing the execution asks

    observer.once_started[pipeline_id] = register


def _show(
    storage: str, tmp_path: Path, world: World, sub_pipelines: SubPipelines, *options: str
) -> None:
    from tests.cli_in_process import invoke_wfx

    environment = {
        "WFX_STORE": storage,
        "WFX_HOME": str(tmp_path / "home"),
        "WFX_DB": str(tmp_path / "wfx.db"),
        "WFX_USER": "alice",
        "COLUMNS": "200",
    }
    as_json = invoke_wfx(
        ["executions", "show", world.execution_id, "--json", *options], env=environment
    )
    assert as_json.exit_code == 0, as_json.output
    sub_pipelines.shown = json.loads(as_json.stdout)
    as_text = invoke_wfx(["executions", "show", world.execution_id, *options], env=environment)
    assert as_text.exit_code == 0, as_text.output
    sub_pipelines.text = as_text.stdout


@when("alice shows the execution with its sub-executions")
def _(storage: str, tmp_path: Path, world: World, sub_pipelines: SubPipelines) -> None:
    _show(storage, tmp_path, world, sub_pipelines, "--sub-executions")


@when("alice shows the execution")
def _(storage: str, tmp_path: Path, world: World, sub_pipelines: SubPipelines) -> None:
    _show(storage, tmp_path, world, sub_pipelines)


def _sub_execution(sub_pipelines: SubPipelines, name: str) -> tuple[str, dict[str, Any]]:
    # shown by its name, never its ARN
    shown_name = sub_pipelines.arn(name).rsplit(":", 1)[-1]
    for step in sub_pipelines.shown["pipelines"]:
        for sub in step.get("subExecutions", ()):
            if sub["resourceName"] == shown_name:
                return step["pipelineId"], sub
    raise AssertionError(f"{name} is not shown: {sub_pipelines.shown['pipelines']}")


@then(parsers.parse('the sub-execution "{name}" of the step "{pipeline_id}" is {status:w}'))
def _(sub_pipelines: SubPipelines, name: str, pipeline_id: str, status: str) -> None:
    shown_step, sub = _sub_execution(sub_pipelines, name)
    assert (shown_step, sub["status"]) == (pipeline_id, status), sub


@then(parsers.parse('the stages of "{name}" are'))
def _(sub_pipelines: SubPipelines, name: str, datatable: list[list[str]]) -> None:
    _, sub = _sub_execution(sub_pipelines, name)
    found: list[tuple[str, str]] = []
    pending = list(reversed(sub["stages"]))
    while pending:
        stage = pending.pop()
        found.append((stage["stageName"], stage["status"]))
        pending.extend(reversed(stage["stages"]))
    expected = {(row[0], row[1]) for row in datatable[1:]}
    assert set(found) == expected, found
    assert [n for n, _ in found][:3] == ["Prepare", "Route", "FanOut"]  # reachable order


@then("there is no sub-execution warning")
def _(sub_pipelines: SubPipelines) -> None:
    assert sub_pipelines.shown["subExecutionWarnings"] == []


@then(parsers.parse('a sub-execution warning names "{name}" and "{text}"'))
def _(sub_pipelines: SubPipelines, name: str, text: str) -> None:
    warnings = sub_pipelines.shown["subExecutionWarnings"]
    assert any(name in w["resourceName"] and text in w["message"] for w in warnings), warnings
    assert text in sub_pipelines.text


@then(parsers.parse('the text shows the stage tree of "{name}"'))
def _(sub_pipelines: SubPipelines, name: str) -> None:
    text = sub_pipelines.text
    assert "Sub-executions" in text and sub_pipelines.arn(name) in text, text
    assert "branch 1" in text and "Explode Fail  FAILED" in text, text


@then(
    parsers.parse(
        "Step Functions was asked {machines:d} time for DescribeStateMachine "
        "and {executions:d} times for DescribeExecution"
    )
)
def _(sub_pipelines: SubPipelines, machines: int, executions: int) -> None:
    calls = sub_pipelines.calls
    # two shows (JSON and text), each its own request with its own memo
    assert calls["DescribeStateMachine"] == 2 * machines, dict(calls)
    assert calls["DescribeExecution"] == 2 * executions, dict(calls)


@then("Step Functions was asked only for the state machine's logging destination")
def _(sub_pipelines: SubPipelines) -> None:
    # two shows (JSON and text), each one DescribeStateMachine for availableLogs
    expected = collections.Counter({"DescribeStateMachine": 2})
    assert sub_pipelines.calls == expected, dict(sub_pipelines.calls)
    steps = sub_pipelines.shown["pipelines"]
    assert all("subExecutions" not in step for step in steps)
