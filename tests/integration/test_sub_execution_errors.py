"""What a details request with sub-executions does when Step Functions or Batch answers badly:
the sub-execution is UNKNOWN (or keeps what was read), a redacted warning names it and the error,
and the request succeeds. The answers are botocore Stubber responses in AWS's shapes (moto cannot
be made to fail a history read midway, to return a 257 KiB definition's frame problem with a
status, or to fail DescribeJobs)."""

from __future__ import annotations

from typing import Any, Literal

import boto3
import pytest
from botocore.stub import Stubber

from adapters.aws.sub_executions import AwsSubExecutionReader
from adapters.system import SystemClock
from application.ports.executions import ExecutionStore
from application.sub_execution_status import SubExecutionStatus
from application.use_cases.get_execution_details import (
    GetExecutionDetails,
    GetExecutionDetailsQuery,
)
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecutionCommand,
)
from domain.execution import ExecutionDetails
from tests.contract.builders import a_launch, a_registrar, step_id, write_launch

REGION = "us-east-1"
ACCOUNT = "123456789012"
STEP = step_id("e1", 0)
MACHINE = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:inner"
RUN = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:inner:run-1"
HISTORY_REQUEST = {
    "executionArn": RUN,
    "maxResults": 1000,
    "reverseOrder": False,
    "includeExecutionData": False,
}


@pytest.fixture
def store(sqlite_file_execution_store: ExecutionStore) -> ExecutionStore:
    write_launch(sqlite_file_execution_store, a_launch("e1"))
    return sqlite_file_execution_store


def _client(service: Literal["stepfunctions", "batch"]) -> Any:
    return boto3.client(
        service,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def _register(store: ExecutionStore, resource_type: str, resource_id: str) -> None:
    a_registrar(store).execute(
        RegisterPipelineExecutionCommand.model_validate(
            {
                "source": f"wfx.execution.e1.pipeline.{STEP}",
                "detail-type": "pipeline.execution.register",
                "detail": {
                    "pipelineExecutionId": STEP,
                    "subExecutions": [{"resourceType": resource_type, "resourceId": resource_id}],
                },
            }
        )
    )


def _details(store: ExecutionStore, sfn: Any, batch: Any) -> ExecutionDetails:
    reader = AwsSubExecutionReader(lambda: sfn, lambda: batch)
    use_case = GetExecutionDetails(store, None, SubExecutionStatus(reader), clock=SystemClock())
    query = GetExecutionDetailsQuery(workflow_execution_id="e1", include_sub_executions=True)
    return use_case.execute(query)


def _described(stub: Stubber, definition: str) -> None:
    stub.add_response(
        "describe_execution",
        {
            "executionArn": RUN,
            "stateMachineArn": MACHINE,
            "status": "RUNNING",
            "startDate": "2025-03-01T09:00:00Z",
        },
        {"executionArn": RUN},
    )
    stub.add_response(
        "describe_state_machine",
        {
            "stateMachineArn": MACHINE,
            "name": "inner",
            "definition": definition,
            "roleArn": f"arn:aws:iam::{ACCOUNT}:role/r",
            "type": "STANDARD",
            "creationDate": "2025-03-01T08:00:00Z",
        },
        {"stateMachineArn": MACHINE},
    )


TWO_STATES = (
    '{"StartAt": "First", "States": {"First": {"Type": "Pass", "Next": "Second"},'
    ' "Second": {"Type": "Pass", "End": true}}}'
)


def test_a_history_read_that_fails_midway_keeps_what_was_read_and_warns(
    store: ExecutionStore,
) -> None:
    _register(store, "stepFunctions", RUN)
    sfn = _client("stepfunctions")
    with Stubber(sfn) as stub:
        _described(stub, TWO_STATES)
        first_page = [
            {
                "timestamp": "2025-03-01T09:00:00Z",
                "type": "ExecutionStarted",
                "id": 1,
                "previousEventId": 0,
                "executionStartedEventDetails": {"input": "{}", "roleArn": "arn:aws:iam::1:r"},
            },
            {
                "timestamp": "2025-03-01T09:00:01Z",
                "type": "PassStateEntered",
                "id": 2,
                "previousEventId": 1,
                "stateEnteredEventDetails": {"name": "First", "input": "{}"},
            },
            {
                "timestamp": "2025-03-01T09:00:02Z",
                "type": "PassStateExited",
                "id": 3,
                "previousEventId": 2,
                "stateExitedEventDetails": {"name": "First", "output": "{}"},
            },
        ]
        stub.add_response(
            "get_execution_history", {"events": first_page, "nextToken": "t2"}, HISTORY_REQUEST
        )
        stub.add_client_error(
            "get_execution_history",
            service_error_code="ThrottlingException",
            service_message="Rate exceeded",
            http_status_code=400,
            expected_params=HISTORY_REQUEST | {"nextToken": "t2"},
        )
        details = _details(store, sfn, None)
        stub.assert_no_pending_responses()

    (sub,) = details.steps[0].sub_executions
    assert sub.status == "RUNNING"
    assert [(s.name, s.status.value) for s in sub.stages] == [
        ("First", "SUCCEEDED"),
        ("Second", "UNKNOWN"),
    ]
    (warning,) = details.sub_execution_warnings
    assert "GetExecutionHistory" in warning.message and "ThrottlingException" in warning.message


def test_a_definition_over_256_kib_gives_the_status_without_stages_and_a_warning(
    store: ExecutionStore,
) -> None:
    _register(store, "stepFunctions", RUN)
    sfn = _client("stepfunctions")
    padded = TWO_STATES[:-1] + ', "Comment": "' + "x" * (257 * 1024) + '"}'
    with Stubber(sfn) as stub:
        _described(stub, padded)
        details = _details(store, sfn, None)
        stub.assert_no_pending_responses()  # no history is read for a frame that cannot be made

    (sub,) = details.steps[0].sub_executions
    assert (sub.status, sub.stages) == ("RUNNING", ())
    (warning,) = details.sub_execution_warnings
    assert "over the 262144-byte bound" in warning.message


def test_a_batch_error_makes_its_jobs_unknown_with_a_redacted_warning(
    store: ExecutionStore,
) -> None:
    _register(store, "batch", "job-1")
    batch = _client("batch")
    with Stubber(batch) as stub:
        stub.add_client_error(
            "describe_jobs",
            service_error_code="AccessDeniedException",
            service_message="User AKIAIOSFODNN7EXAMPLE is not authorized to describe jobs",
            http_status_code=403,
            expected_params={"jobs": ["job-1"]},
        )
        details = _details(store, None, batch)

    (sub,) = details.steps[0].sub_executions
    assert sub.status == "UNKNOWN"
    (warning,) = details.sub_execution_warnings
    assert "AccessDeniedException" in warning.message
    assert "AKIAIOSFODNN7EXAMPLE" not in warning.message
