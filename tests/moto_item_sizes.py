"""moto's new DynamoDB item checked against the 400 KB limit once, not once per attribute.

moto 5.2 makes an `Item` by setting its attributes one by one in a `LimitedSizeDict`, whose
`__setitem__` sizes every attribute already set (each value walked down to its leaves) before it
takes the next: an item of n attributes is sized n²/2 times over as it is made, 4-5 % of a
DynamoDB-heavy test's CPU (every put, and every update's new item). The tests' moto makes it
with one running total: the sizes it adds are the ones moto sums (each key's bytes and each
value's `size()`), in the same order, so it refuses an item (`ItemSizeTooLarge`) at the same
attribute moto does, and an item it makes is the same `LimitedSizeDict`, whose later writes (an
update's) are checked by moto's own `__setitem__`. Patched only where `Item.__init__` and
`LimitedSizeDict.__setitem__` are the code this was checked against; elsewhere moto is left
as it is. `tests/integration/test_moto_item_sizes.py` checks it against moto's own.
"""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

# sha256 of the source of moto 5.2's Item.__init__ and LimitedSizeDict.__setitem__, joined
CHECKED_AGAINST = "fc02f7fab7a521c3"
_LIMIT = 405000  # moto's, in LimitedSizeDict.__setitem__


def moto_source_digest() -> str:
    from moto.dynamodb.models.dynamo_type import Item, LimitedSizeDict

    init = getattr(Item.__init__, "wfx_moto_init", Item.__init__)  # moto's, patched or not
    source = inspect.getsource(init) + inspect.getsource(LimitedSizeDict.__setitem__)
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


def make_item(item: Any, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:
    """moto's Item.__init__, the item sized as it grows by one running total."""
    from moto.dynamodb.exceptions import ItemSizeTooLarge
    from moto.dynamodb.models.dynamo_type import DynamoType, LimitedSizeDict
    from moto.dynamodb.models.utilities import bytesize

    item.hash_key = hash_key
    item.range_key = range_key
    item.attrs = LimitedSizeDict()
    size = 0
    for key, value in attrs.items():
        typed = DynamoType(value)
        size += bytesize(key) + typed.size()
        if size > _LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(item.attrs, key, typed)


def size_new_items_once() -> None:
    from moto.dynamodb.models.dynamo_type import Item

    if getattr(Item.__init__, "wfx_sized_once", False):
        return
    if moto_source_digest() != CHECKED_AGAINST:
        return  # another moto: each item sized as moto sizes it, slower and never wrong

    def __init__(self: Any, hash_key: Any, range_key: Any, attrs: dict[str, Any]) -> None:  # noqa: N807
        make_item(self, hash_key, range_key, attrs)

    __init__.wfx_sized_once = True  # type: ignore[attr-defined]
    __init__.wfx_moto_init = Item.__init__  # type: ignore[attr-defined]
    Item.__init__ = __init__  # type: ignore[method-assign]
