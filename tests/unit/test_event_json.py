"""An event's JSON, written by `build_event_record` (and by `event_text` without the item, from a
template per type and shape), is the compact encoder's text of its item, whatever its texts hold
(quotes, control characters, DEL, accents, characters past the BMP) and with a value of another
type left to the encoder."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import IntEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.compact_json import encode_compact
from adapters.event_records import build_event_record, event_text
from domain.events import EventType, NewEvent

_TEXT = st.none() | st.just("") | st.text(max_size=10)
_NUMBER = st.none() | st.integers(min_value=0, max_value=10**12)
_TEXTS = ("pipeline_execution_id", "status", "trigger", "approval_id", "decided_by")
_NUMBERS = ("attempt", "redrive_count", "sub_executions", "logs")


@settings(max_examples=300, deadline=None)
@given(
    run_id=st.text(min_size=1, max_size=12),
    number=st.integers(min_value=1, max_value=10**9),
    event_type=st.sampled_from(list(EventType)),
    moment=st.datetimes(timezones=st.just(UTC)),
    texts=st.fixed_dictionaries({name: _TEXT for name in _TEXTS}),
    numbers=st.fixed_dictionaries({name: _NUMBER for name in _NUMBERS}),
)
def test_an_events_json_is_the_encoders(
    run_id: str,
    number: int,
    event_type: EventType,
    moment: datetime,
    texts: dict[str, Any],
    numbers: dict[str, Any],
) -> None:
    event = NewEvent(
        workflow_execution_id=run_id,
        event_type=event_type,
        occurred_at=moment,
        **texts,
        **numbers,
    )
    record = build_event_record(event, number)
    assert record.json_text == encode_compact(dict(record))
    assert json.loads(record.json_text) == record
    # the template's text, for every event of ids, numbers and statuses (no empty text)
    plain = "" not in (run_id, *texts.values())
    assert event_text(event, number) == (record.json_text if plain else None)


class _Level(IntEnum):
    TWO = 2


@pytest.mark.parametrize(
    ("odd", "text"),
    [
        ({"attempt": _Level.TWO, "redrive_count": True}, '"redriveCount":true'),
        (
            {"attempt": 1, "redrive_count": True},
            '"redriveCount":true',
        ),  # True == 1: a kept 1 is not its text
        ({"attempt": 1.5}, '"attempt":1.5'),
    ],
)
def test_a_value_of_another_type_is_left_to_the_encoder(odd: dict[str, Any], text: str) -> None:
    # (unvalidated, as an event the domain builds could hold one)
    moment = datetime(2026, 12, 5, 22, 0, tzinfo=UTC)
    plain = NewEvent(
        workflow_execution_id="run-1",
        event_type=EventType.STEP_STARTED,
        occurred_at=moment,
        attempt=1,
        redrive_count=1,
    )
    assert event_text(plain, 1) == encode_compact(dict(build_event_record(plain, 1)))
    event = NewEvent(
        workflow_execution_id="run-1",
        event_type=EventType.STEP_STARTED,
        occurred_at=moment,
        **odd,
    )
    record = build_event_record(event, 1)
    assert record.json_text == encode_compact(dict(record))
    assert text in (record.json_text or "")
    assert event_text(event, 1) is None  # no template: the item's encoder says it


def test_an_event_with_free_text_has_no_template() -> None:
    # an error or a cause is redacted and fitted by the item's budget (build_event_record)
    for error, cause in (("Boom", None), (None, "why")):
        event = NewEvent(
            workflow_execution_id="run-1",
            event_type=EventType.STEP_FINISHED,
            occurred_at=datetime(2026, 12, 5, 22, 0, tzinfo=UTC),
            status="FAILED",
            error=error,
            cause=cause,
        )
        assert event_text(event, 1) is None
        record = build_event_record(event, 1)
        assert record.json_text == encode_compact(dict(record))
