"""The Lambda functions a deployed state machine calls (see application/state_machines.py).

Each one parses its event with pydantic, calls one use case and returns a small JSON-able dict.
A handler imports its use case when first called: one Lambda function serves one handler, and its
cold start should not pay for the others' (tests/unit/test_lambda_imports.py holds this).
The container is built once per cold start, from the environment (WFX_STORE, WFX_TABLE_PREFIX,
VAMS_RESOURCE_PARAM_PREFIX, ...), and the table names resolved with it (seed 000: at module level,
never per invocation). Errors escape on purpose: the state machine's Catch routes them to
HandleExecutionError.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from application.validation_messages import describe_validation_error
from domain.errors import InvalidInputError
from domain.redaction import redact
from domain.run import failure_message
from domain.statuses import StepStatus, TerminalExecutionStatus, TerminalStepStatus
from entrypoints.container import build_container

container = build_container()
# Resolved here, at import: a VAMS deployment's SSM read is paid once per cold start, and a name
# that cannot be found fails the cold start rather than a step's callback.
TABLE_NAMES = container.tables()
logger = logging.getLogger(__name__)


class _Event(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=False,
        defer_build=True,
    )


_Parsed = TypeVar("_Parsed", bound=_Event)

# An id is quoted in the errors that follow (not found, may not start...), and an error is the
# task's cause, logged and stored: bounded as the HTTP routes bound the same ids.
_Id = Annotated[str, Field(min_length=1, max_length=256)]


def _parsed(model: type[_Parsed], event: object, handler: str) -> _Parsed:
    """The event as its model, or an error naming each field and its rule. Pydantic's own
    message quotes the input it refused, a whole event for a rule over several fields: that
    message is the task's cause, stored with the run and logged, and a step's error text in it
    may hold what a secret's redaction is for."""
    if not isinstance(event, dict):
        raise InvalidInputError(f"{handler} event: should be an object")
    try:
        return model.model_validate(event)
    except ValidationError as invalid:
        raise InvalidInputError(f"{handler} event: {describe_validation_error(invalid)}") from None


