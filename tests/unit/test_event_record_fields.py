"""An event's item keeps the optional fields that have a value, in their order, as the plain
loop over them does (`build_event_record` picks them by C iterators)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.event_records import _OPTIONAL, build_event_record
from domain.events import EventType, NewEvent
from domain.redaction import redact

_TEXT = st.none() | st.just("") | st.text(max_size=12)
_NUMBER = st.none() | st.integers(min_value=0, max_value=5)


def _plain(event: NewEvent) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name, attribute in _OPTIONAL:
        value = getattr(event, name)
        if value is None or value == "":
            continue
        item[attribute] = redact(value) if attribute in ("error", "cause") else value
    return item


@settings(max_examples=200, deadline=None)
@given(
    texts=st.fixed_dictionaries(
        {
            name: _TEXT
            for name in (
                "pipeline_execution_id",
                "status",
                "error",
                "cause",
                "trigger",
                "approval_id",
                "decided_by",
            )
        }
    ),
    numbers=st.fixed_dictionaries(
        {name: _NUMBER for name in ("attempt", "redrive_count", "sub_executions", "logs")}
    ),
)
def test_the_fields_kept_are_the_plain_loops(
    texts: dict[str, str | None], numbers: dict[str, int | None]
) -> None:
    event = NewEvent(
        workflow_execution_id="run-1",
        event_type=EventType.STEP_FINISHED,
        occurred_at=datetime(2026, 12, 5, 21, 0, tzinfo=UTC),
        **texts,
        **numbers,
    )
    record = build_event_record(event, 3)
    fixed = ["workflowExecutionId", "sequenceNumber", "eventType", "occurredAt"]
    assert list(record)[:4] == fixed
    optional = {name: value for name, value in record.items() if name not in fixed}
    expected = _plain(event)
    assert list(optional.items()) == list(expected.items())  # the same fields, in order
    assert "attempt" in record or numbers["attempt"] is None  # a 0 is a value: kept
