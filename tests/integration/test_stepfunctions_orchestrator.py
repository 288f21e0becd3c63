"""The Step Functions adapters against moto (in-process) for what moto does, and against botocore's
Stubber, with AWS's own request and response shapes, for what moto 5.2.5 lacks."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from adapters.aws.stepfunctions import (
    StepFunctionsDeployer,
    StepFunctionsOrchestrator,
    StepFunctionsTaskCallbacks,
    TaskAnswerError,
)
from application.ports.orchestration import StateMachineTakenError
from domain.approvals import ApprovalGate, ApprovalRequest, Decision
from domain.errors import ConflictError, ExecutionAlreadyExistsError, InvalidInputError
from domain.execution import PipelineExecution, WorkflowExecution
from domain.statuses import ExecutionStatus
from domain.workflow import WorkflowVersion
from entrypoints.container import build_container
from entrypoints.settings import Settings
from tests.contract.builders import a_step, a_version, an_execution
from tests.integration.moto_server import moto_server

REGION = "us-east-1"
ACCOUNT = "123456789012"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/wfx-state-machine"
LOG_GROUP_ARN = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/wfx/state-machines:*"
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
}
STUB_ARN = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:wfx-db1-wf1-v1:{'e' * 8}"


def _definition(comment: str, end: str = "Done") -> dict[str, Any]:
    return {"Comment": comment, "StartAt": end, "States": {end: {"Type": "Succeed"}}}


def _logging() -> dict[str, Any]:
    return {
        "level": "ALL",
        "includeExecutionData": True,
        "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": LOG_GROUP_ARN}}],
    }


@pytest.fixture
def aws_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAKE_AWS.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_SFN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def sfn(aws_environment: None) -> Iterator[Any]:
    """A stepfunctions client on a fresh, empty moto account."""
    with mock_aws():
        yield boto3.client("stepfunctions", region_name=REGION)


@pytest.fixture
def stubbed(aws_environment: None) -> Iterator[tuple[Any, Stubber]]:
    """A real client whose calls botocore's Stubber answers; every queued answer must be used."""
    client = boto3.client("stepfunctions", region_name=REGION)
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


def _run(steps: int = 3) -> tuple[WorkflowExecution, list[PipelineExecution]]:
    execution_id = str(uuid.uuid4())
    chain = [a_step(execution_id, i, last=i == steps - 1) for i in range(steps)]
    return an_execution(execution_id), chain


def _deployed(sfn: Any) -> WorkflowVersion:
    arn = StepFunctionsDeployer(sfn).deploy(
        "wfx-db1-wf1-v1", _definition("v1"), ROLE_ARN, LOG_GROUP_ARN
    )
    return a_version(1).model_copy(update={"state_machine_arn": arn})


def _started(sfn: Any) -> tuple[WorkflowExecution, WorkflowVersion, list[PipelineExecution]]:
    version = _deployed(sfn)
    execution, steps = _run()
    arn = StepFunctionsOrchestrator(sfn).start_execution(execution, version, steps)
    return execution.model_copy(update={"execution_arn": arn}), version, steps


# --- deploy ------------------------------------------------------------------------------------


def test_deploy_creates_a_standard_state_machine_with_its_definition_and_logging(
    sfn: Any,
) -> None:
    arn = StepFunctionsDeployer(sfn).deploy(
        "wfx-db1-wf1-v1", _definition("v1"), ROLE_ARN, LOG_GROUP_ARN
    )

    described = sfn.describe_state_machine(stateMachineArn=arn)
    assert arn.endswith(":stateMachine:wfx-db1-wf1-v1")
    assert json.loads(described["definition"]) == _definition("v1")
    assert (described["type"], described["roleArn"]) == ("STANDARD", ROLE_ARN)
    assert described["loggingConfiguration"] == _logging()


def test_deploying_an_existing_name_again_updates_that_machine(sfn: Any) -> None:
    deployer = StepFunctionsDeployer(sfn)
    first = deployer.deploy("wfx-db1-wf1-v1", _definition("v1"), ROLE_ARN, LOG_GROUP_ARN)

    again = _definition("v1", end="Finished")
    second = deployer.deploy("wfx-db1-wf1-v1", again, ROLE_ARN, LOG_GROUP_ARN)

    described = sfn.describe_state_machine(stateMachineArn=second)
    assert second == first
    assert json.loads(described["definition"]) == again
    assert described["loggingConfiguration"] == _logging()
    assert len(sfn.list_state_machines()["stateMachines"]) == 1


