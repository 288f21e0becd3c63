"""The tests' moto puts back what a cancelled TransactWriteItems changed, and only that
(tests/moto_transactions.py): every store test on DynamoDB leans on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from botocore.exceptions import ClientError


@dataclass(frozen=True)
class Table:
    """One of wfx's tables with a sort key, its items all under one partition key value."""

    client: Any
    name: str
    hash_name: str
    range_name: str

    def key(self, sort: str) -> dict[str, Any]:
        return {self.hash_name: {"S": "run"}, self.range_name: {"S": sort}}

    def items(self) -> list[dict[str, Any]]:
        answer = self.client.query(
            TableName=self.name,
            KeyConditionExpression="#h = :h",
            ExpressionAttributeNames={"#h": self.hash_name},
            ExpressionAttributeValues={":h": {"S": "run"}},
            ConsistentRead=True,
        )
        return sorted(answer["Items"], key=lambda item: item[self.range_name]["S"])


@pytest.fixture
def table(moto_dynamodb_tables: Any) -> Table:
    client = moto_dynamodb_tables
    for name in client.list_tables()["TableNames"]:
        schema = client.describe_table(TableName=name)["Table"]
        types = {a["AttributeName"]: a["AttributeType"] for a in schema["AttributeDefinitions"]}
        keys = {k["KeyType"]: k["AttributeName"] for k in schema["KeySchema"]}
        if "RANGE" in keys and types[keys["HASH"]] == types[keys["RANGE"]] == "S":
            found = Table(client, name, keys["HASH"], keys["RANGE"])
            break
    else:
        raise AssertionError("no table keyed by two strings")
    for sort in ("kept", "updated", "deleted", "replaced"):
        client.put_item(TableName=found.name, Item=found.key(sort) | {"n": {"N": "1"}})
    return found


def _writes_then(table: Table, last: dict[str, Any]) -> list[dict[str, Any]]:
    """A put of a new item, an update, a delete and a replacing put, then `last`."""
    return [
        {"Put": {"TableName": table.name, "Item": table.key("new") | {"n": {"N": "9"}}}},
        {
            "Update": {
                "TableName": table.name,
                "Key": table.key("updated"),
                "UpdateExpression": "SET n = n + :one, added = :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}},
            }
        },
        {"Delete": {"TableName": table.name, "Key": table.key("deleted")}},
        {"Put": {"TableName": table.name, "Item": table.key("replaced") | {"other": {"S": "x"}}}},
        last,
    ]


def _kept_holds(table: Table, n: int) -> dict[str, Any]:
    """A check that the item "kept" holds n (it holds 1)."""
    condition = {
        "ConditionExpression": "n = :n",
        "ExpressionAttributeValues": {":n": {"N": str(n)}},
    }
    return {"ConditionCheck": {"TableName": table.name, "Key": table.key("kept")} | condition}


def test_a_transaction_cancelled_by_its_last_condition_leaves_every_item_as_it_was(
    table: Table,
) -> None:
    before = table.items()
    refused = _kept_holds(table, n=2)

    with pytest.raises(ClientError) as raised:
        table.client.transact_write_items(TransactItems=_writes_then(table, refused))

    assert raised.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert table.items() == before


def test_a_transaction_naming_one_item_twice_is_refused_and_leaves_it_as_it_was(
    table: Table,
) -> None:
    before = table.items()
    again = {"Delete": {"TableName": table.name, "Key": table.key("updated")}}

    with pytest.raises(ClientError):
        table.client.transact_write_items(TransactItems=_writes_then(table, again))

    assert table.items() == before


def test_a_transaction_that_passes_makes_all_its_writes(table: Table) -> None:
    kept = _kept_holds(table, n=1)

    table.client.transact_write_items(TransactItems=_writes_then(table, kept))

    items = {item[table.range_name]["S"]: item for item in table.items()}
    assert sorted(items) == ["kept", "new", "replaced", "updated"]
    assert (items["updated"]["n"], items["updated"]["added"]) == ({"N": "2"}, {"N": "1"})
    assert "n" not in items["replaced"] and items["replaced"]["other"] == {"S": "x"}
