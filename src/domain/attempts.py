"""Task execution attempts: every run of a step (seed 003 TASK_EXECUTION).

A retry or a redrive adds an attempt; an earlier attempt is never rewritten, only closed once.
"""

from collections.abc import Iterable
from enum import StrEnum

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from domain.statuses import StepStatus


class AttemptTrigger(StrEnum):
    """Why an attempt was opened."""

    START = "start"
    RETRY = "retry"
    REDRIVE = "redrive"


class TaskExecution(BaseModel):
    """One attempt of one step: RUNNING, then closed once with a terminal status."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    pipeline_execution_id: str
    workflow_execution_id: str
    attempt: int = Field(ge=1)
    status: StepStatus
    start_date: AwareDatetime
    stop_date: AwareDatetime | None = None
    error: str | None = None
    trigger: AttemptTrigger = AttemptTrigger.START

    @property
    def is_running(self) -> bool:
        return self.status is StepStatus.RUNNING


def next_attempt_number(attempts: Iterable[TaskExecution]) -> int:
    """The number the next attempt of a step takes: one past the highest stored."""
    return max((a.attempt for a in attempts), default=0) + 1