def test_a_machine_of_that_name_running_another_definition_is_left_as_it_is(sfn: Any) -> None:
    """Its Comment names another workflow or version: two keys may spell one name."""
    deployer = StepFunctionsDeployer(sfn)
    first = deployer.deploy(
        "wfx-db1-wf1-v1", _definition("wfx db1/wf1 ..."), ROLE_ARN, LOG_GROUP_ARN
    )

    with pytest.raises(StateMachineTakenError, match="wfx-db1-wf1-v1 runs another definition"):
        deployer.deploy("wfx-db1-wf1-v1", _definition("wfx db1-wf1 ..."), ROLE_ARN, LOG_GROUP_ARN)

    described = sfn.describe_state_machine(stateMachineArn=first)
    assert json.loads(described["definition"]) == _definition("wfx db1/wf1 ...")


def test_a_create_refused_as_already_existing_updates_the_machine_of_that_name(
    stubbed: tuple[Any, Stubber],
) -> None:
    """Stubber: moto returns the existing machine from CreateStateMachine instead of raising
    StateMachineAlreadyExists as AWS does when the definition differs."""
    client, stubber = stubbed
    arn = f"arn:aws:states:{REGION}:{ACCOUNT}:stateMachine:wfx-db1-wf1-v1"
    settings = {
        "definition": json.dumps(_definition("v2")),
        "roleArn": ROLE_ARN,
        "loggingConfiguration": _logging(),
    }
    stubber.add_client_error(
        "create_state_machine",
        service_error_code="StateMachineAlreadyExists",
        service_message=f"State Machine Already Exists: '{arn}'",
        expected_params={"name": "wfx-db1-wf1-v1", "type": "STANDARD", **settings},
    )
    created = datetime(2026, 11, 1, tzinfo=UTC)
    listed = [
        {"stateMachineArn": arn.replace("v1", "v0"), "name": "wfx-db1-wf1-v0"},
        {"stateMachineArn": arn, "name": "wfx-db1-wf1-v1"},
    ]
    stubber.add_response(
        "list_state_machines",
        {"stateMachines": [m | {"type": "STANDARD", "creationDate": created} for m in listed]},
        {},
    )
    stubber.add_response(
        "describe_state_machine",
        {
            "stateMachineArn": arn,
            "name": "wfx-db1-wf1-v1",
            "definition": json.dumps(_definition("v2", end="Earlier")),
            "roleArn": ROLE_ARN,
            "type": "STANDARD",
            "creationDate": created,
        },
        {"stateMachineArn": arn},
    )
    stubber.add_response(
        "update_state_machine",
        {"updateDate": created},
        {"stateMachineArn": arn, **settings},
    )

    deployed = StepFunctionsDeployer(client).deploy(
        "wfx-db1-wf1-v1", _definition("v2"), ROLE_ARN, LOG_GROUP_ARN
    )

    assert deployed == arn


# --- start -------------------------------------------------------------------------------------


def test_start_names_the_execution_after_the_workflow_execution_id(sfn: Any) -> None:
    version = _deployed(sfn)
    execution, steps = _run()
    shuffled = [steps[2], steps[0], steps[1]]  # the input lists them in chain order all the same

    arn = StepFunctionsOrchestrator(sfn).start_execution(execution, version, shuffled)

    execution_id = execution.workflow_execution_id
    assert arn is not None and arn.endswith(f":execution:wfx-db1-wf1-v1:{execution_id}")
    described = sfn.describe_execution(executionArn=arn)
    assert described["name"] == execution_id
    assert json.loads(described["input"]) == {
        "workflowExecutionId": execution_id,
        "workflowDatabaseId": "db1",
        "workflowId": "wf1",
        "workflowVersion": 1,
        # no output prefix: the state machine composes it from the name (seed 000)
        "pipelineExecutionIds": [step.pipeline_execution_id for step in steps],
    }


def test_a_version_never_deployed_is_refused_naming_the_deploy_command(sfn: Any) -> None:
    execution, steps = _run()

    with pytest.raises(InvalidInputError, match=r"not deployed.*wfx workflows deploy db1/wf1"):
        StepFunctionsOrchestrator(sfn).start_execution(execution, a_version(1), steps)

    assert sfn.list_state_machines()["stateMachines"] == []


