"""`wfx` on DynamoDB with nothing listening: exit 3, soon, with a line saying how to start it."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.e2e.cli import FAKE_AWS, MESH_WORKFLOW, Wfx

# No retry tuning in the environment: a user who forgot to start DynamoDB gets the default
# client, so its retries and timeouts are part of what is tested. Seconds, generous for CI.
PROMPT_SECONDS = 10


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # closed again on leaving the block; nothing else binds it this fast


@pytest.fixture
def unreachable(tmp_path: Path) -> Wfx:
    return Wfx(
        tmp_path / "home",
        WFX_STORE="dynamodb",
        WFX_DYNAMODB_ENDPOINT=f"http://127.0.0.1:{_closed_port()}",
        **FAKE_AWS,
    )


COMMANDS = {
    "tables create": ("tables", "create"),
    "publish": ("workflows", "publish", str(MESH_WORKFLOW)),
    "run": ("run", "demo/mesh-report", "--input", "demo/meshes"),
    "list": ("executions", "list", "--json"),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_dynamodb_exits_3_saying_how_to_start_it(unreachable: Wfx, command: str) -> None:
    outcome = unreachable(*COMMANDS[command])

    assert outcome.code == 3, str(outcome)
    assert outcome.stdout == ""
    [line] = outcome.stderr_lines
    assert line.startswith("error: cannot reach DynamoDB")
    for advice in ("moto_server", "DynamoDB Local", "WFX_DYNAMODB_ENDPOINT", "WFX_STORE"):
        assert advice in line
    assert outcome.seconds < PROMPT_SECONDS, str(outcome)


def test_missing_aws_credentials_exit_3_saying_which_to_set(tmp_path: Path) -> None:
    wfx = Wfx(
        tmp_path / "home",
        WFX_STORE="dynamodb",
        WFX_DYNAMODB_ENDPOINT=f"http://127.0.0.1:{_closed_port()}",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "no-credentials"),
        AWS_CONFIG_FILE=str(tmp_path / "no-config"),
        AWS_EC2_METADATA_DISABLED="true",  # no instance-metadata probe: fail at once
    )

    outcome = wfx("executions", "list")

    assert outcome.code == 3, str(outcome)
    assert outcome.stderr_lines == [
        "error: no AWS credentials: set AWS_PROFILE, "
        "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY."
    ]


def test_an_unreachable_eventbridge_is_named_as_itself_not_as_dynamodb(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    wfx = Wfx(tmp_path / "home", WFX_EVENT_BUS="eventbridge", AWS_ENDPOINT_URL=endpoint, **FAKE_AWS)

    outcome = wfx(
        "pipelines", "register", "--execution-id", "e-1", "--pipeline-execution-id", "p-1",
        "--log-group-name", "/pipelines/inner",
    )  # fmt: skip

    assert outcome.code == 3, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith(f"error: cannot reach {endpoint}")
    assert "DynamoDB" not in line
    assert "AWS_ENDPOINT_URL" in line
    assert outcome.seconds < PROMPT_SECONDS, str(outcome)
