"""An event's item, and a main row's change, keep the values that are present, in their order,
as the plain loops over them did (they are picked by C iterators now)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.event_records import _OPTIONAL, build_event_record
from adapters.records import presence
from adapters.run_records import _EXECUTION_ALWAYS, _present
from domain.events import EventType, NewEvent
from domain.redaction import redact

_TEXT = st.none() | st.just("") | st.text(max_size=12)
_NUMBER = st.none() | st.integers(min_value=0, max_value=5)
_MAIN_ROW_NAMES = (*sorted(_EXECUTION_ALWAYS), "executionStatus", "redriveCount", "abortCause")


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


_ANY = st.none() | st.just("") | st.text(max_size=6) | st.integers(-2, 2) | st.booleans()


@settings(max_examples=200, deadline=None)
@given(st.lists(_ANY, max_size=12))
def test_presence_is_put_presents_rule(values: list[Any]) -> None:
    assert list(presence(values)) == [v is not None and v != "" for v in values]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(_MAIN_ROW_NAMES), _ANY))
def test_a_main_rows_present_values_are_the_plain_filters(values: dict[str, Any]) -> None:
    expected = {
        name: value
        for name, value in values.items()
        if name in _EXECUTION_ALWAYS or (value is not None and value != "")
    }
    assert list(_present(values).items()) == list(expected.items())