def test_starting_a_run_that_already_ended_again_returns_its_execution(sfn: Any) -> None:
    execution, version, steps = _started(sfn)
    orchestrator = StepFunctionsOrchestrator(sfn)
    orchestrator.stop_execution(execution, "wfx.Test", "ended")  # a closed name: a second
    # start with it is ExecutionAlreadyExists on AWS and on moto alike

    again = orchestrator.start_execution(execution, version, steps)

    assert again == execution.execution_arn
    assert len(sfn.list_executions(stateMachineArn=version.state_machine_arn)["executions"]) == 1


def test_starting_the_same_name_with_another_input_is_refused(sfn: Any) -> None:
    execution, version, steps = _started(sfn)

    with pytest.raises(ExecutionAlreadyExistsError, match="different input"):
        StepFunctionsOrchestrator(sfn).start_execution(execution, version, steps[:2])


# --- describe, stop ----------------------------------------------------------------------------


def test_a_started_run_is_described_as_running(sfn: Any) -> None:
    execution, _, _ = _started(sfn)

    described = StepFunctionsOrchestrator(sfn).describe_execution(execution)

    assert described is not None
    assert described.status is ExecutionStatus.RUNNING
    assert described.start_date is not None and described.stop_date is None
    assert (described.redrive_count, described.redrive_status) == (0, None)


def test_a_run_unknown_to_step_functions_is_described_as_none(sfn: Any) -> None:
    execution, _, _ = _started(sfn)
    assert execution.execution_arn is not None
    unknown = execution.model_copy(
        update={"execution_arn": execution.execution_arn.rsplit(":", 1)[0] + ":never-started"}
    )
    orchestrator = StepFunctionsOrchestrator(sfn)

    assert orchestrator.describe_execution(unknown) is None
    assert orchestrator.describe_execution(an_execution("no-arn-recorded")) is None
    assert orchestrator.describe_execution(execution) is not None


def test_stop_aborts_the_run_with_a_stop_date(sfn: Any) -> None:
    """moto drops the error and cause of StopExecution (notes/moto.md row 10), so only the
    status and stop date are checked here; the request shape is checked with the Stubber below."""
    execution, _, _ = _started(sfn)
    orchestrator = StepFunctionsOrchestrator(sfn)

    orchestrator.stop_execution(execution, "wfx.Aborted", "aborted by alice")
    orchestrator.stop_execution(execution, "wfx.Aborted", "again")  # already stopped: fine

    described = orchestrator.describe_execution(execution)
    assert described is not None
    assert described.status is ExecutionStatus.ABORTED
    assert described.stop_date is not None


def test_stop_sends_the_error_and_cause_within_aws_limits(stubbed: tuple[Any, Stubber]) -> None:
    """Stubber: moto never reads StopExecution's error and cause; AWS refuses an error over 256
    characters or a cause over 32,768 with a ValidationException."""
    client, stubber = stubbed
    stubber.add_response(
        "stop_execution",
        {"stopDate": datetime(2026, 11, 29, tzinfo=UTC)},
        {"executionArn": STUB_ARN, "error": "E" * 256, "cause": "c" * 32768},
    )
    execution = an_execution("e" * 8).model_copy(update={"execution_arn": STUB_ARN})

    StepFunctionsOrchestrator(client).stop_execution(execution, "E" * 300, "c" * 40000)


def test_stopping_a_run_whose_start_failed_before_an_arn_calls_nothing(
    stubbed: tuple[Any, Stubber],
) -> None:
    """Stubber with nothing queued: any call at all would fail the test."""
    client, _ = stubbed
    never_started = an_execution("no-arn").model_copy(update={"orchestrator": "stepfunctions"})

    StepFunctionsOrchestrator(client).stop_execution(never_started, "wfx.Aborted", "x")


def test_a_local_run_is_not_stopped_on_step_functions(stubbed: tuple[Any, Stubber]) -> None:
    """Stubber with nothing queued: the refusal calls nothing."""
    client, _ = stubbed

    with pytest.raises(ConflictError, match=r"runs on the local runner.*WFX_RUNNER=local"):
        StepFunctionsOrchestrator(client).stop_execution(an_execution("local"), "wfx.Aborted", "x")


# --- history -----------------------------------------------------------------------------------


