"""GetExecutionEvents: a run's event log from a sequence number on (seed 003 EVENT_LOG)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import ExecutionEvents, RunStore
from domain.events import ExecutionEvent
from domain.paging import Page

MAX_EVENTS_PER_PAGE = 1000


class GetExecutionEventsQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    after_sequence: int = Field(default=0, ge=0)
    max_items: int = Field(default=100, ge=1, le=MAX_EVENTS_PER_PAGE)


class GetExecutionEvents:
    """Read one page of a run's events, oldest first; ExecutionNotFoundError for no such run."""

    def __init__(self, store: RunStore, events: ExecutionEvents) -> None:
        self._store, self._events = store, events

    def execute(self, query: GetExecutionEventsQuery) -> Page[ExecutionEvent]:
        # the main row first: an unknown run is a 404, not an empty log
        self._store.get_execution(query.workflow_execution_id)
        return self._events.events_after(
            query.workflow_execution_id, query.after_sequence, query.max_items
        )
