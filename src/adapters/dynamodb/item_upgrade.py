"""`wfx migrate items` on DynamoDB: every item an earlier wfx wrote, in the current shapes.

Each item is rewritten by an UpdateItem that sets what changes and removes the names replaced,
on the condition that each of those attributes still holds what was read: a run writing its rows
meanwhile is never overwritten, and the item is read again and retried (a few times; then it is
counted as a conflict and left for the next run). Items already in shape are not written, so an
interrupted run resumes by running again.
"""

from __future__ import annotations

from typing import Any

from adapters.dynamodb.codec import Item, from_wire, to_wire
from adapters.dynamodb.input_regroup import regroup_dynamodb_inputs
from adapters.item_upgrade import UPGRADED_TABLES, upgraded_item
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from domain.migration import TableItemShapes

_TRIES = 3


def _update_request(
    table_name: str, key_names: tuple[str, ...], old: Item, new: Item
) -> dict[str, Any]:
    changed = {
        name: value
        for name, value in new.items()
        if old.get(name, None) != value or name not in old
    }
    removed = [name for name in old if name not in new]
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    conditions: list[str] = []
    sets: list[str] = []
    for index, name in enumerate((*changed, *removed)):
        names[f"#a{index}"] = name
        if name in old:
            values[f":o{index}"] = old[name]
            conditions.append(f"#a{index} = :o{index}")
        else:
            conditions.append(f"attribute_not_exists(#a{index})")
        if name in changed:
            values[f":n{index}"] = changed[name]
            sets.append(f"#a{index} = :n{index}")
    expression = " ".join(
        part
        for part in (
            f"SET {', '.join(sets)}" if sets else "",
            f"REMOVE {', '.join(n for n, a in names.items() if a in removed)}" if removed else "",
        )
        if part
    )
    return {
        "TableName": table_name,
        "Key": to_wire({name: old[name] for name in key_names}),
        "UpdateExpression": expression,
        "ConditionExpression": " AND ".join(conditions),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": to_wire(values),
    }


def _move_requests(
    table_name: str, key_names: tuple[str, ...], old: Item, new: Item
) -> list[dict[str, Any]]:
    """An item whose key the upgrade changed (a path now led by "/"): the new item put where
    none is, and the old one deleted on the condition that it still holds what was read."""
    names = {f"#a{index}": name for index, name in enumerate(old)}
    values = {f":o{index}": value for index, value in enumerate(old.values())}
    return [
        {
            "Put": {
                "TableName": table_name,
                "Item": to_wire(new),
                "ConditionExpression": "attribute_not_exists(#k)",
                "ExpressionAttributeNames": {"#k": key_names[0]},
            }
        },
        {
            "Delete": {
                "TableName": table_name,
                "Key": to_wire({name: old[name] for name in key_names}),
                "ConditionExpression": " AND ".join(
                    f"#a{index} = :o{index}" for index in range(len(old))
                ),
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": to_wire(values),
            }
        },
    ]


class DynamoDbItemShapes:
    """The upgraded tables' items, scanned and rewritten where their shape is an earlier one."""

    def __init__(self, client: Any, tables: TableNames) -> None:
        self._client, self._tables = client, tables

    def upgrade(self, dry_run: bool) -> tuple[TableItemShapes, ...]:
        return (
            *(self._table(key, write=not dry_run) for key in UPGRADED_TABLES),
            regroup_dynamodb_inputs(self._client, self._tables, write=not dry_run),
        )

    def verify(self) -> tuple[TableItemShapes, ...]:
        return (
            *(self._table(key, write=False) for key in UPGRADED_TABLES),
            regroup_dynamodb_inputs(self._client, self._tables, write=False),
        )

    def _table(self, key: ResourceKeys, write: bool) -> TableItemShapes:
        name = self._tables.get_table_name(key)
        key_names = tuple(attribute.name for attribute in TABLE_SPECS[key].key_attributes)
        read = rewritten = conflicts = 0
        pages = self._client.get_paginator("scan").paginate(TableName=name, ConsistentRead=True)
        for page in pages:
            for wire in page["Items"]:
                read += 1
                item = from_wire(wire)
                upgraded = upgraded_item(key, item)
                if upgraded is None:
                    continue
                if not write or self._rewrite(key, name, key_names, item, upgraded):
                    rewritten += 1
                else:
                    conflicts += 1
        return TableItemShapes(table=name, read=read, rewritten=rewritten, conflicts=conflicts)

    def _rewrite(
        self, key: ResourceKeys, name: str, key_names: tuple[str, ...], item: Item, new: Item
    ) -> bool:
        """True once written (or found in shape, or gone); False after _TRIES refusals."""
        refused = (
            self._client.exceptions.ConditionalCheckFailedException,
            self._client.exceptions.TransactionCanceledException,
        )
        for _ in range(_TRIES):
            try:
                if any(item[k] != new.get(k) for k in key_names):
                    self._client.transact_write_items(
                        TransactItems=_move_requests(name, key_names, item, new)
                    )
                else:
                    self._client.update_item(**_update_request(name, key_names, item, new))
                return True
            except refused:
                answer = self._client.get_item(
                    TableName=name,
                    Key=to_wire({k: item[k] for k in key_names}),
                    ConsistentRead=True,
                )
                if "Item" not in answer:
                    return True  # deleted meanwhile: nothing to upgrade
                item = from_wire(answer["Item"])
                upgraded = upgraded_item(key, item)
                if upgraded is None:
                    return True
                new = upgraded
        return False
