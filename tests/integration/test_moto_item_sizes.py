"""The tests' moto sizes a new item once (tests/moto_item_sizes.py): the item it makes, and the
items it refuses as past 400 KB, are moto's own."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.moto_item_sizes import CHECKED_AGAINST, make_item, moto_source_digest

names = st.text(min_size=1, max_size=8)
numbers = st.integers().map(str) | st.decimals(allow_nan=False, allow_infinity=False).map(str)
leaves = st.one_of(
    st.builds(lambda v: {"S": v}, st.text(max_size=12)),
    st.builds(lambda n: {"S": "x" * n}, st.integers(0, 300_000)),  # past the limit, two of them
    st.builds(lambda v: {"N": v}, numbers),
    st.builds(lambda v: {"BOOL": v}, st.booleans()),
    st.just({"NULL": True}),
    st.builds(
        lambda v: {"SS": v}, st.lists(st.text(max_size=6), min_size=1, max_size=4, unique=True)
    ),
    st.builds(lambda v: {"B": v}, st.binary(max_size=12)),
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.builds(lambda v: {"M": v}, st.dictionaries(names, inner, max_size=4))
        | st.builds(lambda v: {"L": v}, st.lists(inner, max_size=4))
    ),
    max_leaves=6,
)
items = st.dictionaries(names, values, max_size=6)


def _made(init: Any, attrs: dict[str, Any]) -> Any:
    """The item `init` makes of `attrs`, or the exception it raises."""
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    item = Item.__new__(Item)
    try:
        init(item, DynamoType({"S": "h"}), None, attrs)
    except Exception as error:  # the refusal is compared, whatever it is
        return type(error)
    return item


def _moto_init() -> Any:
    from moto.dynamodb.models.dynamo_type import Item

    return getattr(Item.__init__, "wfx_moto_init", Item.__init__)


def _key_size(size: int) -> dict[str, Any]:
    """One attribute `k` whose key and string value add up to `size` bytes."""
    return {"k": {"S": "x" * (size - 1)}}


@given(items)
@example(_key_size(405_000))  # the limit itself is allowed
@example(_key_size(405_001))  # a byte more is refused
@example({"a": {"S": "x" * 300_000}, "b": {"S": "x" * 200_000}})  # refused at the second
def test_an_item_is_made_or_refused_as_moto_makes_it(attrs: dict[str, Any]) -> None:
    from moto.dynamodb.models.dynamo_type import LimitedSizeDict

    ours, motos = (
        _made(lambda item, *args: make_item(item, *args), attrs),
        _made(_moto_init(), attrs),
    )
    if isinstance(motos, type):
        assert ours is motos
        return
    assert not isinstance(ours, type), ours
    assert type(ours.attrs) is LimitedSizeDict
    assert list(ours.attrs.items()) == list(motos.attrs.items())
    assert (ours.hash_key, ours.range_key) == (motos.hash_key, motos.range_key)


def test_the_limit_is_moto_s_own() -> None:
    assert _made(_moto_init(), _key_size(405_000)) is not None
    assert not isinstance(_made(_moto_init(), _key_size(405_000)), type)
    assert isinstance(_made(_moto_init(), _key_size(405_001)), type)


def test_moto_s_item_is_sized_once_where_moto_is_the_one_checked_against() -> None:
    from moto.dynamodb.models.dynamo_type import Item

    if moto_source_digest() != CHECKED_AGAINST:
        pytest.skip("another moto: its own Item.__init__ is used")
    assert getattr(Item.__init__, "wfx_sized_once", False)
