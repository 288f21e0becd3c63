"""Task execution attempts: every run of a step (seed 003 TASK_EXECUTION).

A retry or a redrive adds an attempt; an earlier attempt is never rewritten, only closed once.
"""

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated

from pydantic import AwareDatetime, Field

from domain.derived import written_record
from domain.statuses import StepStatus


class AttemptTrigger(StrEnum):
    """Why an attempt was opened."""

    START = "start"
    RETRY = "retry"
    REDRIVE = "redrive"


@written_record
class TaskExecution:
    """One attempt of one step: RUNNING, then closed once with a terminal status. Opened and
    closed by the domain's moves from their valid values (domain.derived.written_record); read
    back from a row, validated by its annotations (adapters.step_records)."""

    pipeline_execution_id: str
    workflow_execution_id: str
    attempt: Annotated[int, Field(ge=1)]
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
