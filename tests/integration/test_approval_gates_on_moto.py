"""An approval gate on Step Functions, end to end: the generated state machine runs on moto's ASL
interpreter (parser mode), wfx's real Lambda handlers keep a SQLite store, and a decision made
through wfx (DecideApproval) answers the waiting task with the token the gate stored.

As in test_state_machine_with_handlers_on_moto.py, moto cannot invoke a Lambda function, so in a
test-only copy of the definition each `lambda:invoke[.waitForTaskToken]` Task sends its Payload
to an SQS queue (`sqs:sendMessage.waitForTaskToken`) and the test plays the Lambda service. The
gate's "Run" Task keeps its `TimeoutSeconds`, and its Payload's `taskToken` is the Task's own
token: the test hands the gate event to the tracking handler and, like Lambda for a
waitForTaskToken invocation, gives the task no answer - only the decision does, through
StepFunctionsTaskCallbacks and moto's SendTaskSuccess / SendTaskFailure. moto's SendTaskFailure
drops the cause (notes/moto.md row 13): the step's error here comes from the stored request; the
cause's request shape is checked with botocore's Stubber in test_stepfunctions_orchestrator.py.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

from application.state_machines import HandlerArns, build_state_machine
from application.use_cases.approvals import DecideApprovalCommand
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT
from domain.approvals import ApprovalGate, ApprovalStatus, Decision
from domain.authorization import Subject
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import ExecutionType, StepDefinition, WorkflowVersion
from entrypoints.container import create_all_tables
from tests.contract.builders import a_launch, publish, step_id, write_launch
from tests.integration.test_state_machine_with_handlers_on_moto import lambda_calls_through_sqs

pytestmark = pytest.mark.integration

EXECUTION_ID = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
HANDLERS = HandlerArns(tracking="wfx-track-step", completion="wfx-complete", error="wfx-error")
STEP_IDS = [step_id(EXECUTION_ID, index) for index in range(3)]
GATE_ID = STEP_IDS[1]
OnGate = Callable[[ModuleType, str], None]


def _version(timeout_seconds: int) -> WorkflowVersion:
    def lambda_step(pipeline_id: str) -> StepDefinition:
        return StepDefinition(
            pipeline_id=pipeline_id,
            pipeline_database_id="db1",
            execution_type=ExecutionType.LAMBDA,
            function_name=f"wfx-{pipeline_id}",
        )

    gate = StepDefinition(
        pipeline_id="pipe1",
        pipeline_database_id="db1",
        execution_type=ExecutionType.APPROVAL,
        approval=ApprovalGate(
            approvers=("carol",), message="ship it?", timeout_seconds=timeout_seconds
        ),
    )
    return WorkflowVersion(
        database_id="db1",
        workflow_id="wf1",
        version=1,
        steps=(lambda_step("pipe0"), gate, lambda_step("pipe2")),
        published_at=datetime(2026, 11, 29, tzinfo=UTC),
        digest="sha256:gated",
    )


@pytest.fixture
def handlers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    for name in ("WFX_STORE", "WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SFN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WFX_HOME", str(tmp_path / "home"))
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    module = importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))
    create_all_tables(module.container)
    launch = a_launch(EXECUTION_ID, steps=3)
    on_step_functions = launch.execution.model_copy(update={"orchestrator": "stepfunctions"})
    write_launch(
        module.container.execution_store(),
        launch.model_copy(update={"execution": on_step_functions}),
    )
    yield module
    module.container.sqlite_database().close()


def _decide(decision: Decision, reason: str = "") -> OnGate:
    """What carol does once the gate is open: decide it through wfx, as the HTTP API does."""

    def decide(handlers: ModuleType, approval_id: str) -> None:
        handlers.container.decide_approval().execute(
            DecideApprovalCommand(
                approval_id=approval_id,
                decision=decision,
                reason=reason,
                subject=Subject(user_id="carol"),
            )
        )

    return decide


def _nobody_decides(handlers: ModuleType, approval_id: str) -> None:
    return None


def run_gated_workflow(
    handlers: ModuleType, on_gate: OnGate, timeout_seconds: int = 300
) -> tuple[dict[str, Any], list[str]]:
    """Run the three-step gated version on moto, playing Lambda; Step Functions' own view of
    the execution when it ended, and what was invoked in order."""
    version = _version(timeout_seconds)
    publish(handlers.container.workflow_definitions(), version)
    invoked: list[str] = []
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        sqs = boto3.client("sqs", region_name=AWS_REGION)
        sfn = boto3.client("stepfunctions", region_name=AWS_REGION)
        queue_url = sqs.create_queue(QueueName="lambda-invocations")["QueueUrl"]
        definition = lambda_calls_through_sqs(build_state_machine(version, HANDLERS), queue_url)
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
                    "pipelineExecutionIds": STEP_IDS,
                }
            ),
        )["executionArn"]

        deadline = time.monotonic() + 30
        while sfn.describe_execution(executionArn=execution_arn)["status"] == "RUNNING":
            assert time.monotonic() < deadline, f"still running after {invoked}"
            for message in sqs.receive_message(QueueUrl=queue_url).get("Messages", []):
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
                invoked.append(_invoke(handlers, sfn, json.loads(message["Body"]), on_gate))
            time.sleep(0.02)
        return sfn.describe_execution(executionArn=execution_arn), invoked


def _invoke(handlers: ModuleType, sfn: Any, message: dict[str, Any], on_gate: OnGate) -> str:
    """Play the Lambda service for one invocation; what was invoked, for the test to compare."""
    function, payload = message["functionName"], message["payload"]
    token = message["invocationToken"]
    if function == HANDLERS.tracking:
        result = handlers.track_step(payload, None)
        step = f"pipe{STEP_IDS.index(payload['pipelineExecutionId'])}"
        if payload["action"] == "gate":
            # a waitForTaskToken invocation: the function's return is not the task's answer
            assert payload["taskToken"] == token
            on_gate(handlers, result["approvalId"])
            return f"gate {step}"
        sfn.send_task_success(taskToken=token, output=json.dumps({"Payload": result}))
        status = f" {payload['status']}" if payload["action"] == "gate-closed" else ""
        return f"{payload['action']} {step}{status}"
    if function == HANDLERS.completion:
        result = handlers.complete_execution(payload, None)
        sfn.send_task_success(taskToken=token, output=json.dumps({"Payload": result}))
        return f"complete {payload['status']}"
    if function == HANDLERS.error:
        result = handlers.handle_execution_error(payload, None)
        sfn.send_task_success(taskToken=token, output=json.dumps({"Payload": result}))
        return f"handle error {payload['error']['Error']}"
    sfn.send_task_success(taskToken=token, output="{}")  # the workflow's own lambda steps
    return str(function).removeprefix("wfx-")


def test_an_approved_gate_lets_the_run_go_on_to_success(handlers: ModuleType) -> None:
    described, invoked = run_gated_workflow(handlers, _decide(Decision.APPROVE, "looks right"))

    assert described["status"] == "SUCCEEDED"
    assert invoked == [
        *("start pipe0", "pipe0", "finish pipe0"),
        *("start pipe1", "gate pipe1", "finish pipe1"),
        *("start pipe2", "pipe2", "finish pipe2"),
        "complete SUCCEEDED",
    ]
    store = handlers.container.execution_store()
    assert store.get_execution(EXECUTION_ID).status is ExecutionStatus.SUCCEEDED
    assert {s.status for s in store.list_steps(EXECUTION_ID)} == {StepStatus.SUCCEEDED}
    (request,) = handlers.container.approvals().list_for_execution(EXECUTION_ID)
    assert (request.status, request.decided_by, request.reason) == (
        ApprovalStatus.APPROVED,
        "carol",
        "looks right",
    )


def test_a_rejected_gate_fails_the_step_and_the_run_with_the_reason(handlers: ModuleType) -> None:
    described, invoked = run_gated_workflow(
        handlers, _decide(Decision.REJECT, "the mesh is the wrong one")
    )

    assert described["status"] == "FAILED"
    assert described.get("error") == "wfx.ApprovalRejected"
    assert invoked[3:] == [
        "start pipe1",
        "gate pipe1",
        "gate-closed pipe1 FAILED",
        "complete FAILED",
    ]
    expected = "wfx.ApprovalRejected: rejected by carol: the mesh is the wrong one"
    store = handlers.container.execution_store()
    statuses = {s.pipeline_id: (s.status, s.error) for s in store.list_steps(EXECUTION_ID)}
    assert statuses == {
        "pipe0": (StepStatus.SUCCEEDED, None),
        "pipe1": (StepStatus.FAILED, expected),
        "pipe2": (StepStatus.NEW, None),
    }
    execution = store.get_execution(EXECUTION_ID)
    assert (execution.status, execution.execution_error) == (ExecutionStatus.FAILED, expected)


def test_a_gate_nobody_decides_times_out_the_step_the_run_and_the_request(
    handlers: ModuleType,
) -> None:
    """The gate's TimeoutSeconds (1 s here) passes in moto's interpreter: States.Timeout."""
    described, invoked = run_gated_workflow(handlers, _nobody_decides, timeout_seconds=1)

    assert described["status"] == "FAILED"  # a Fail state: Step Functions has no TIMED_OUT end
    assert described.get("error") == "wfx.ApprovalTimedOut"
    assert invoked[3:] == [
        "start pipe1",
        "gate pipe1",
        "gate-closed pipe1 TIMED_OUT",
        "complete TIMED_OUT",
    ]
    (request,) = handlers.container.approvals().list_for_execution(EXECUTION_ID)
    assert request.status is ApprovalStatus.TIMED_OUT
    assert handlers.container.approvals().list_requests(True, 10).items == ()
    store = handlers.container.execution_store()
    gate = store.get_step(GATE_ID)
    assert (gate.status, gate.error) == (StepStatus.TIMED_OUT, request.step_error())
    assert gate.error is not None and gate.error.startswith("wfx.ApprovalTimedOut: ")
    execution = store.get_execution(EXECUTION_ID)
    assert (execution.status, execution.execution_error) == (ExecutionStatus.TIMED_OUT, gate.error)
