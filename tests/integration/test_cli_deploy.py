"""`wfx workflows deploy` as a user runs it: SQLite store, Step Functions on a moto server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.cli import FAKE_AWS, MESH_WORKFLOW, Wfx
from tests.integration.moto_server import moto_server, served_client
from tests.one_answer_server import answering

pytestmark = pytest.mark.integration

ACCOUNT = "123456789012"
DEPLOYMENT = {
    "WFX_SFN_ROLE_ARN": f"arn:aws:iam::{ACCOUNT}:role/wfx-state-machine",
    "WFX_SFN_LOG_GROUP_ARN": f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/wfx/sfn:*",
    "WFX_LAMBDA_TRACKING_ARN": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:wfx-track",
    "WFX_LAMBDA_COMPLETION_ARN": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:wfx-complete",
    "WFX_LAMBDA_ERROR_ARN": f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:wfx-error",
}
AWS_WORKFLOW = {
    "databaseId": "demo",
    "workflowId": "on-aws",
    "steps": [
        {
            "pipelineId": "convert",
            "executionType": "lambda",
            "functionName": "mesh-convert",
            "waitForCallback": True,
        },
        {
            "pipelineId": "render",
            "executionType": "batch",
            "jobQueue": "wfx-queue",
            "jobDefinition": "render:1",
            "retry": {"maxAttempts": 3, "intervalSeconds": 30},
        },
    ],
}


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture
def wfx(tmp_path: Path, endpoint: str) -> Wfx:
    wfx = Wfx(tmp_path / "home", AWS_ENDPOINT_URL=endpoint, **FAKE_AWS, **DEPLOYMENT)
    workflow = tmp_path / "on-aws.yaml"
    workflow.write_text(yaml.safe_dump(AWS_WORKFLOW), encoding="utf-8")
    published = wfx("workflows", "publish", str(workflow))
    assert published.code == 0, str(published)
    return wfx


def test_deploy_prints_the_state_machine_arn_and_records_it_on_the_version(
    wfx: Wfx, endpoint: str
) -> None:
    deployed = wfx("workflows", "deploy", "demo/on-aws")

    assert deployed.code == 0, str(deployed)
    arn = deployed.stdout.strip()
    assert arn.endswith(":stateMachine:wfx-demo-on-aws-v1")
    shown = wfx.json("workflows", "deploy", "demo/on-aws", "--version", "1")
    assert shown["stateMachineArn"] == arn
    assert shown["stateMachineName"] == "wfx-demo-on-aws-v1"
    sfn = served_client("stepfunctions", endpoint)
    machine = sfn.describe_state_machine(stateMachineArn=arn)
    definition = json.loads(machine["definition"])
    # maxAttempts 3: the retry loop's Choice retries after attempts 1 and 2, not after 3
    assert definition["States"]["Retry? render"]["Choices"][0]["NumericLessThan"] == 3
    assert machine["loggingConfiguration"]["destinations"] == [
        {"cloudWatchLogsLogGroup": {"logGroupArn": DEPLOYMENT["WFX_SFN_LOG_GROUP_ARN"]}}
    ]


def test_deploy_without_a_setting_exits_2_naming_the_variable(wfx: Wfx) -> None:
    without_role = wfx.with_environment(WFX_SFN_ROLE_ARN="")

    outcome = without_role("workflows", "deploy", "demo/on-aws")

    assert outcome.code == 2, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith("error: WFX_SFN_ROLE_ARN: not set")


def test_deploy_refuses_a_workflow_with_local_steps_naming_them(wfx: Wfx) -> None:
    published = wfx.json("workflows", "publish", str(MESH_WORKFLOW))
    workflow = f"{published['workflowDatabaseId']}/{published['workflowId']}"

    outcome = wfx("workflows", "deploy", workflow)

    assert outcome.code == 2, str(outcome)
    [line] = outcome.stderr_lines
    assert "cannot run on Step Functions" in line
    first_step = published["steps"][0]
    assert f"{first_step['pipelineId']} ({first_step['executionType']})" in line


def _sfn(endpoint: str) -> Any:
    return served_client("stepfunctions", endpoint)


def test_two_workflows_whose_names_read_alike_get_state_machines_of_their_own(
    wfx: Wfx, endpoint: str, tmp_path: Path
) -> None:
    """demo/on-aws and demo-on/aws both spell `wfx-demo-on-aws-v1` in Step Functions' alphabet;
    the second deploy must not put its steps into the first one's machine, which its runs
    would then run."""
    other = {**AWS_WORKFLOW, "databaseId": "demo-on", "workflowId": "aws"}
    other["steps"] = [
        {"pipelineId": "convert", "executionType": "lambda", "functionName": "other-convert"}
    ]
    file = tmp_path / "other.yaml"
    file.write_text(yaml.safe_dump(other), encoding="utf-8")
    wfx.ok("workflows", "publish", str(file))

    first = wfx.json("workflows", "deploy", "demo/on-aws")
    second = wfx.json("workflows", "deploy", "demo-on/aws")
    again = wfx.json("workflows", "deploy", "demo-on/aws")

    assert first["stateMachineArn"] != second["stateMachineArn"]
    assert again["stateMachineArn"] == second["stateMachineArn"]
    sfn = _sfn(endpoint)
    for answer, key in ((first, "demo/on-aws"), (second, "demo-on/aws")):
        machine = sfn.describe_state_machine(stateMachineArn=answer["stateMachineArn"])
        assert json.loads(machine["definition"])["Comment"].startswith(f"wfx {key} version 1:")
    assert (
        wfx.json("workflows", "show", "demo/on-aws")["version"]["stateMachineArn"]
        == (first["stateMachineArn"])
    )


def test_deploy_names_the_machine_with_the_stack_s_prefix_and_refuses_one_aws_would_not_take(
    wfx: Wfx,
) -> None:
    """WFX_STATE_MACHINE_PREFIX is the stack's StateMachineNamePrefix output: the names the
    stack's roles reach. One outside a name's alphabet is refused naming it, nothing deployed."""
    refused = wfx.with_environment(WFX_STATE_MACHINE_PREFIX="team a/")(
        "workflows", "deploy", "demo/on-aws"
    )
    assert refused.code == 2, str(refused)
    assert refused.stderr_lines[-1].startswith("error: WFX_STATE_MACHINE_PREFIX: must be 1-40")

    deployed = wfx.with_environment(WFX_STATE_MACHINE_PREFIX="wfx_0a1b2c3d-")(
        "workflows", "deploy", "demo/on-aws"
    )

    assert deployed.code == 0, str(deployed)
    assert deployed.stdout.strip().endswith(":stateMachine:wfx_0a1b2c3d-demo-on-aws-v1")


def test_a_version_deployed_before_the_prefix_keeps_its_machine_and_the_deploy_says_so(
    wfx: Wfx,
) -> None:
    """Upgrading: a version records its machine for good, so a deploy under the stack's prefix
    updates the earlier one, which the stack's functions reach only when it is named."""
    before = wfx("workflows", "deploy", "demo/on-aws")
    assert before.code == 0, str(before)

    again = wfx.with_environment(WFX_STATE_MACHINE_PREFIX="wfx_0a1b2c3d-")(
        "workflows", "deploy", "demo/on-aws"
    )

    assert again.code == 0, str(again)
    assert again.stdout == before.stdout  # the ARN alone, as before
    (note,) = again.stderr_lines
    assert note.startswith(
        "warning: demo/on-aws version 1 keeps its state machine wfx-demo-on-aws-v1"
    )
    assert "outside WFX_STATE_MACHINE_PREFIX wfx_0a1b2c3d-" in note
    assert "EarlierStateMachinePattern" in note and "publish a new version" in note


