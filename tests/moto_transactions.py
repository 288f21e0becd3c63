"""moto's TransactWriteItems, keeping a copy of the items a transaction names, not of its tables.

moto 5 deep-copies every table a transaction names before it begins, to put the copies back if
it is cancelled: a cost that grows with the table (~16 ms a transaction on a table of a few
hundred rows) and was a third of the time of the tests that write a hundred runs on DynamoDB. A
cancelled transaction can only have changed the items it names, so the tests' moto copies those
and puts them back, and leaves the tables as they are: what is left after a cancel is the same,
and a write another request made meanwhile is no longer undone with it (DynamoDB never undoes it).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any


@dataclass(frozen=True)
class _Before:
    """One named item as it was before the transaction; `item` None where there was none."""

    table: Any
    hash_value: Any
    range_value: Any
    item: Any

    def put_back(self) -> None:
        if self.item is None:
            self.table.delete_item(self.hash_value, self.range_value)
        elif self.range_value is None:
            self.table.items[self.hash_value] = self.item
        else:
            self.table.items[self.hash_value][self.range_value] = self.item


def back_up_only_the_named_items() -> None:
    import moto.dynamodb.models as models
    from moto.dynamodb.models.table import Table

    write = models.DynamoDBBackend.transact_write_items
    if getattr(write, "wfx_items_only", False):
        return

    def deepcopy(value: Any, memo: dict[int, Any] | None = None) -> Any:
        # a table moto would copy whole: the transaction below copies the items it names instead
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        before = [b for entry in transact_items if (b := _before(self, entry)) is not None]
        try:
            write(self, transact_items)
        except Exception:
            for item in reversed(before):  # two writes of one item: the first copy goes back last
                item.put_back()
            raise

    models.copy = SimpleNamespace(deepcopy=deepcopy)  # type: ignore[attr-defined,assignment]
    transact_write_items.wfx_items_only = True  # type: ignore[attr-defined]
    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]


def _before(backend: Any, entry: dict[str, Any]) -> _Before | None:
    """The item one action of a transaction names, copied; None where the action names no item
    of a table there (moto refuses it before it writes anything)."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    if len(entry) != 1:
        return None
    (action,) = entry.values()
    table = backend.tables.get(action.get("TableName")) if isinstance(action, dict) else None
    if table is None:
        return None
    key = action.get("Key", action.get("Item"))
    names = (
        (table.hash_key_attr, table.range_key_attr)
        if table.has_range_key
        else (table.hash_key_attr,)
    )
    if not isinstance(key, dict) or any(name not in key for name in names):
        return None
    hash_value = DynamoType(key[table.hash_key_attr])
    range_value = DynamoType(key[table.range_key_attr]) if table.has_range_key else None
    return _Before(table, hash_value, range_value, _copied(table.get_item(hash_value, range_value)))


def _copied(item: Any) -> Any:
    """A deep copy of `item`, taken again while another request's thread of moto's server
    changes it under the copy (a dict that changes size while it is copied): moto locks
    nothing, and a failed copy would answer the transaction with a 500 DynamoDB never gives."""
    for _ in range(100):
        try:
            return copy.deepcopy(item)
        except RuntimeError:
            continue
    return copy.deepcopy(item)
