"""`wfx pipelines register` as a user runs it, and as a shell-command step of a local run runs
it (the step inherits WFX_EXECUTION_ID, WFX_PIPELINE_EXECUTION_ID and its own
WFX_REGISTRATION_TOKEN): what a step registers shows in `executions show`, a refusal exits 1
with its reason, bad input exits 2. A step of one run cannot register onto another run's step,
whatever ids it names: its token is only its own."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from adapters.local.registration_credentials import KEY_FILE_NAME
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
    return {entry["pipelineId"]: entry for entry in shown["pipelines"]}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Wfx, str, dict[str, dict[str, Any]]]:
    """One home holding a run whose first step registered through the CLI."""
    home = tmp_path_factory.mktemp("registration")
    wfx = Wfx(home / "home").passing_store_to_steps()  # its steps write their registrations
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
    assert registered["executionStatus"] == "SUCCEEDED"
    # wfx's former type name is converted to VAMS's typed locator, shown by its name: as VAMS,
    # no ARN leaves
    assert registered["registeredSubExecutions"] == [
        {"resourceType": "stepFunctionsExecution", "resourceName": "run-1", "label": ""}
    ]
    assert registered["registeredLogs"] == [
        {
            "logGroupName": "/wfx/inner",
            "logStreamName": "",
            "logStreamPrefix": "states/",
            "stageName": "",
            "label": "",
            "sourceType": "stateMachine",
        }
    ]
    assert steps["after"]["registeredLogs"] == []


def test_a_registration_after_the_step_ended_is_recorded(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    """The step has SUCCEEDED: as VAMS, what it reports late is still recorded (an abort can
    stop only what is on the row); a redelivery merges, adding the label it lacked."""
    wfx, execution_id, steps = run
    step_id = steps["start-inner"]["pipelineExecutionId"]

    outcome = wfx(
        "pipelines",
        "register",
        "--execution-id",
        execution_id,
        "--pipeline-execution-id",
        step_id,
        *REGISTER_ARGS,
        "--label",
        "inner",
        "--registration-token",
        wfx.registration_token(execution_id, step_id),
    )

    assert outcome.code == 0, str(outcome)
    after = _steps(wfx, execution_id)["start-inner"]
    assert after["executionStatus"] == "SUCCEEDED"
    assert [sub["label"] for sub in after["registeredSubExecutions"]] == ["inner"]


def test_a_step_of_another_run_is_refused_with_its_reason_and_nothing_is_written(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    wfx, execution_id, _ = run
    before = _steps(wfx, execution_id)
    step_id = before["after"]["pipelineExecutionId"]

    # a token for exactly these ids, so that what refuses is the step's not being in that run
    outcome = wfx.with_environment(
        WFX_REGISTRATION_TOKEN=wfx.registration_token("another-run", step_id)
    )(
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


def _every_stored_byte(home: Path) -> bytes:
    """Every file under the home (rows, logs, objects, run folders) but the key itself."""
    return b"".join(
        path.read_bytes()
        for path in sorted(home.rglob("*"))
        if path.is_file() and path.name != KEY_FILE_NAME
    )


def test_the_token_a_step_registered_with_is_stored_nowhere(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    wfx, execution_id, steps = run
    token = wfx.registration_token(execution_id, steps["start-inner"]["pipelineExecutionId"])

    assert token.encode() not in _every_stored_byte(wfx.home)
    assert (wfx.home / KEY_FILE_NAME).stat().st_mode & 0o777 == 0o600


def test_a_step_of_another_run_naming_this_runs_step_with_its_own_token_is_refused(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    """The attack of issue 8: a real command step of run A sets the ids of run B's step (here a
    process id an abort of B would signal) and sends the token it was given, A's own."""
    wfx, victim, _ = run
    before = _steps(wfx, victim)  # the module's other tests may have registered since
    target = before["after"]["pipelineExecutionId"]
    intruder_workflow = wfx.home / "intruder.json"
    intruder_workflow.write_text(
        json.dumps(
            {
                "databaseId": "e2e",
                "workflowId": "intruder",
                "steps": [
                    {
                        "pipelineId": "hijack",
                        "executionType": "command",
                        "inputFileArity": "none",
                        "command": [
                            "{python}", "-m", "entrypoints.cli.main", "pipelines", "register",
                            "--execution-id", victim, "--pipeline-execution-id", target,
                            "--sub-execution-type", "localProcess", "--sub-execution-id", "1",
                        ],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )  # fmt: skip
    wfx.ok("workflows", "publish", str(intruder_workflow))

    intruder = wfx.run_id("e2e/intruder", expect_code=1)

    shown = wfx.json("executions", "show", intruder)
    error = shown["executionError"]
    assert (
        f"registration refused: step {target} of execution {victim}: "
        "the registration token is not this step's"
    ) in error
    (hijack,) = shown["pipelines"]
    own_token = wfx.registration_token(intruder, hijack["pipelineExecutionId"])
    assert own_token not in error
    assert own_token.encode() not in _every_stored_byte(wfx.home)
    assert _steps(wfx, victim) == before


@pytest.mark.parametrize(
    ("token", "refusal"),
    [
        pytest.param(None, "no registration token", id="no token"),
        pytest.param("garbage-" * 8, "the registration token is not this step's", id="garbage"),
    ],
)
def test_a_registration_without_the_steps_token_exits_1_naming_the_step(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]], token: str | None, refusal: str
) -> None:
    wfx, execution_id, _ = run
    before = _steps(wfx, execution_id)
    step_id = before["after"]["pipelineExecutionId"]
    given = [] if token is None else ["--registration-token", token]

    outcome = wfx(
        "pipelines",
        "register",
        "--execution-id",
        execution_id,
        "--pipeline-execution-id",
        step_id,
        "--log-group-name",
        "/wfx/unproven",
        *given,
    )

    assert outcome.code == 1, str(outcome)
    (line,) = outcome.stderr_lines
    assert line.startswith(
        f"error: registration refused: step {step_id} of execution {execution_id}: {refusal}"
    ), line
    assert token is None or token not in outcome.stdout + outcome.stderr
    assert _steps(wfx, execution_id) == before


def test_the_help_never_shows_the_token_of_the_environment(tmp_path: Path) -> None:
    secret = "5ec12e7" * 9
    wfx = Wfx(tmp_path / "home", WFX_REGISTRATION_TOKEN=secret)

    outcome = wfx.ok("pipelines", "register", "--help")

    assert "--registration-token" in outcome.stdout
    assert secret not in outcome.stdout + outcome.stderr


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
            ["--log-group-name", "1 to 512 of letters"],
            id="group name too long",
        ),
        pytest.param(
            ["--sub-execution-type", "batch", "--sub-execution-id", "j" * 1025],
            ["--sub-execution-id", "3 to 63 letters"],
            id="sub-execution id too long",
        ),
        pytest.param(
            ["--sub-execution-type", "no spaces!", "--sub-execution-id", "job-1"],
            ["--sub-execution-type", "3 to 63 letters"],
            id="sub-execution type",
        ),
        pytest.param(
            ["--log-group-name", "/g", "--log-stream-name", "a:b"],
            ["--log-stream-name", "without ':'"],
            id="stream name with a colon",
        ),
        pytest.param(
            ["--log-group-name", "/g", "--stage-name", "s" * 81],
            ["--stage-name", "1 to 80 characters"],
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


def test_a_registration_key_that_is_a_link_out_of_the_home_is_not_followed(
    tmp_path: Path,
) -> None:
    """The key proves which step registers: one read through a link is a key from anywhere
    (its mode checked there), as the token signing key's was before it was opened O_NOFOLLOW."""
    elsewhere = Wfx(tmp_path / "elsewhere")
    elsewhere.publish_command_step(
        "token", "import os; print(os.environ['WFX_REGISTRATION_TOKEN'])"
    )
    elsewhere.run_id("demo/token")  # a good key, 0600, outside the home below
    wfx = elsewhere.in_home(tmp_path / "home")
    wfx.publish_command_step("token", "import os; print(os.environ['WFX_REGISTRATION_TOKEN'])")
    key = wfx.home / KEY_FILE_NAME

    for target in (elsewhere.home / KEY_FILE_NAME, tmp_path / "nowhere.key"):
        key.symlink_to(target)
        refused = wfx("run", "demo/token")
        assert refused.code == 1, str(refused)
        (step,) = wfx.json("executions", "show", refused.stdout.strip())["pipelines"]
        assert step["executionStatus"] == "FAILED"
        assert step["errorMessage"] == (
            f"InvalidInputError: the registration key {key} is a symbolic link; wfx checks "
            "step credentials only with a file of its own in WFX_HOME: put the key file there "
            "in its place, or delete the link to have one made"
        )
        assert "1. step: FAILED (InvalidInputError: the registration key" in refused.stderr
        assert "Traceback" not in refused.stderr
        key.unlink()
    assert not (tmp_path / "nowhere.key").exists()


def test_a_registration_key_path_that_is_a_fifo_fails_the_step_at_once(tmp_path: Path) -> None:
    """A FIFO there held the run's first step in the key's open for ever."""
    wfx = Wfx(tmp_path / "home")
    wfx.publish_command_step("token", "import os; print(os.environ['WFX_REGISTRATION_TOKEN'])")
    key = wfx.home / KEY_FILE_NAME
    os.mkfifo(key)

    refused = wfx("run", "demo/token", timeout=20)

    assert refused.code == 1, str(refused)
    (step,) = wfx.json("executions", "show", refused.stdout.strip())["pipelines"]
    assert step["errorMessage"] == (
        f"InvalidInputError: the registration key {key} is not a file; delete what is there "
        "to have one made"
    )


def test_a_sub_process_the_deployment_may_not_stop_is_left_out_with_a_warning_naming_why(
    run: tuple[Wfx, str, dict[str, dict[str, Any]]],
) -> None:
    """WFX_SUB_PROCESSES (a stack's functions have it): a run of a machine its roles may not stop
    is not recorded, and the rest of the registration is."""
    wfx, execution_id, steps = run
    step_id = steps["after"]["pipelineExecutionId"]
    elsewhere = "arn:aws:states:us-east-1:123456789012:execution:elsewhere:run-9"

    outcome = wfx.with_environment(WFX_SUB_PROCESSES="stateMachines=render-*")(
        "pipelines",
        "register",
        "--execution-id",
        execution_id,
        "--pipeline-execution-id",
        step_id,
        "--sub-execution-type",
        "stepFunctions",
        "--sub-execution-id",
        elsewhere,
        "--log-group-name",
        "/wfx/kept",
        "--registration-token",
        wfx.registration_token(execution_id, step_id),
    )

    assert outcome.code == 0, str(outcome)
    assert outcome.stderr_lines == [
        "warning: subExecution.executionArn: a run of state machine elsewhere, which this "
        "deployment's roles may not stop (they stop runs of wfx-* and of "
        "SubProcessStateMachinePattern: render-*); entry dropped"
    ]
    after = _steps(wfx, execution_id)["after"]
    assert after["registeredSubExecutions"] == []
    assert [log["logGroupName"] for log in after["registeredLogs"]] == ["/wfx/kept"]
