"""Execution and step statuses (seed 000 "Status tracking", seed 001 statuses)."""

from enum import StrEnum


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


def is_terminal(status: str) -> bool:
    return status in TERMINAL_STATUSES
