"""The tracking function's approval-gate actions, given the events an approval step's Tasks send
(application/state_machines.py): `gate` when the task starts waiting on its token, `gate-closed`
when the wait ended other than approved. The handler module is imported afresh (a cold start)
with a SQLite store; the answers to task tokens are recorded by a stand-in for Step Functions'
SendTaskSuccess / SendTaskFailure (the adapter's own calls are tested against botocore's Stubber
in test_stepfunctions_orchestrator.py).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from dependency_injector import providers

from application.use_cases.approvals import DecideApprovalCommand
from conftest import FAKE_AWS_ENVIRONMENT
from domain.approvals import ApprovalGate, ApprovalRequest, ApprovalStatus, Decision
from domain.authorization import Subject
from domain.errors import InvalidInputError
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import ExecutionType, StepDefinition, WorkflowVersion
from entrypoints.container import create_all_tables
from tests.contract.builders import a_launch, publish, step_id, write_launch

EXECUTION_ID = "exec-1"
FIRST, GATE = step_id(EXECUTION_ID, 0), step_id(EXECUTION_ID, 1)
TOKEN = "AQCEAAAAKgAAAAMAAAAAAAAAAaG9rZW4tb25l" * 8  # the shape of a real one: long, opaque


class RecordedAnswers:
    """Stands in for SendTaskSuccess / SendTaskFailure: each gate answered, with its token."""

    def __init__(self) -> None:
        self.answered: list[ApprovalRequest] = []

    def answer(self, approval: ApprovalRequest) -> None:
        self.answered.append(approval)


def _gated_version() -> WorkflowVersion:
    return WorkflowVersion(
        database_id="db1",
        workflow_id="wf1",
        version=1,
        steps=(
            StepDefinition(
                pipeline_id="pipe0",
                pipeline_database_id="db1",
                execution_type=ExecutionType.LAMBDA,
                function_name="prepare",
            ),
            StepDefinition(
                pipeline_id="pipe1",
                pipeline_database_id="db1",
                execution_type=ExecutionType.APPROVAL,
                approval=ApprovalGate(approvers=("carol",), timeout_seconds=3600),
            ),
        ),
        published_at=datetime(2026, 11, 29, tzinfo=UTC),
        digest="sha256:gated",
    )


@pytest.fixture
def answers() -> RecordedAnswers:
    return RecordedAnswers()


@pytest.fixture
def handlers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers: RecordedAnswers
) -> Iterator[ModuleType]:
    for name in ("WFX_STORE", "WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WFX_HOME", str(tmp_path / "home"))
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    module = importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))
    container = module.container
    create_all_tables(container)
    container.task_callbacks.override(providers.Object(answers))
    publish(container.workflow_definitions(), _gated_version())
    launch = a_launch(EXECUTION_ID, steps=2)
    on_step_functions = launch.execution.model_copy(update={"orchestrator": "stepfunctions"})
    write_launch(
        container.execution_store(), launch.model_copy(update={"execution": on_step_functions})
    )
    yield module
    container.task_callbacks.reset_override()
    container.sqlite_database().close()


def _track(handlers: ModuleType, action: str, step: str = GATE, **extra: Any) -> dict[str, Any]:
    event = {"action": action, "workflowExecutionId": EXECUTION_ID, "pipelineExecutionId": step}
    result: dict[str, Any] = handlers.track_step(event | extra, None)
    return result


def _at_the_gate(handlers: ModuleType, token: str = TOKEN) -> dict[str, Any]:
    _track(handlers, "start")
    return _track(handlers, "gate", taskToken=token)


def _decide(handlers: ModuleType, approval_id: str, decision: Decision, reason: str = "") -> None:
    handlers.container.decide_approval().execute(
        DecideApprovalCommand(
            approval_id=approval_id,
            decision=decision,
            reason=reason,
            subject=Subject(user_id="carol"),
        )
    )


def _request(handlers: ModuleType) -> ApprovalRequest:
    (request,) = handlers.container.approvals().list_for_execution(EXECUTION_ID)
    assert isinstance(request, ApprovalRequest)
    return request


def test_a_gate_event_opens_the_attempts_request_holding_the_token_it_never_shows(
    handlers: ModuleType, answers: RecordedAnswers
) -> None:
    result = _at_the_gate(handlers)

    request = _request(handlers)
    assert result == {
        "workflowExecutionId": EXECUTION_ID,
        "pipelineExecutionId": GATE,
        "approvalId": request.approval_id,
        "status": "PENDING",
    }
    assert TOKEN not in json.dumps(result)
    assert (request.attempt, request.approvers, request.task_token) == (1, ("carol",), TOKEN)
    assert (request.expires_at - request.requested_at).total_seconds() == 3600
    pending = handlers.container.approvals().list_requests(True, 10).items
    assert [r.approval_id for r in pending] == [request.approval_id]
    assert answers.answered == []  # it waits: nothing is answered until a decision


def test_a_retried_gate_event_finds_the_same_request_and_gives_it_the_new_token(
    handlers: ModuleType,
) -> None:
    first = _at_the_gate(handlers, "token-of-the-first-try")

    again = _track(handlers, "gate", taskToken=TOKEN)

    assert again == first
    request = _request(handlers)
    assert request.task_token == TOKEN
    events = handlers.container.execution_events().events_after(EXECUTION_ID, 0, 100).items
    assert [e.event_type.value for e in events].count("ApprovalRequested") == 1


def test_a_decision_answers_the_token_the_task_waits_on(
    handlers: ModuleType, answers: RecordedAnswers
) -> None:
    approval_id = _at_the_gate(handlers)["approvalId"]

    _decide(handlers, approval_id, Decision.APPROVE)

    (answered,) = answers.answered
    assert (answered.status, answered.task_token) == (ApprovalStatus.APPROVED, TOKEN)


def test_a_retried_gate_event_after_the_decision_is_answered_at_once_on_its_own_token(
    handlers: ModuleType, answers: RecordedAnswers
) -> None:
    """The decision answered the first try's token, which is gone: the retry's task would
    otherwise wait until the gate's timeout."""
    approval_id = _at_the_gate(handlers, "token-of-the-first-try")["approvalId"]
    _decide(handlers, approval_id, Decision.APPROVE)

    result = _track(handlers, "gate", taskToken=TOKEN)

    assert result["status"] == "APPROVED"
    assert [(a.status, a.task_token) for a in answers.answered] == [
        (ApprovalStatus.APPROVED, "token-of-the-first-try"),
        (ApprovalStatus.APPROVED, TOKEN),
    ]


