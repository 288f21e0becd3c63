"""AwsSubExecutionReader against moto in-process: Step Functions in parser mode (real ASL runs and
a real history), Batch with use_docker False. History paging uses botocore's Stubber with AWS's
response shape, because moto ignores maxResults/nextToken and never returns a nextToken."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from adapters.aws.sub_executions import AwsSubExecutionReader
from domain.stage_history import attribute_history, stage_frame
from domain.stages import SubExecutionReadError
from tests.moto_state_machines import (
    ACCOUNT,
    PARSER_MODE,
    REGION,
    SUB_PIPELINE_STATUSES,
    create_sub_pipeline,
    finished_batch_job,
    run_to_the_end,
)

FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
}
MISSING_ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:sub-pipeline:never-started"


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    with mock_aws(config=PARSER_MODE):
        yield


def _reader() -> AwsSubExecutionReader:
    return AwsSubExecutionReader(
        lambda: boto3.client("stepfunctions", region_name=REGION),
        lambda: boto3.client("batch", region_name=REGION),
    )


def _flat(states: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    pending = list(states)
    while pending:
        state = pending.pop()
        found[state.name] = state.status.value
        pending.extend(state.children)
    return found


def test_a_sub_state_machine_that_ran_on_moto_gives_every_stage_its_status(aws: None) -> None:
    client = boto3.client("stepfunctions", region_name=REGION)
    execution_arn = run_to_the_end(client, create_sub_pipeline(client), "run-1")
    reader = _reader()

    described = reader.describe_execution(execution_arn)
    page = reader.history_page(execution_arn, None)
    frame = stage_frame(reader.describe_state_machine(described.state_machine_arn).definition)
    states = attribute_history(frame, page.events, complete=page.next_token is None)

    assert described.status == "FAILED"
    assert described.start_date is not None
    assert _flat(states) == SUB_PIPELINE_STATUSES


def test_an_execution_step_functions_does_not_know_is_a_read_error_naming_it(aws: None) -> None:
    with pytest.raises(
        SubExecutionReadError, match=r"DescribeExecution .*never-started: ExecutionDoesNotExist"
    ):
        _reader().describe_execution(MISSING_ARN)


def test_a_state_machine_that_does_not_exist_is_a_read_error(aws: None) -> None:
    arn = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:gone"
    with pytest.raises(
        SubExecutionReadError, match=r"DescribeStateMachine .*gone: StateMachineDoesNotExist"
    ):
        _reader().describe_state_machine(arn)


def test_batch_jobs_are_described_by_id_and_an_unknown_id_is_absent(aws: None) -> None:
    job_id = finished_batch_job(
        boto3.client("iam", region_name=REGION),
        boto3.client("ec2", region_name=REGION),
        boto3.client("batch", region_name=REGION),
    )
    statuses = _reader().batch_job_statuses([job_id, "no-such-job"])
    assert statuses == {job_id: "SUCCEEDED"}


def test_history_pages_pass_on_only_the_token_step_functions_returned() -> None:
    """Stubber: moto has no history pagination, so the two pages are AWS-shaped stub answers."""
    client = boto3.client(
        "stepfunctions",
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    arn = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:sub-pipeline:run-2"
    started = {
        "timestamp": "2025-03-01T09:00:00Z",
        "type": "ExecutionStarted",
        "id": 1,
        "previousEventId": 0,
        "executionStartedEventDetails": {"input": "{}", "roleArn": "arn:aws:iam::1:role/r"},
    }
    entered = {
        "timestamp": "2025-03-01T09:00:01Z",
        "type": "PassStateEntered",
        "id": 2,
        "previousEventId": 1,
        "stateEnteredEventDetails": {"name": "Prepare", "input": "{}"},
    }
    base = {"executionArn": arn, "maxResults": 1000, "reverseOrder": False}
    base["includeExecutionData"] = False
    with Stubber(client) as stub:
        stub.add_response(
            "get_execution_history", {"events": [started], "nextToken": "page-2-token"}, base
        )
        stub.add_response(
            "get_execution_history", {"events": [entered]}, base | {"nextToken": "page-2-token"}
        )
        reader = AwsSubExecutionReader(lambda: client, lambda: None)
        first = reader.history_page(arn, None)
        second = reader.history_page(arn, first.next_token)
        stub.assert_no_pending_responses()
    assert [e["type"] for e in first.events + second.events] == [
        "ExecutionStarted",
        "PassStateEntered",
    ]
    assert (first.next_token, second.next_token) == ("page-2-token", None)


def test_an_action_the_emulator_lacks_is_a_read_error_not_a_crash() -> None:
    """A NotImplementedError (moto in-process for a missing action) is reported, not raised."""

    class Lacking:
        def describe_execution(self, **_: Any) -> Any:
            raise NotImplementedError("The describe_execution action has not been implemented")

    reader = AwsSubExecutionReader(lambda: Lacking(), lambda: None)
    with pytest.raises(SubExecutionReadError, match="not implemented"):
        reader.describe_execution(MISSING_ARN)


def test_no_client_is_built_until_a_read_is_made() -> None:
    built: list[str] = []
    AwsSubExecutionReader(lambda: built.append("sfn"), lambda: built.append("batch"))
    assert built == []