def test_a_history_page_holds_the_events_in_order(sfn: Any) -> None:
    """moto serves a fixed, made-up history (notes/moto.md row 11): only its parsing is checked."""
    execution, _, _ = _started(sfn)

    page = StepFunctionsOrchestrator(sfn).history_page(execution)

    assert page.events[0]["type"] == "ExecutionStarted"
    assert [event["id"] for event in page.events] == list(range(1, len(page.events) + 1))
    assert all(isinstance(event["timestamp"], datetime) for event in page.events)
    assert page.next_token is None


def _event(event_id: int, kind: str) -> dict[str, Any]:
    at = datetime(2026, 11, 29, 9, 0, event_id, tzinfo=UTC)
    return {"id": event_id, "previousEventId": event_id - 1, "type": kind, "timestamp": at}


def test_history_pages_follow_the_next_token(stubbed: tuple[Any, Stubber]) -> None:
    """Stubber: moto ignores maxResults and nextToken and never returns a token."""
    client, stubber = stubbed
    request = {"executionArn": STUB_ARN, "maxResults": 2, "reverseOrder": False}
    first = [_event(1, "ExecutionStarted"), _event(2, "TaskStateEntered")]
    stubber.add_response("get_execution_history", {"events": first, "nextToken": "t-2"}, request)
    last = [_event(3, "ExecutionSucceeded")]
    stubber.add_response("get_execution_history", {"events": last}, request | {"nextToken": "t-2"})
    execution = an_execution("e" * 8).model_copy(update={"execution_arn": STUB_ARN})
    orchestrator = StepFunctionsOrchestrator(client)

    pages = [orchestrator.history_page(execution, max_results=2)]
    while pages[-1].next_token:
        pages.append(orchestrator.history_page(execution, pages[-1].next_token, max_results=2))

    assert [page.next_token for page in pages] == ["t-2", None]
    assert [event["type"] for page in pages for event in page.events] == [
        "ExecutionStarted",
        "TaskStateEntered",
        "ExecutionSucceeded",
    ]


# --- redrive -----------------------------------------------------------------------------------


def test_redrive_sends_the_client_token_and_returns_the_redrive_date(
    stubbed: tuple[Any, Stubber],
) -> None:
    """Stubber: moto 5.2.5 has no RedriveExecution (NotImplementedError in-process)."""
    client, stubber = stubbed
    redriven = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    stubber.add_response(
        "redrive_execution",
        {"redriveDate": redriven},
        {"executionArn": STUB_ARN, "clientToken": "redrive-1"},
    )
    execution = an_execution("e" * 8).model_copy(update={"execution_arn": STUB_ARN})

    assert StepFunctionsOrchestrator(client).redrive_execution(execution, "redrive-1") == redriven


def test_a_run_step_functions_will_not_redrive_is_a_conflict_with_its_reason(
    stubbed: tuple[Any, Stubber],
) -> None:
    """Stubber: moto 5.2.5 has no RedriveExecution, so it cannot refuse one either."""
    client, stubber = stubbed
    reason = "Execution is SUCCEEDED and cannot be redriven."
    stubber.add_client_error(
        "redrive_execution",
        service_error_code="ExecutionNotRedrivable",
        service_message=reason,
        http_status_code=400,
        expected_params={"executionArn": STUB_ARN, "clientToken": "redrive-1"},
    )
    execution = an_execution("e" * 8).model_copy(update={"execution_arn": STUB_ARN})

    with pytest.raises(ConflictError) as refused:
        StepFunctionsOrchestrator(client).redrive_execution(execution, "redrive-1")

    assert str(refused.value) == reason


def test_describe_carries_the_error_cause_and_redrive_fields(
    stubbed: tuple[Any, Stubber],
) -> None:
    """Stubber: moto's DescribeExecution never returns error, cause or any redrive field."""
    client, stubber = stubbed
    started = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
    stopped = datetime(2026, 11, 28, 9, 5, tzinfo=UTC)
    redriven = datetime(2026, 11, 28, 9, 1, tzinfo=UTC)
    stubber.add_response(
        "describe_execution",
        {
            "executionArn": STUB_ARN,
            "stateMachineArn": STUB_ARN.replace(":execution:", ":stateMachine:").rsplit(":", 1)[0],
            "status": "FAILED",
            "startDate": started,
            "stopDate": stopped,
            "error": "States.TaskFailed",
            "cause": "convert: exit code 3",
            "redriveCount": 2,
            "redriveDate": redriven,
            "redriveStatus": "NOT_REDRIVABLE",
            "redriveStatusReason": "Execution has been redriven the maximum number of times.",
        },
        {"executionArn": STUB_ARN},
    )
    execution = an_execution("e" * 8).model_copy(update={"execution_arn": STUB_ARN})

    described = StepFunctionsOrchestrator(client).describe_execution(execution)

    assert described is not None
    assert (described.status, described.start_date, described.stop_date) == (
        ExecutionStatus.FAILED,
        started,
        stopped,
    )
    assert (described.error, described.cause) == ("States.TaskFailed", "convert: exit code 3")
    assert (described.redrive_count, described.redrive_date) == (2, redriven)
    assert described.redrive_status == "NOT_REDRIVABLE"
    assert described.redrive_status_reason == (
        "Execution has been redriven the maximum number of times."
    )


