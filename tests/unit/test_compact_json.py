"""encode_compact gives the text the plain compact encoder gives, and refuses what it refuses."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.compact_json import encode_compact
from adapters.item_budget import Record

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


@pytest.mark.parametrize("value", [Decimal("1.5"), {"tags": {"a"}}, [b"raw"], {"at": object()}])
def test_a_value_json_has_no_form_for_is_refused_with_its_type(value: Any) -> None:
    with pytest.raises(TypeError, match="is not JSON serializable"):
        PLAIN.encode(value)
    with pytest.raises(TypeError, match="is not JSON serializable"):
        encode_compact(value)
