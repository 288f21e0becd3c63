"""Rows exactly as a storage adapter stored them, read past the adapter.

SQLite keeps each item as JSON in the `item` column beside its key columns; DynamoDB keeps the
item itself. Reading them raw is how a scenario sees that a sparse key is absent, not empty.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.sqlite.schema import ITEM_COLUMN
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames

Item = dict[str, Any]


class StoredRows:
    """Query one table (or one of its indexes) for the items whose `attribute` equals `value`."""

    def __init__(self, storage: str, tables: TableNames, database: Any, client: Any) -> None:
        self._storage, self._tables = storage, tables
        self._database, self._client = database, client

    def items(self, key: ResourceKeys, attribute: str, value: str) -> list[Item]:
        if self._storage == "sqlite":
            rows = self._sqlite_column(key, ITEM_COLUMN, {attribute: value})
            return [json.loads(row) for row in rows]
        return self._dynamodb_items(key, attribute, value)

    def key_column(self, key: ResourceKeys, column: str, where: Mapping[str, str]) -> list[Any]:
        """SQLite only: the values of a key column (NULL where an index key is absent)."""
        assert self._storage == "sqlite"
        return self._sqlite_column(key, column, where)

    def has_key_column(self, key: ResourceKeys, column: str) -> bool:
        return any(a.name == column for a in TABLE_SPECS[key].all_key_attributes)

    def _sqlite_column(self, key: ResourceKeys, column: str, where: Mapping[str, str]) -> list[Any]:
        table = self._tables.get_table_name(key)
        conditions = " AND ".join(f'"{name}" = ?' for name in where)
        statement = f'SELECT "{column}" FROM "{table}" WHERE {conditions}'
        with self._database.read() as connection:
            return [row[0] for row in connection.execute(statement, tuple(where.values()))]

    def _dynamodb_items(self, key: ResourceKeys, attribute: str, value: str) -> list[Item]:
        from boto3.dynamodb.types import TypeDeserializer

        spec = TABLE_SPECS[key]
        request: dict[str, Any] = {
            "TableName": self._tables.get_table_name(key),
            "KeyConditionExpression": "#k = :v",
            "ExpressionAttributeNames": {"#k": attribute},
            "ExpressionAttributeValues": {":v": {"S": value}},
        }
        if spec.partition.name != attribute:
            # the first index partitioned on the attribute (all project every attribute)
            request["IndexName"] = next(
                index.name for index in spec.indexes if index.partition.name == attribute
            )
        deserializer = TypeDeserializer()
        items: list[Item] = []
        for page in self._client.get_paginator("query").paginate(**request):
            items.extend(
                {name: deserializer.deserialize(typed) for name, typed in item.items()}
                for item in page["Items"]
            )
        return items
