"""The row filters a list applies on top of the index it reads (VAMS's list filters): each
given one must hold. Lists are newest first, so a start-date lower bound ends a list at its
first older row instead of reading the rest of the index."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus
from domain.triggers import TriggerType


@dataclass(frozen=True)
class ExecutionFilter:
    status: ExecutionStatus | None = None
    workflow_key: str | None = None  # DATABASE_ID:WORKFLOW_ID
    workflow_database_id: str | None = None
    workflow_id: str | None = None
    group: str | None = None
    trigger_type: TriggerType | None = None
    triggered_by_user_id: str | None = None
    started_from: datetime | None = None
    started_to: datetime | None = None

    @property
    def is_empty(self) -> bool:
        return self == ExecutionFilter()

    @property
    def is_lower_bound_only(self) -> bool:
        """Only a start-date lower bound: an index page cut at the window, nothing skipped."""
        return self.started_from is not None and replace(self, started_from=None).is_empty

    @property
    def label(self) -> str:
        """Names the filter in a token, so that a token issued for another filter is refused.
        The window's lower bound is left out: the lists' default one is 90 days back from each
        request's now, so it moves between the pages of one list; it only ends the list."""
        named = replace(self, started_from=None).__dict__.values()
        return " ".join(
            f"{value.isoformat() if isinstance(value, datetime) else value}"
            for value in named
            if value is not None
        )

    def is_past(self, row: WorkflowExecution) -> bool:
        """The row started before the window: it and every row after it are left out."""
        return self.started_from is not None and row.execution_start_date < self.started_from

    def matches(self, row: WorkflowExecution) -> bool:
        wanted = (
            (self.status, row.status),
            (self.workflow_key, row.workflow_key),
            (self.workflow_database_id, row.workflow_database_id),
            (self.workflow_id, row.workflow_id),
            (self.group, row.execution_group_id),
            (self.trigger_type, row.trigger_type),
            (self.triggered_by_user_id, row.triggered_by_user_id),
        )
        if any(want is not None and want != value for want, value in wanted):
            return False
        if self.started_to is not None and row.execution_start_date > self.started_to:
            return False
        return not self.is_past(row)
