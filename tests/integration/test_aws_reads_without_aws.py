"""Best-effort AWS reads on a machine with no credentials, or with an endpoint that does not
answer: each becomes a status or a warning that says what to set, never a failed request.

Real boto3 clients, nothing mocked: the credential chain is pointed at empty files with the
instance-metadata probe off, and the unreachable endpoint is a closed local port with retries
off, so each failure comes back at once.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config

from adapters.aws.cloudwatch_logs import CloudWatchLogReader
from adapters.aws.sub_executions import AwsSubExecutionReader
from adapters.aws.subprocesses import StepFunctionsSubProcessController
from domain.available_logs import LogReadStatus
from domain.logs import RegisteredSubExecution
from domain.stages import SubExecutionReadError
from domain.sub_processes import StopOutcome
from tests.contract.builders import a_step

EXECUTION = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"
NO_RETRIES = Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=2)


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name in (
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
    ):
        monkeypatch.delenv(name, raising=False)


def _client(service: str, endpoint: str | None = None) -> Any:
    session: Any = boto3.session.Session(region_name="us-east-1")  # any service name
    return session.client(service, endpoint_url=endpoint, config=NO_RETRIES)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_log_read_without_credentials_is_an_error_status_saying_what_to_set(
    no_credentials: None,
) -> None:
    reader = CloudWatchLogReader(lambda: _client("logs"))

    page = reader.read("/aws/lambda/tool", stream="2026/11/30/run-1")

    assert page.status is LogReadStatus.ERROR
    assert page.problem is not None and page.problem.startswith(
        "no AWS credentials: set AWS_PROFILE"
    )
    assert page.events == ()


def test_a_sub_execution_read_of_an_endpoint_that_does_not_answer_names_the_endpoint() -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    reader = AwsSubExecutionReader(
        lambda: _client_with_keys("stepfunctions", endpoint),
        lambda: _client_with_keys("batch", endpoint),
    )

    with pytest.raises(SubExecutionReadError) as raised:
        reader.describe_execution(EXECUTION)

    message = str(raised.value)
    assert message.startswith(f"DescribeExecution {EXECUTION}: cannot reach {endpoint}")
    assert "AWS_ENDPOINT_URL" in message


def test_a_stop_without_credentials_could_not_stop_and_says_what_to_set(
    no_credentials: None,
) -> None:
    controller = StepFunctionsSubProcessController(lambda: _client("stepfunctions"))
    child = RegisteredSubExecution.of_resource(resource_type="stepFunctions", resource_id=EXECUTION)

    attempt = controller.stop(child, a_step("e1", 0))

    assert attempt.outcome is StopOutcome.COULD_NOT_STOP
    assert "no AWS credentials: set AWS_PROFILE" in attempt.detail


def _client_with_keys(service: str, endpoint: str) -> Any:
    session: Any = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )
    return session.client(service, endpoint_url=endpoint, config=NO_RETRIES)
