"""The tests' moto writes DynamoDB attribute values as they are (tests/moto_attribute_values.py):
its answers are byte for byte those of moto's own walk down the output's shape."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.moto_attribute_values import attribute_value

names = st.text(min_size=1, max_size=8)
texts = st.text(max_size=12)
numbers = st.integers().map(str) | st.decimals(allow_nan=False, allow_infinity=False).map(str)
binary = st.binary(max_size=12)
leaves = st.one_of(
    st.builds(lambda v: {"S": v}, texts),
    st.builds(lambda v: {"N": v}, numbers),
    st.builds(lambda v: {"BOOL": v}, st.booleans()),
    st.just({"NULL": True}),
    st.builds(lambda v: {"SS": v}, st.lists(texts, min_size=1, max_size=4, unique=True)),
    st.builds(lambda v: {"NS": v}, st.lists(numbers, min_size=1, max_size=4, unique=True)),
    st.builds(lambda v: {"B": v}, binary),  # base64 on the wire: moto's walk writes it
    st.builds(lambda v: {"BS": v}, st.lists(binary, min_size=1, max_size=3, unique=True)),
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.builds(lambda v: {"M": v}, st.dictionaries(names, inner, max_size=4))
        | st.builds(lambda v: {"L": v}, st.lists(inner, max_size=4))
    ),
    max_leaves=8,
)
items = st.dictionaries(names, values, max_size=4)


def _answer(operation: str, result: dict[str, Any]) -> Any:
    """moto's answer to `operation` carrying `result`, serialized as its DynamoDB handler does."""
    from moto.core.serialize import XFormedAttributePicker, get_serializer_class
    from moto.core.utils import get_service_model

    model = get_service_model("dynamodb")
    serializer_class = get_serializer_class("dynamodb", model.protocol)
    picker = XFormedAttributePicker(response_transformers=None)
    serializer = serializer_class(
        operation_model=model.operation_model(operation), value_picker=picker
    )
    return serializer.serialize(result)["body"]


@contextmanager
def moto_walk() -> Iterator[None]:
    """moto's own walk while inside, every attribute value read member by member."""
    from moto.core.serialize import BaseJSONSerializer

    written = BaseJSONSerializer._serialize_type_structure
    walk = getattr(written, "wfx_moto_walk", None)
    assert walk is not None, "the tests' moto writes attribute values as they are"
    BaseJSONSerializer._serialize_type_structure = walk  # type: ignore[method-assign]
    try:
        yield
    finally:
        BaseJSONSerializer._serialize_type_structure = written  # type: ignore[method-assign]


@settings(max_examples=50)  # each a few items of nested values: the shapes' paths are few
@given(item=items, more=st.lists(items, max_size=2))
def test_an_answer_is_the_one_moto_walks_to(item: Any, more: Any) -> None:
    for operation, result in (
        ("GetItem", {"Item": item}),
        ("Query", {"Items": [item, *more], "Count": 1 + len(more), "ScannedCount": 0}),
    ):
        answer = _answer(operation, result)
        with moto_walk():
            walked = _answer(operation, result)
        assert answer == walked


@pytest.mark.parametrize(
    "value",
    [
        {"B": b"x"},
        {"BS": [b"x"]},
        {"S": "a", "N": "1"},
        {"s": "a"},
        {"S": 1},
        {"M": {"a": {"B": b"x"}}},
        {"L": [{"S": "a"}, {"BS": [b"x"]}]},
        {"L": [None]},
        {"SS": ["a", 1]},
        "text",
    ],
)
def test_what_it_does_not_know_is_left_to_moto(value: Any) -> None:
    assert attribute_value(value) is None
