"""Execution and step statuses (seed 000 "Status tracking", seed 001 statuses)."""

from enum import StrEnum
from typing import Annotated, TypeVar

from pydantic import AfterValidator


class ExecutionStatus(StrEnum):
    NEW = "NEW"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    ABORTED = "ABORTED"
    TIMED_OUT = "TIMED_OUT"
    PENDING_REDRIVE = "PENDING_REDRIVE"


class StepStatus(StrEnum):
    NEW = "NEW"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    ABORTED = "ABORTED"
    TIMED_OUT = "TIMED_OUT"


TERMINAL_STATUSES: frozenset[str] = frozenset({"SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT"})
OPEN_EXECUTION_STATUSES = frozenset(
    {ExecutionStatus.NEW, ExecutionStatus.RUNNING, ExecutionStatus.PENDING_REDRIVE}
)


def is_terminal(status: str) -> bool:
    return status in TERMINAL_STATUSES


_Status = TypeVar("_Status", bound=str)


def require_terminal(status: _Status) -> _Status:
    if status not in TERMINAL_STATUSES:
        raise ValueError(f"must be one of {', '.join(sorted(TERMINAL_STATUSES))}")
    return status


TerminalStepStatus = Annotated[StepStatus, AfterValidator(require_terminal)]
TerminalExecutionStatus = Annotated[ExecutionStatus, AfterValidator(require_terminal)]
