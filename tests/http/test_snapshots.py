"""The snapshot the refusal tests compare sees every write on DynamoDB (it reads moto's model)."""

from __future__ import annotations

from typing import Any

from tests.http.snapshots import _dynamodb_rows


def test_a_new_item_and_a_replaced_one_each_change_the_snapshot(moto_dynamodb_tables: Any) -> None:
    client = moto_dynamodb_tables
    before = _dynamodb_rows(client)
    assert sorted(before) == sorted(client.list_tables()["TableNames"])
    name = sorted(before)[0]
    schema = client.describe_table(TableName=name)["Table"]["KeySchema"]
    key = {part["AttributeName"]: {"S": "x"} for part in schema}

    client.put_item(TableName=name, Item=key | {"v": {"S": "1"}})
    added = _dynamodb_rows(client)
    client.put_item(TableName=name, Item=key | {"v": {"S": "2"}})

    assert len(added[name]) == len(before[name]) + 1
    assert _dynamodb_rows(client) not in (before, added)