# --- endpoint from the environment -------------------------------------------------------------


@pytest.fixture
def moto_server_endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.mark.integration
@pytest.mark.xdist_group("moto-server-sfn")
@pytest.mark.parametrize("variable", ["AWS_ENDPOINT_URL_SFN", "AWS_ENDPOINT_URL"])
def test_boto3s_endpoint_variables_route_the_adapters_with_no_code_change(
    variable: str,
    aws_environment: None,
    moto_server_endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """boto3 names the service-specific variable after the service id, `SFN`: there is no
    AWS_ENDPOINT_URL_STEPFUNCTIONS."""
    monkeypatch.setenv(variable, moto_server_endpoint)
    settings = Settings.from_environment({"WFX_HOME": str(tmp_path), "WFX_RUNNER": "stepfunctions"})
    container = build_container(settings)
    orchestrator = container.orchestrator().default
    arn = container.state_machine_deployer().deploy(
        f"wfx-env-{uuid.uuid4().hex[:8]}", _definition("env"), ROLE_ARN, LOG_GROUP_ARN
    )
    execution, steps = _run()

    started = orchestrator.start_execution(
        execution, a_version(1).model_copy(update={"state_machine_arn": arn}), steps
    )

    assert isinstance(orchestrator, StepFunctionsOrchestrator)
    on_the_server = boto3.client(
        "stepfunctions", region_name=REGION, endpoint_url=moto_server_endpoint
    )
    described = on_the_server.describe_execution(executionArn=started)
    assert described["name"] == execution.workflow_execution_id


# --- describe state machine --------------------------------------------------------------------


def test_the_orchestrator_describes_a_deployed_state_machine(sfn: Any) -> None:
    version = _deployed(sfn)
    assert version.state_machine_arn is not None

    described = StepFunctionsOrchestrator(sfn).describe_state_machine(version.state_machine_arn)

    assert described is not None
    assert described.arn == version.state_machine_arn
    assert described.definition == _definition("v1")
    assert described.logging_configuration == _logging()


def test_an_unknown_state_machine_is_described_as_none(sfn: Any) -> None:
    missing = f"arn:aws:states:{REGION}:123456789012:stateMachine:nothing-here"
    assert StepFunctionsOrchestrator(sfn).describe_state_machine(missing) is None


# --- approval gates: the waiting task's answer -------------------------------------------------

TASK_TOKEN = "AQCEAAAAKgAAAAMAAAAAAAAAAc2VjcmV0LXRhc2stdG9rZW4" * 4
GATE = ApprovalGate(approvers=("carol",), timeout_seconds=3600)


def _gate_request(token: str | None = TASK_TOKEN) -> ApprovalRequest:
    return ApprovalRequest.open(
        "ap-1",
        GATE,
        workflow_execution_id="e" * 8,
        pipeline_execution_id="s1",
        attempt=1,
        pipeline_id="sign-off",
        workflow_database_id="db1",
        workflow_id="wf1",
        at=datetime(2026, 11, 29, 10, 0, tzinfo=UTC),
        task_token=token,
    )


def _decided(decision: Decision, reason: str = "") -> ApprovalRequest:
    return _gate_request().decide(
        decision, "carol", (), reason, datetime(2026, 11, 29, 10, 5, tzinfo=UTC)
    )


def _on_step_functions() -> WorkflowExecution:
    return an_execution("e" * 8).model_copy(
        update={"orchestrator": "stepfunctions", "execution_arn": STUB_ARN}
    )


def test_an_approved_gate_sends_task_success_with_the_decision(
    stubbed: tuple[Any, Stubber],
) -> None:
    """Stubber: moto's default mode answers any token with 200, so the request is checked here."""
    client, stubber = stubbed
    output = {"approvalId": "ap-1", "status": "APPROVED", "decidedBy": "carol"}
    stubber.add_response(
        "send_task_success", {}, {"taskToken": TASK_TOKEN, "output": json.dumps(output)}
    )

    StepFunctionsOrchestrator(client).resume_execution(
        _on_step_functions(), _decided(Decision.APPROVE)
    )


def test_a_rejected_gate_sends_task_failure_with_the_gates_error_and_the_reason(
    stubbed: tuple[Any, Stubber],
) -> None:
    """Stubber: moto's SendTaskFailure drops the cause (notes/moto.md row 13). Error and cause
    read together as the step's error on the local runner."""
    client, stubber = stubbed
    stubber.add_response(
        "send_task_failure",
        {},
        {
            "taskToken": TASK_TOKEN,
            "error": "wfx.ApprovalRejected",
            "cause": "rejected by carol: the mesh is the wrong one",
        },
    )

    StepFunctionsOrchestrator(client).resume_execution(
        _on_step_functions(), _decided(Decision.REJECT, "the mesh is the wrong one")
    )


def test_a_timed_out_gate_sends_task_failure_naming_the_timeout_within_aws_limits(
    stubbed: tuple[Any, Stubber],
) -> None:
    client, stubber = stubbed
    timed_out = _gate_request().timed_out(datetime(2026, 11, 29, 11, 0, tzinfo=UTC))
    stubber.add_response(
        "send_task_failure",
        {},
        {
            "taskToken": TASK_TOKEN,
            "error": "wfx.ApprovalTimedOut",
            "cause": "no decision by 2026-11-29T11:00:00Z",
        },
    )
    StepFunctionsTaskCallbacks(client).answer(timed_out)

    long_reason = _decided(Decision.REJECT, "r" * 2000).model_copy(
        update={"reason": "r" * 40000}  # past what a decision takes, to reach AWS's limit
    )
    stubber.add_response(
        "send_task_failure",
        {},
        {
            "taskToken": TASK_TOKEN,
            "error": "wfx.ApprovalRejected",
            "cause": ("rejected by carol: " + "r" * 40000)[:32768],
        },
    )
    StepFunctionsTaskCallbacks(client).answer(long_reason)


@pytest.mark.parametrize("code", ["TaskTimedOut", "InvalidToken", "TaskDoesNotExist"])
def test_a_token_step_functions_no_longer_knows_needs_no_answer(
    stubbed: tuple[Any, Stubber], code: str
) -> None:
    """Stubber: moto's default mode knows no token is gone. The task timed out (its wait is
    over: "Timed out <id>" ends the step), or its run was stopped or ended."""
    client, stubber = stubbed
    stubber.add_client_error(
        "send_task_success",
        service_error_code=code,
        service_message="Task Timed Out: 'Provided task does not exist anymore'",
        http_status_code=400,
    )

    StepFunctionsOrchestrator(client).resume_execution(
        _on_step_functions(), _decided(Decision.APPROVE)
    )


def test_any_other_refusal_is_raised_without_quoting_the_token(
    stubbed: tuple[Any, Stubber],
) -> None:
    """AWS's validation messages quote the value they refused; the token is a credential."""
    client, stubber = stubbed
    stubber.add_client_error(
        "send_task_failure",
        service_error_code="ValidationException",
        service_message=f"Value '{TASK_TOKEN}' at 'taskToken' failed to satisfy constraint",
        http_status_code=400,
    )

    with pytest.raises(TaskAnswerError) as refused:
        StepFunctionsTaskCallbacks(client).answer(_decided(Decision.REJECT, "no"))

    assert str(refused.value) == "SendTaskFailure: ValidationException"
    assert refused.value.__cause__ is None and refused.value.__suppress_context__


def test_a_gate_with_no_token_or_no_decision_sends_nothing(stubbed: tuple[Any, Stubber]) -> None:
    """Stubber with nothing queued: any call at all would fail the test."""
    client, _ = stubbed
    callbacks = StepFunctionsTaskCallbacks(client)

    callbacks.answer(_gate_request())  # pending: nothing decided yet
    callbacks.answer(_gate_request(token=None).timed_out(datetime(2026, 11, 30, tzinfo=UTC)))
