"""encode_compact gives the text the plain compact encoder gives, and refuses what it refuses."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.compact_json import encode_compact
from adapters.cost_records import build_cost_ledger_record
from adapters.event_records import build_event_record
from adapters.item_budget import Record
from domain.costs import CostBasis, CostKind, CostLedgerEntry, CostSource
from domain.events import EventType, NewEvent

PLAIN = json.JSONEncoder(separators=(",", ":"))

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _VALUES, max_size=8))
def test_an_item_is_encoded_as_the_plain_compact_encoder_encodes_it(item: dict[str, Any]) -> None:
    assert encode_compact(item) == PLAIN.encode(item)
    assert encode_compact(Record(item)) == PLAIN.encode(item)


@given(_VALUES)
def test_any_json_value_is_encoded_as_the_plain_compact_encoder_encodes_it(value: Any) -> None:
    assert encode_compact(value) == PLAIN.encode(value)


@pytest.mark.parametrize(
    "text",
    ["plain", "\x7f", "caf\u00e9", "\u2028", "\U0001f600", '\x00\x1f"\\\n\t', "a\x7fb\u00e9"],
)
def test_delete_and_characters_past_ascii_are_escaped_as_the_ascii_encoder_escapes_them(
    text: str,
) -> None:
    item = {text: [text, {"k": text}]}
    assert encode_compact(item) == PLAIN.encode(item)
    assert encode_compact(item).isascii()


@pytest.mark.parametrize("value", [Decimal("1.5"), {"tags": {"a"}}, [b"raw"], {"at": object()}])
def test_a_value_json_has_no_form_for_is_refused_with_its_type(value: Any) -> None:
    with pytest.raises(TypeError, match="is not JSON serializable"):
        PLAIN.encode(value)
    with pytest.raises(TypeError, match="is not JSON serializable"):
        encode_compact(value)


def test_an_event_and_a_cost_entry_carry_the_json_a_store_writes_of_them() -> None:
    at = datetime(2026, 12, 4, 9, 30, tzinfo=UTC)
    event = NewEvent(
        workflow_execution_id="run-1",
        event_type=EventType.ATTEMPT_FINISHED,
        occurred_at=at,
        pipeline_execution_id="step-1",
        attempt=2,
        status="SUCCEEDED",
    )
    entry = CostLedgerEntry(
        entry_id="duration-1",
        workflow_execution_id="run-1",
        pipeline_execution_id="step-1",
        attempt=2,
        workflow_database_id="db1",
        workflow_id="wf1",
        kind=CostKind.DURATION,
        quantity=Decimal("1.5"),
        unit="seconds",
        basis=CostBasis.ESTIMATE,
        source=CostSource.RUNNER,
        recorded_at=at,
    )

    for record in (build_event_record(event, 7), build_cost_ledger_record(entry)):
        assert isinstance(record, Record)
        assert record.json_text == PLAIN.encode(dict(record))
        record["changed"] = True  # a change drops the text: the store encodes it anew
        assert record.json_text is None
