"""The generated state machine, run by moto's opt-in ASL interpreter.

moto can store and run the definition (`execute_state_machine`), but it cannot invoke a Lambda
function (no Docker here) and its `batch:submitJob.sync` fails inside moto
(../shared/notes/moto.md row 14). So each test runs a test-only copy of the generated definition
in which:
- every `lambda:invoke` Task (the tracking, completion and error-handler calls, and plain lambda
  steps) and every batch step is a Pass state with the same Payload as Parameters, its result kept
  under `$.trace.<state name>` so the test sees what each call would have been sent;
- a callback lambda step (`lambda:invoke.waitForTaskToken`) is an
  `sqs:sendMessage.waitForTaskToken` Task sending the step's own Payload (with its
  `$$.Task.Token`) to a queue; the test answers it with send_task_success / send_task_failure.
- for the exhausted-retries test, a step is a DynamoDB getItem on a missing table, so each
  attempt fails.
Everything else — the states, their order, Next, ResultPath, Retry, Catch, the Fail state's
ErrorPath — is the generated definition as deployed.
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from moto import mock_aws

from application.state_machines import (
    BATCH_SUBMIT_JOB_SYNC,
    ERROR_STATE,
    LAMBDA_INVOKE,
    LAMBDA_INVOKE_CALLBACK,
    HandlerArns,
    build_state_machine,
    validate_state_machine,
)
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT
from domain.workflow import ExecutionType, RetryPolicy, StepDefinition, WorkflowVersion

HANDLERS = HandlerArns(
    tracking="arn:aws:lambda:us-east-1:123456789012:function:wfx-track-step",
    completion="arn:aws:lambda:us-east-1:123456789012:function:wfx-complete-execution",
    error="arn:aws:lambda:us-east-1:123456789012:function:wfx-handle-execution-error",
)
ROLE = "arn:aws:iam::123456789012:role/wfx-state-machine"
EXECUTION_ID = "0b9e2f4c-6a1d-4e0b-9a57-3f2c1d0e8b71"
STEP_IDS = [
    "5d1c6f0e-2b7a-4c3e-8f19-0a6b4d2e7c90",
    "8e2f7a1b-3c4d-4e5f-9a6b-1c2d3e4f5a6b",
    "c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f",
]
OUTPUT_PREFIX = f"executions/{EXECUTION_ID}/output/"

pytestmark = pytest.mark.integration


def _lambda(pipeline_id: str, callback: bool = False, **fields: Any) -> StepDefinition:
    return StepDefinition(
        pipeline_id=pipeline_id,
        pipeline_database_id="demo",
        execution_type=ExecutionType.LAMBDA,
        function_name=f"wfx-{pipeline_id}",
        wait_for_callback=callback,
        **fields,
    )


def _batch(pipeline_id: str) -> StepDefinition:
    return StepDefinition(
        pipeline_id=pipeline_id,
        pipeline_database_id="demo",
        execution_type=ExecutionType.BATCH,
        job_queue="wfx-queue",
        job_definition="render:1",
    )


def _version(*steps: StepDefinition) -> WorkflowVersion:
    return WorkflowVersion(
        database_id="demo",
        workflow_id="mesh",
        version=1,
        steps=steps,
        published_at=datetime(2026, 11, 29, tzinfo=UTC),
        digest="sha256:x",
    )


def trace_key(state_name: str) -> str:
    return re.sub(r"\W", "_", state_name)


def runnable_on_moto(definition: dict[str, Any], queue_url: str) -> dict[str, Any]:
    """The test-only copy described in the module docstring."""
    copied = copy.deepcopy(definition)
    for name, state in copied["States"].items():
        resource = state.get("Resource")
        if resource in (LAMBDA_INVOKE, BATCH_SUBMIT_JOB_SYNC):
            parameters = state["Parameters"]
            copied["States"][name] = {
                "Type": "Pass",
                "Parameters": parameters.get("Payload", parameters),
                "ResultPath": f"$.trace.{trace_key(name)}",
                "Next": state["Next"],
            }
        elif resource == LAMBDA_INVOKE_CALLBACK:
            state["Resource"] = "arn:aws:states:::sqs:sendMessage.waitForTaskToken"
            state["Parameters"] = {
                "QueueUrl": queue_url,
                "MessageBody": state["Parameters"]["Payload"],
            }
    assert validate_state_machine(copied) == []
    return copied


@dataclass
class Moto:
    sfn: Any
    sqs: Any
    queue_url: str

    def start(
        self, version: WorkflowVersion, failing: dict[str, dict[str, Any]] | None = None
    ) -> str:
        """Start the run; each state in `failing` becomes a DynamoDB getItem with those
        Parameters (keeping its Retry and Catch), which fails when the table does not exist."""
        definition = build_state_machine(version, HANDLERS)
        assert validate_state_machine(definition) == []
        for name, parameters in (failing or {}).items():
            definition["States"][name] |= {
                "Resource": "arn:aws:states:::dynamodb:getItem",
                "Parameters": parameters,
            }
        machine = self.sfn.create_state_machine(
            name="wfx-demo-mesh-v1",
            definition=json.dumps(runnable_on_moto(definition, self.queue_url)),
            roleArn=ROLE,
        )
        # no outputPrefix: each step's is composed from $$.Execution.Name (seed 000)
        execution_input = {
            "workflowExecutionId": EXECUTION_ID,
            "pipelineExecutionIds": STEP_IDS[: len(version.steps)],
        }
        started = self.sfn.start_execution(
            stateMachineArn=machine["stateMachineArn"],
            name=EXECUTION_ID,
            input=json.dumps(execution_input),
        )
        return str(started["executionArn"])

    def callback(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next callback Payload the state machine sent, with its task token."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            messages = self.sqs.receive_message(QueueUrl=self.queue_url).get("Messages", [])
            if messages:
                (message,) = messages
                self.sqs.delete_message(
                    QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"]
                )
                return dict(json.loads(message["Body"]))
            time.sleep(0.05)
        raise AssertionError("no callback task was sent")

    def finished(self, execution_arn: str, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            described = self.sfn.describe_execution(executionArn=execution_arn)
            if described["status"] != "RUNNING":
                return dict(described)
            time.sleep(0.05)
        raise AssertionError("the execution is still RUNNING")

    def entered_states(self, execution_arn: str) -> list[str]:
        events = self.sfn.get_execution_history(executionArn=execution_arn)["events"]
        return [
            event["stateEnteredEventDetails"]["name"]
            for event in events
            if "stateEnteredEventDetails" in event
        ]


@pytest.fixture
def moto(monkeypatch: pytest.MonkeyPatch) -> Iterator[Moto]:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        sqs = boto3.client("sqs", region_name=AWS_REGION)
        queue_url = sqs.create_queue(QueueName="wfx-callbacks")["QueueUrl"]
        yield Moto(boto3.client("stepfunctions", region_name=AWS_REGION), sqs, queue_url)


def test_a_three_step_run_with_a_callback_succeeds_once_the_callback_is_answered(
    moto: Moto,
) -> None:
    version = _version(_lambda("split"), _lambda("review", callback=True), _batch("render"))
    execution_arn = moto.start(version)

    callback = moto.callback()
    token = callback.pop("taskToken")
    assert callback == {
        "workflowExecutionId": EXECUTION_ID,
        "pipelineExecutionId": STEP_IDS[1],
        "outputPrefix": OUTPUT_PREFIX,
    }
    assert moto.sfn.describe_execution(executionArn=execution_arn)["status"] == "RUNNING"
    moto.sfn.send_task_success(taskToken=token, output=json.dumps({"ok": True}))

    finished = moto.finished(execution_arn)
    assert finished["status"] == "SUCCEEDED"
    trace = json.loads(finished["output"])["trace"]
    assert trace["Start_split"] == {
        "action": "start",
        "workflowExecutionId": EXECUTION_ID,
        "pipelineExecutionId": STEP_IDS[0],
    }
    assert trace["Finish_render"] == {
        "action": "finish",
        "workflowExecutionId": EXECUTION_ID,
        "pipelineExecutionId": STEP_IDS[2],
        "status": "SUCCEEDED",
    }
    assert trace["Run_render"]["JobName"] == STEP_IDS[2]
    assert trace["Run_render"]["ContainerOverrides"]["Environment"] == [
        {"Name": "WFX_EXECUTION_ID", "Value": EXECUTION_ID},
        {"Name": "WFX_PIPELINE_EXECUTION_ID", "Value": STEP_IDS[2]},
        {"Name": "WFX_OUTPUT_PREFIX", "Value": OUTPUT_PREFIX},
    ]
    assert trace["Complete"] == {"workflowExecutionId": EXECUTION_ID, "status": "SUCCEEDED"}
    assert moto.entered_states(execution_arn) == [
        *("Start split", "Run split", "Finish split"),
        *("Start review", "Run review", "Finish review"),
        *("Start render", "Run render", "Finish render"),
        "Complete",
        "ExecutionSucceeded",
    ]


def test_a_failed_callback_goes_through_the_error_handler_and_fails_with_its_error(
    moto: Moto,
) -> None:
    execution_arn = moto.start(_version(_lambda("review", callback=True), _lambda("merge")))

    token = moto.callback()["taskToken"]
    moto.sfn.send_task_failure(taskToken=token, error="MeshError", cause="not a mesh")

    finished = moto.finished(execution_arn)
    assert finished["status"] == "FAILED"
    assert finished["error"] == "MeshError"  # the Fail state's ErrorPath: the step's own error
    entered = moto.entered_states(execution_arn)
    assert entered == ["Start review", "Run review", ERROR_STATE, "ExecutionFailed"]


def test_a_failing_step_is_tried_max_attempts_times_then_the_run_fails(moto: Moto) -> None:
    """Test-only: the step's Task is a DynamoDB getItem on a table that does not exist, so every
    attempt fails (moto cannot retry a callback task: it reuses the task token, then refuses it)."""
    retry = RetryPolicy(max_attempts=3, interval_seconds=1, backoff_rate=1.0)
    execution_arn = moto.start(
        _version(_lambda("flaky", retry=retry)),
        failing={"Run flaky": {"TableName": "no-such-table", "Key": {"id": {"S": "x"}}}},
    )

    finished = moto.finished(execution_arn, timeout=20.0)
    assert finished["status"] == "FAILED"
    assert finished["error"] == "DynamoDB.ResourceNotFoundException"
    events = moto.sfn.get_execution_history(executionArn=execution_arn)["events"]
    assert [e["type"] for e in events].count("TaskScheduled") == retry.max_attempts
    assert moto.entered_states(execution_arn)[-2:] == [ERROR_STATE, "ExecutionFailed"]


def test_a_step_that_fails_once_is_retried_and_wfx_hears_of_the_retry(moto: Moto) -> None:
    retry = RetryPolicy(max_attempts=2, interval_seconds=1, backoff_rate=1.0)
    execution_arn = moto.start(_version(_lambda("review", callback=True, retry=retry)))

    moto.sfn.send_task_failure(taskToken=moto.callback()["taskToken"], error="MeshError")
    # the loop enters the step's Task again: a new task, with a new token
    moto.sfn.send_task_success(taskToken=moto.callback()["taskToken"], output="{}")

    finished = moto.finished(execution_arn)
    assert finished["status"] == "SUCCEEDED"
    entered = moto.entered_states(execution_arn)
    assert entered == [
        *("Start review", "Attempt 1 review", "Run review", "Retry? review"),
        *("Report retry review", "Next attempt review", "Wait review", "Run review"),
        *("Finish review", "Complete", "ExecutionSucceeded"),
    ]
    tracking = [name for name in entered if name.split()[0] in ("Start", "Report", "Finish")]
    assert tracking == ["Start review", "Report retry review", "Finish review"]
    output = json.loads(finished["output"])
    report = output["trace"]["Report_retry_review"]
    assert report["action"] == "retry"
    assert report["pipelineExecutionId"] == STEP_IDS[0]
    assert report["error"]["Error"] == "MeshError"
    assert output["attempts"]["s0"]["attempt"] == 2
