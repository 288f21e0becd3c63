"""A whole run: the generated state machine on moto's ASL interpreter calls wfx's real Lambda
handlers, which keep a SQLite store up to date.

moto cannot invoke a Lambda function (no Docker here), so in a test-only copy of the definition
every `lambda:invoke` / `lambda:invoke.waitForTaskToken` Task becomes an
`sqs:sendMessage.waitForTaskToken` Task whose message names the function and carries the Task's
own Payload. The test plays the Lambda service: it reads each message, calls the handler the
function name stands for (`track_step`, `complete_execution`, `handle_execution_error`) with the
Payload as the event, and answers the task with the handler's result. The workflow's own step
is a callback lambda: the test answers it with the `taskToken` the generated Payload gives the
function. States, order, Retry, Catch and ResultPath are the generated definition's.
"""

from __future__ import annotations

import copy
import importlib
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

from application.state_machines import (
    LAMBDA_INVOKE,
    LAMBDA_INVOKE_CALLBACK,
    HandlerArns,
    build_state_machine,
)
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT
from domain.attempts import AttemptTrigger
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import ExecutionType, RetryPolicy, StepDefinition, WorkflowVersion
from entrypoints.container import create_all_tables
from tests.contract.builders import a_launch, step_id, write_launch

pytestmark = pytest.mark.integration

EXECUTION_ID = "0b9e2f4c-6a1d-4e0b-9a57-3f2c1d0e8b71"
HANDLERS = HandlerArns(tracking="wfx-track-step", completion="wfx-complete", error="wfx-error")
USER_FUNCTION = "mesh-convert"


def _version(retry: RetryPolicy | None = None) -> WorkflowVersion:
    steps = tuple(
        StepDefinition(
            pipeline_id=f"pipe{index}",
            pipeline_database_id="db1",
            execution_type=ExecutionType.LAMBDA,
            function_name=USER_FUNCTION,
            wait_for_callback=index == 1,
            retry=retry if index == 1 else None,
        )
        for index in range(2)
    )
    return WorkflowVersion(
        database_id="db1",
        workflow_id="wf1",
        version=1,
        steps=steps,
        published_at=datetime(2026, 11, 29, tzinfo=UTC),
        digest="sha256:x",
    )


def lambda_calls_through_sqs(definition: dict[str, Any], queue_url: str) -> dict[str, Any]:
    """The test-only copy described in the module docstring."""
    copied = copy.deepcopy(definition)
    for state in copied["States"].values():
        if state.get("Resource") in (LAMBDA_INVOKE, LAMBDA_INVOKE_CALLBACK):
            parameters = state["Parameters"]
            state["Resource"] = "arn:aws:states:::sqs:sendMessage.waitForTaskToken"
            state["Parameters"] = {
                "QueueUrl": queue_url,
                "MessageBody": {
                    "functionName": parameters["FunctionName"],
                    "payload": parameters["Payload"],
                    "invocationToken.$": "$$.Task.Token",
                },
            }
    return copied


@pytest.fixture
def handlers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    for name in ("WFX_STORE", "WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WFX_HOME", str(tmp_path / "home"))
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    module = importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))
    create_all_tables(module.container)
    write_launch(module.container.execution_store(), a_launch(EXECUTION_ID, steps=2))
    yield module
    module.container.sqlite_database().close()


def run_on_moto(
    handlers: ModuleType,
    callback_errors: list[str] | None = None,
    version: WorkflowVersion | None = None,
) -> tuple[str, list[str]]:
    """Run the version on moto, playing Lambda; the final status and what was invoked.

    The callback step's first answers are send_task_failure with `callback_errors`, in order;
    once they are used up, it succeeds."""
    callback_errors = list(callback_errors or [])
    step_ids = [step_id(EXECUTION_ID, index) for index in range(2)]
    invoked: list[str] = []
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        sqs = boto3.client("sqs", region_name=AWS_REGION)
        sfn = boto3.client("stepfunctions", region_name=AWS_REGION)
        queue_url = sqs.create_queue(QueueName="lambda-invocations")["QueueUrl"]
        definition = lambda_calls_through_sqs(
            build_state_machine(version or _version(), HANDLERS), queue_url
        )
        machine = sfn.create_state_machine(
            name="wfx-db1-wf1-v1",
            definition=json.dumps(definition),
            roleArn="arn:aws:iam::123456789012:role/wfx",
        )
        execution_arn = sfn.start_execution(
            stateMachineArn=machine["stateMachineArn"],
            name=EXECUTION_ID,
            input=json.dumps(
                {
                    "workflowExecutionId": EXECUTION_ID,
                    "pipelineExecutionIds": step_ids,
                }
            ),
        )["executionArn"]

        deadline = time.monotonic() + 20
        while sfn.describe_execution(executionArn=execution_arn)["status"] == "RUNNING":
            assert time.monotonic() < deadline, f"still running after {invoked}"
            for message in sqs.receive_message(QueueUrl=queue_url).get("Messages", []):
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
                body = json.loads(message["Body"])
                try:
                    invoked.append(_invoke(handlers, sfn, body, callback_errors))
                except Exception as error:  # as Lambda reports it: the exception's type name
                    name = type(error).__name__
                    sfn.send_task_failure(
                        taskToken=body["invocationToken"], error=name, cause=str(error)
                    )
                    invoked.append(f"{body['functionName']} raised {name}")
            time.sleep(0.02)
        return str(sfn.describe_execution(executionArn=execution_arn)["status"]), invoked