class CaughtError(BaseModel):
    """What a Catch puts at its ResultPath: the Step Functions error name and its cause."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    # absent only from a hand-made event: then there is no error to record (seed 000)
    error: str | None = Field(default=None, alias="Error")
    # Step Functions may deliver a null Cause (moto always does for send_task_failure).
    cause: str | None = Field(default="", alias="Cause")


class TrackStepEvent(_Event):
    """The tracking task's Payload: `start` before a step runs, `finish` with its status after,
    `retry` with the caught error when the step failed and runs again; for an approval step,
    `gate` when its task starts waiting (its `taskToken` is taken out before this model sees
    the event) and `gate-closed` with the caught error and the status the step ends with."""

    action: Literal["start", "finish", "retry", "gate", "gate-closed"]
    workflow_execution_id: _Id
    pipeline_execution_id: _Id
    status: TerminalStepStatus | None = None
    # a finish event's error text, or the {"Error", "Cause"} a retry event's Catch caught
    error: CaughtError | str | None = None

    @model_validator(mode="after")
    def _status_only_on_finish(self) -> Self:
        if self.action in ("finish", "gate-closed") and self.status is None:
            raise ValueError(f"status: a {self.action} event needs the step's terminal status")
        if self.action == "gate-closed" and self.status not in _GATE_ENDS:
            raise ValueError("status: a gate-closed event ends the step FAILED or TIMED_OUT")
        if self.action in ("start", "gate") and (self.status is not None or self.error is not None):
            raise ValueError(f"status: a {self.action} event takes no status or error")
        if self.action == "retry" and self.status is not None:
            raise ValueError("status: a retry event takes no status")
        return self


_GATE_ENDS = (StepStatus.FAILED, StepStatus.TIMED_OUT)
_TASK_TOKEN = "taskToken"


class CompleteExecutionEvent(_Event):
    """The end-state task's Payload: the run's terminal status."""

    workflow_execution_id: _Id
    status: TerminalExecutionStatus
    error: str | None = None


def track_step(event: dict[str, Any], context: object) -> dict[str, Any]:
    """Interim tracking: StartStep, RetryStep or FinishStep; an approval step's OpenTaskGate
    and EndGateStep."""
    # The token is a credential: out of the event before anything can quote it (a validation
    # error prints the input it refused, and that error is the task's cause, stored and logged).
    fields = dict(event) if isinstance(event, dict) else event
    token = fields.pop(_TASK_TOKEN, None) if isinstance(fields, dict) else None
    parsed = _parsed(TrackStepEvent, fields, "track_step")
    if parsed.action == "gate":
        return _open_gate(parsed, token)
    if token is not None:
        raise ValueError(f"{_TASK_TOKEN}: only a gate event carries the task's token")
    if parsed.action == "gate-closed":
        return _end_gate_step(parsed)
    if parsed.action == "retry":
        return _retry_step(parsed)
    from application.use_cases.step_tracking import FinishStepCommand, StartStepCommand

    if parsed.action == "start":
        step = (
            container.start_step()
            .execute(
                StartStepCommand(
                    workflow_execution_id=parsed.workflow_execution_id,
                    pipeline_execution_id=parsed.pipeline_execution_id,
                )
            )
            .step
        )
    else:
        assert parsed.status is not None  # the event model requires it on finish
        step = container.finish_step().execute(
            FinishStepCommand(
                workflow_execution_id=parsed.workflow_execution_id,
                pipeline_execution_id=parsed.pipeline_execution_id,
                status=parsed.status,
                error=_error_text(parsed.error),
            )
        )
    return {
        "workflowExecutionId": step.workflow_execution_id,
        "pipelineExecutionId": step.pipeline_execution_id,
        "status": step.status.value,
    }


def _open_gate(parsed: TrackStepEvent, token: object) -> dict[str, Any]:
    """OpenTaskGate: the task waits on its token; what this returns, Step Functions ignores."""
    if not isinstance(token, str) or not token:
        raise ValueError(f"{_TASK_TOKEN}: a gate event needs the waiting task's token")
    from application.use_cases.open_task_gate import OpenTaskGateCommand

    try:
        command = OpenTaskGateCommand(
            workflow_execution_id=parsed.workflow_execution_id,
            pipeline_execution_id=parsed.pipeline_execution_id,
            task_token=token,
        )
    except ValidationError as invalid:  # its own message would quote the token
        problem = describe_validation_error(invalid).replace("task_token", _TASK_TOKEN)
        raise ValueError(f"gate event: {problem}") from None
    request = container.open_task_gate().execute(command)
    return {
        "workflowExecutionId": request.workflow_execution_id,
        "pipelineExecutionId": request.pipeline_execution_id,
        "approvalId": request.approval_id,
        "status": request.status.value,
    }


def _end_gate_step(parsed: TrackStepEvent) -> dict[str, Any]:
    """EndGateStep: the step ends with its gate's error; the completion function ends the run."""
    # the event model allows only these two on gate-closed
    status = StepStatus.TIMED_OUT if parsed.status is StepStatus.TIMED_OUT else StepStatus.FAILED
    from application.use_cases.end_gate_step import EndGateStepCommand

    step = container.end_gate_step().execute(
        EndGateStepCommand(
            workflow_execution_id=parsed.workflow_execution_id,
            pipeline_execution_id=parsed.pipeline_execution_id,
            status=status,
            error=_error_text(parsed.error),
        )
    )
    return {
        "workflowExecutionId": step.workflow_execution_id,
        "pipelineExecutionId": step.pipeline_execution_id,
        "status": step.status.value,
    }


def _retry_step(parsed: TrackStepEvent) -> dict[str, Any]:
    """RetryStep: the attempt that failed is closed FAILED, the next one opened."""
    from application.use_cases.retry_step import RetryStepCommand

    attempt = container.retry_step().execute(
        RetryStepCommand(
            workflow_execution_id=parsed.workflow_execution_id,
            pipeline_execution_id=parsed.pipeline_execution_id,
            error=_error_text(parsed.error),
        )
    )
    return {
        "workflowExecutionId": parsed.workflow_execution_id,
        "pipelineExecutionId": parsed.pipeline_execution_id,
        # None when the step was no longer RUNNING: a retry never reopens a step
        "attempt": None if attempt is None else attempt.attempt,
    }


