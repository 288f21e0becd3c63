"""`wfx pipelines register` as a user runs it, and as a shell-command step of a local run runs
it (the step inherits WFX_EXECUTION_ID and WFX_PIPELINE_EXECUTION_ID): what a step registers
shows in `executions show`, a refusal exits 1 with its reason, bad input exits 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

# One worker per module under xdist: the run is set up once and shared by the tests.
pytestmark = pytest.mark.xdist_group("e2e-cli-registration")

INNER_RUN = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"
REGISTER_ARGS = [
    "--sub-execution-type",
    "stepFunctions",
    "--sub-execution-id",
    INNER_RUN,
    "--log-group-name",
    "/wfx/inner",
    "--log-stream-prefix",
    "states/",
    "--source-type",
    "stateMachine",
]
# A shell-command step that registers what it "started" with the same python as the test.
WORKFLOW = {
    "databaseId": "e2e",
    "workflowId": "registers",
    "steps": [
        {
            "pipelineId": "start-inner",
            "executionType": "command",
            "inputFileArity": "none",
            "command": [
                "{python}",
                "-m",
                "entrypoints.cli.main",
                "pipelines",
                "register",
                *REGISTER_ARGS,
            ],
        },
        {
            "pipelineId": "after",
            "executionType": "python",
            "handler": "wfx_examples.trivial.steps:noop",
            "inputFileArity": "none",
        },
    ],
}


def _steps(wfx: Wfx, execution_id: str) -> dict[str, dict[str, Any]]:
    shown = wfx.json("executions", "show", execution_id)
    return {
        entry["pipelineExecution"]["pipelineId"]: entry["pipelineExecution"]
        for entry in shown["pipelineExecutions"]
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Wfx, str, dict[str, dict[str, Any]]]:
    """One home holding a run whose first step registered through the CLI."""
    home = tmp_path_factory.mktemp("registration")
    wfx = Wfx(home / "home")
    workflow = home / "registers.json"
    workflow.write_text(json.dumps(WORKFLOW), encoding="utf-8")  # JSON is YAML
    wfx.ok("workflows", "publish", str(workflow))
    execution_id = wfx.run_id("e2e/registers")
    return wfx, execution_id, _steps(wfx, execution_id)


def test_a_command_step_registers_what_it_started_and_show_lists_it(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    _, _, steps = run

    registered = steps["start-inner"]
    assert registered["status"] == "SUCCEEDED"
    assert registered["registeredSubExecutions"] == [
        {"resourceType": "stepFunctions", "resourceId": INNER_RUN, "label": ""}
    ]
    assert registered["registeredLogs"] == [
        {
            "logGroupArn": "",
            "logGroupName": "/wfx/inner",
            "logStreamName": "",
            "logStreamPrefix": "states/",
            "stageName": "",
            "label": "",
            "sourceType": "stateMachine",
        }
    ]
    assert steps["after"]["registeredLogs"] == []


def test_a_redelivery_from_the_command_line_merges_the_label_and_adds_nothing(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    wfx, execution_id, steps = run
    step_id = steps["start-inner"]["pipelineExecutionId"]

    outcome = wfx.ok(
        "pipelines",
        "register",
        "--execution-id",
        execution_id,
        "--pipeline-execution-id",
        step_id,
        *REGISTER_ARGS,
        "--label",
        "inner",
    )

    assert outcome.stdout == f"accepted: wfx.execution.{execution_id}.pipeline.{step_id}\n"
    after = _steps(wfx, execution_id)["start-inner"]
    assert [log["label"] for log in after["registeredLogs"]] == ["inner"]
    assert [entry["label"] for entry in after["registeredSubExecutions"]] == ["inner"]


def test_a_step_of_another_run_is_refused_with_its_reason_and_nothing_is_written(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    wfx, execution_id, _ = run
    before = _steps(wfx, execution_id)
    step_id = before["after"]["pipelineExecutionId"]

    outcome = wfx(
        "pipelines",
        "register",
        "--execution-id",
        "another-run",
        "--pipeline-execution-id",
        step_id,
        "--log-group-name",
        "/wfx/elsewhere",
        "--json",
    )

    assert outcome.code == 1, str(outcome)
    printed = outcome.json()
    assert printed["accepted"] is False
    assert printed["source"] == f"wfx.execution.another-run.pipeline.{step_id}"
    assert "is not a step of execution another-run" in printed["reason"]
    assert outcome.stderr_lines == [f"error: registration refused: {printed['reason']}"]
    assert _steps(wfx, execution_id) == before


@pytest.mark.parametrize(
    ("args", "named"),
    [
        pytest.param(
            ["--log-group-name", "/g", "--source-type", "lamda"],
            ["--source-type", "lambda"],
            id="unknown source type",
        ),
        pytest.param(
            ["--sub-execution-type", "batch"],
            ["--sub-execution-type", "--sub-execution-id", "both or neither"],
            id="type without id",
        ),
        pytest.param(
            ["--sub-execution-id", "job-1"],
            ["--sub-execution-type", "--sub-execution-id"],
            id="id without type",
        ),
        pytest.param(
            ["--log-stream-prefix", "states/"],
            ["--log-stream-prefix", "--log-group-name"],
            id="stream without group",
        ),
        pytest.param([], ["nothing to register"], id="nothing"),
        pytest.param(
            ["--log-group-name", "g" * 513],
            ["--log-group-name", "at most 512 characters"],
            id="group name too long",
        ),
        pytest.param(
            ["--sub-execution-type", "batch", "--sub-execution-id", "j" * 1025],
            ["--sub-execution-id", "at most 1024 characters"],
            id="sub-execution id too long",
        ),
        pytest.param(
            ["--log-group-name", "/g", "--stage-name", "s" * 81],
            ["--stage-name", "at most 80 characters"],
            id="stage name too long",
        ),
    ],
)
def test_bad_input_exits_2_naming_the_option_and_publishes_nothing(
    tmp_path: Path, args: list[str], named: list[str]
) -> None:
    wfx = Wfx(tmp_path / "home")

    outcome = wfx(
        "pipelines", "register", "--execution-id", "e1", "--pipeline-execution-id", "p1", *args
    )

    assert_bad_input(outcome, *named)
    assert not (tmp_path / "home" / "wfx.db").exists()  # nothing was opened, let alone written


def test_without_the_ids_or_their_variables_the_option_is_named(tmp_path: Path) -> None:
    outcome = Wfx(tmp_path / "home")("pipelines", "register", "--log-group-name", "/g")

    assert_bad_input(outcome, "--execution-id")


def test_a_bad_bus_setting_exits_2_naming_the_variable(tmp_path: Path) -> None:
    wfx = Wfx(tmp_path / "home", WFX_EVENT_BUS="kafka")

    outcome = wfx(
        "pipelines",
        "register",
        "--execution-id",
        "e1",
        "--pipeline-execution-id",
        "p1",
        "--log-group-name",
        "/g",
    )

    assert_bad_input(outcome, "WFX_EVENT_BUS", "local, eventbridge")