def test_a_gates_timeout_closes_its_request_and_ends_the_step_then_the_run_timed_out(
    handlers: ModuleType,
) -> None:
    _at_the_gate(handlers)

    ended = _track(
        handlers,
        "gate-closed",
        status="TIMED_OUT",
        error={"Error": "States.Timeout", "Cause": None},
    )
    completed = handlers.complete_execution(
        {"workflowExecutionId": EXECUTION_ID, "status": "TIMED_OUT"}, None
    )

    assert ended["status"] == "TIMED_OUT"
    request = _request(handlers)
    assert request.status is ApprovalStatus.TIMED_OUT
    assert handlers.container.approvals().list_requests(True, 10).items == ()
    store = handlers.container.execution_store()
    step = store.get_step(GATE)
    assert step.status is StepStatus.TIMED_OUT
    assert step.error == request.step_error()
    assert step.error is not None and step.error.startswith("wfx.ApprovalTimedOut: no decision by")
    assert [(a.attempt, a.status) for a in store.list_attempts([GATE])] == [
        (1, StepStatus.TIMED_OUT)
    ]
    assert completed["status"] == "TIMED_OUT"
    execution = store.get_execution(EXECUTION_ID)
    assert (execution.status, execution.execution_error) == (ExecutionStatus.TIMED_OUT, step.error)


def test_a_rejected_gate_ends_the_step_failed_with_the_reason_whatever_cause_arrived(
    handlers: ModuleType, answers: RecordedAnswers
) -> None:
    """moto delivers SendTaskFailure's error with no cause: the reason comes from the request."""
    approval_id = _at_the_gate(handlers)["approvalId"]
    _decide(handlers, approval_id, Decision.REJECT, "the mesh is the wrong one")

    _track(
        handlers,
        "gate-closed",
        status="FAILED",
        error={"Error": "wfx.ApprovalRejected", "Cause": None},
    )
    handlers.complete_execution({"workflowExecutionId": EXECUTION_ID, "status": "FAILED"}, None)

    expected = "wfx.ApprovalRejected: rejected by carol: the mesh is the wrong one"
    store = handlers.container.execution_store()
    assert (store.get_step(GATE).status, store.get_step(GATE).error) == (
        StepStatus.FAILED,
        expected,
    )
    execution = store.get_execution(EXECUTION_ID)
    assert (execution.status, execution.execution_error) == (ExecutionStatus.FAILED, expected)
    assert [a.status for a in answers.answered] == [ApprovalStatus.REJECTED]


def test_a_gate_closed_event_delivered_twice_changes_nothing_the_second_time(
    handlers: ModuleType,
) -> None:
    _at_the_gate(handlers)
    caught = {"Error": "States.Timeout", "Cause": None}
    _track(handlers, "gate-closed", status="TIMED_OUT", error=caught)
    ended = handlers.container.execution_store().get_step(GATE)

    _track(handlers, "gate-closed", status="TIMED_OUT", error=caught)

    assert handlers.container.execution_store().get_step(GATE) == ended


@pytest.mark.parametrize(
    "event",
    [
        {"action": "gate", "status": "FAILED"},  # refused by the event model
        {"action": "start"},  # only a gate event carries a token
        {"action": "gate", "pipelineExecutionId": FIRST},  # not an approval step
    ],
    ids=["a gate event with a status", "a start event", "a gate on a lambda step"],
)
def test_a_refused_event_never_quotes_the_token(
    handlers: ModuleType, event: dict[str, Any]
) -> None:
    _track(handlers, "start")
    _track(handlers, "start", FIRST)
    full = {"workflowExecutionId": EXECUTION_ID, "pipelineExecutionId": GATE, "taskToken": TOKEN}

    with pytest.raises((ValueError, InvalidInputError)) as refused:
        handlers.track_step(full | event, None)

    assert TOKEN not in str(refused.value) and TOKEN not in repr(refused.value)
    assert handlers.container.approvals().list_for_execution(EXECUTION_ID) == []


def test_a_token_too_long_for_step_functions_is_refused_without_being_quoted(
    handlers: ModuleType,
) -> None:
    _track(handlers, "start")
    too_long = "secret" * 400

    with pytest.raises(ValueError, match="taskToken") as refused:
        _track(handlers, "gate", taskToken=too_long)

    assert "secret" not in str(refused.value)


def test_a_gate_event_without_a_token_is_refused(handlers: ModuleType) -> None:
    _track(handlers, "start")

    with pytest.raises(ValueError, match="taskToken"):
        _track(handlers, "gate")


def test_a_gate_closed_event_ends_the_step_only_failed_or_timed_out(handlers: ModuleType) -> None:
    _at_the_gate(handlers)

    with pytest.raises(ValueError, match="FAILED or TIMED_OUT"):
        _track(handlers, "gate-closed", status="SUCCEEDED")