def _error_text(error: CaughtError | str | None) -> str | None:
    if isinstance(error, CaughtError):
        return failure_message(error.error, error.cause)
    return error


def complete_execution(event: dict[str, Any], context: object) -> dict[str, Any]:
    """End-state output processing: CompleteExecution."""
    from application.use_cases.complete_execution import CompleteExecutionCommand

    parsed = _parsed(CompleteExecutionEvent, event, "complete_execution")
    execution = container.complete_execution().execute(
        CompleteExecutionCommand(
            workflow_execution_id=parsed.workflow_execution_id,
            status=parsed.status,
            error=parsed.error,
        )
    )
    return {
        "workflowExecutionId": execution.workflow_execution_id,
        "status": execution.status.value,
    }


class HandleExecutionErrorEvent(_Event):
    """The error state's Payload: the run's id and the caught error."""

    workflow_execution_id: _Id
    error: CaughtError = CaughtError()


def handle_execution_error(event: dict[str, Any], context: object) -> dict[str, Any]:
    """The Catch of every task: HandleExecutionError (the run ends FAILED with that error)."""
    from application.use_cases.handle_execution_error import HandleExecutionErrorCommand

    parsed = _parsed(HandleExecutionErrorEvent, event, "handle_execution_error")
    result = container.handle_execution_error().execute(
        HandleExecutionErrorCommand(
            workflow_execution_id=parsed.workflow_execution_id,
            error=parsed.error.error,
            cause=parsed.error.cause or "",
        )
    )
    return {
        "workflowExecutionId": result.workflow_execution_id,
        "status": result.status.value,
        "warnings": list(result.warnings),
    }


def register_pipeline_execution(event: dict[str, Any], context: object) -> dict[str, Any]:
    """The EventBridge rule's target: RegisterPipelineExecution for one registration event.

    A refused event (spoofed source, malformed detail) is logged with its reason and answered
    normally: EventBridge would retry a raised error, and a refusal never gets better. A store
    error escapes, so that EventBridge does retry it.
    """
    from application.use_cases.register_pipeline_execution import (
        RegisterPipelineExecutionCommand,
    )

    try:
        command = RegisterPipelineExecutionCommand.model_validate(event)
    except ValidationError as invalid:
        reason = describe_validation_error(invalid)
    else:
        result = container.register_pipeline_execution().execute(command)
        if result.accepted:
            answer: dict[str, Any] = {
                "accepted": True,
                "pipelineExecutionId": command.detail.pipeline_execution_id,
            }
            if result.dropped:  # as VAMS: a bad field is left out, the rest recorded
                answer["dropped"] = [redact(problem) for problem in result.dropped]
                logger.warning(
                    "registration event %s: recorded without %s",
                    _event_id(event),
                    "; ".join(answer["dropped"]),
                )
            for warning in result.warnings:  # what the step's cap left out, said where it is read
                logger.warning("registration event %s: %s", _event_id(event), redact(warning))
            if result.warnings:
                answer["warnings"] = list(result.warnings)
            return answer
        reason = result.reason or "refused"
    reason = redact(reason)
    source = _quoted(event.get("source", "")) if isinstance(event, dict) else ""
    logger.warning("registration event %s from %r refused: %s", _event_id(event), source, reason)
    return {"accepted": False, "reason": reason}


def _event_id(event: object) -> str:
    """The EventBridge event id, for the log line; "-" when the event has none."""
    return _quoted(event.get("id", "-")) if isinstance(event, dict) else "-"


# what a log line quotes of a value an event carries: EventBridge's are shorter, a direct
# invoke's need not be
_QUOTED = 200


def _quoted(value: object) -> str:
    """A value of the event for a log line: redacted, then cut at _QUOTED characters."""
    text = redact(str(value))
    return text if len(text) <= _QUOTED else text[: _QUOTED - 1] + "…"