@pytest.fixture
def denying_endpoint() -> Iterator[str]:
    """A Step Functions endpoint refusing every call as AWS does a caller its policy denies."""
    body = json.dumps(
        {
            "__type": "AccessDeniedException",
            "message": "User: arn:aws:iam::123456789012:user/ops is not authorized to perform: "
            "states:CreateStateMachine on resource: arn:aws:states:us-east-1:123456789012:"
            "stateMachine:wfx-demo-on-aws-v1",
        }
    ).encode()

    headers = {
        "Content-Type": "application/x-amz-json-1.0",
        "x-amzn-ErrorType": "AccessDeniedException",
    }
    with answering(400, body, headers) as endpoint:
        yield endpoint.url


def test_a_deploy_aws_denies_the_caller_says_which_right_in_one_line(
    wfx: Wfx, denying_endpoint: str
) -> None:
    """Credentials without states:CreateStateMachine (or iam:PassRole on the role): the denial
    and where the rights are listed, one line, not a traceback; nothing recorded."""
    denied = wfx.with_environment(AWS_ENDPOINT_URL_SFN=denying_endpoint)(
        "workflows", "deploy", "demo/on-aws"
    )

    assert denied.code == 3, str(denied)
    assert "Traceback" not in denied.stderr
    (line,) = denied.stderr_lines
    assert line.startswith("error: AWS denied CreateStateMachine (AccessDeniedException)"), line
    assert "states:CreateStateMachine" in line and "docs/aws.md" in line
    shown = wfx.json("workflows", "show", "demo/on-aws")
    assert shown.get("stateMachineArn") in (None, "")