def test_a_run_on_the_generated_state_machine_keeps_the_store_true(
    handlers: ModuleType,
) -> None:
    status, invoked = run_on_moto(handlers)

    assert status == "SUCCEEDED"
    assert invoked == [
        "start pipe0",
        "mesh-convert",
        "finish pipe0",
        "start pipe1",
        "mesh-convert (callback)",
        "finish pipe1",
        "complete",
    ]
    store = handlers.container.execution_store()
    execution = store.get_execution(EXECUTION_ID)
    assert execution.status is ExecutionStatus.SUCCEEDED
    assert execution.execution_stop_date is not None
    assert {step.status for step in store.list_steps(EXECUTION_ID)} == {StepStatus.SUCCEEDED}


def test_a_failed_step_reaches_the_error_handler_which_fails_the_run_in_the_store(
    handlers: ModuleType,
) -> None:
    status, invoked = run_on_moto(handlers, callback_errors=["MeshError"])

    assert status == "FAILED"
    assert invoked[-2:] == ["mesh-convert (callback)", "handle error MeshError"]
    store = handlers.container.execution_store()
    execution = store.get_execution(EXECUTION_ID)
    assert execution.status is ExecutionStatus.FAILED
    assert execution.execution_error is not None and "MeshError" in execution.execution_error
    statuses = {s.pipeline_id: s.status for s in store.list_steps(EXECUTION_ID)}
    assert statuses == {"pipe0": StepStatus.SUCCEEDED, "pipe1": StepStatus.FAILED}


def _invoke(
    handlers: ModuleType, sfn: Any, message: dict[str, Any], callback_errors: list[str]
) -> str:
    """Play the Lambda service for one invocation; what was invoked, for the test to compare."""
    function, payload = message["functionName"], message["payload"]
    token = message["invocationToken"]
    if function == HANDLERS.tracking:
        result = handlers.track_step(payload, None)
        sfn.send_task_success(taskToken=token, output=json.dumps(result))
        pipeline = payload["pipelineExecutionId"].rsplit("-step", 1)[1]
        return f"{payload['action']} pipe{pipeline}"
    if function == HANDLERS.completion:
        result = handlers.complete_execution(payload, None)
        sfn.send_task_success(taskToken=token, output=json.dumps(result))
        return "complete"
    if function == HANDLERS.error:
        result = handlers.handle_execution_error(payload, None)
        sfn.send_task_success(taskToken=token, output=json.dumps(result))
        return f"handle error {payload['error']['Error']}"
    assert function == USER_FUNCTION, function
    # the workflow's own function: a callback step is answered later with the Payload's token
    callback_token = payload.get("taskToken")
    if callback_token and callback_errors:
        error = callback_errors.pop(0)
        sfn.send_task_failure(taskToken=callback_token, error=error, cause="not a mesh")
    else:
        sfn.send_task_success(taskToken=callback_token or token, output="{}")
    return f"{USER_FUNCTION} (callback)" if callback_token else USER_FUNCTION


def test_a_step_retried_on_step_functions_has_one_attempt_per_run_in_the_store(
    handlers: ModuleType,
) -> None:
    retry = RetryPolicy(max_attempts=3, interval_seconds=1, backoff_rate=1.0)
    status, invoked = run_on_moto(handlers, ["MeshError"], _version(retry=retry))

    assert status == "SUCCEEDED"
    assert invoked[3:] == [
        "start pipe1",
        "mesh-convert (callback)",
        "retry pipe1",
        "mesh-convert (callback)",
        "finish pipe1",
        "complete",
    ]
    store = handlers.container.execution_store()
    retried = step_id(EXECUTION_ID, 1)
    attempts = [(a.attempt, a.status, a.trigger) for a in store.list_attempts([retried])]
    assert attempts == [
        (1, StepStatus.FAILED, AttemptTrigger.START),
        (2, StepStatus.SUCCEEDED, AttemptTrigger.RETRY),
    ]
    first_error = store.list_attempts([retried])[0].error
    assert first_error is not None and first_error.startswith("MeshError")
    assert store.get_step(retried).status is StepStatus.SUCCEEDED
