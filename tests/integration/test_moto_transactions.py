"""The tests' moto puts back what a cancelled TransactWriteItems changed, and only that
(tests/moto_transactions.py): every store test on DynamoDB leans on it."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

TABLE = "moto-transactions"


@pytest.fixture
def table(moto_dynamodb_client: Any) -> Any:
    moto_dynamodb_client.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for sk in ("kept", "updated", "deleted", "replaced"):
        moto_dynamodb_client.put_item(
            TableName=TABLE, Item={"pk": {"S": "run"}, "sk": {"S": sk}, "n": {"N": "1"}}
        )
    return moto_dynamodb_client


def _items(client: Any) -> list[dict[str, Any]]:
    answer = client.query(
        TableName=TABLE,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "run"}},
        ConsistentRead=True,
    )
    return sorted(answer["Items"], key=lambda item: item["sk"]["S"])


def _key(sk: str) -> dict[str, Any]:
    return {"pk": {"S": "run"}, "sk": {"S": sk}}


def _writes_then(last: dict[str, Any]) -> list[dict[str, Any]]:
    """A put of a new item, an update, a delete and a replacing put, then `last`."""
    return [
        {"Put": {"TableName": TABLE, "Item": _key("new") | {"n": {"N": "9"}}}},
        {
            "Update": {
                "TableName": TABLE,
                "Key": _key("updated"),
                "UpdateExpression": "SET n = n + :one, added = :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}},
            }
        },
        {"Delete": {"TableName": TABLE, "Key": _key("deleted")}},
        {"Put": {"TableName": TABLE, "Item": _key("replaced") | {"other": {"S": "x"}}}},
        last,
    ]


def test_a_transaction_cancelled_by_its_last_condition_leaves_every_item_as_it_was(
    table: Any,
) -> None:
    before = _items(table)
    refused = {
        "ConditionCheck": {
            "TableName": TABLE,
            "Key": _key("kept"),
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }

    with pytest.raises(ClientError) as raised:
        table.transact_write_items(TransactItems=_writes_then(refused))

    assert raised.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert _items(table) == before


def test_a_transaction_naming_one_item_twice_is_refused_and_leaves_it_as_it_was(
    table: Any,
) -> None:
    before = _items(table)
    again = {"Delete": {"TableName": TABLE, "Key": _key("updated")}}

    with pytest.raises(ClientError):
        table.transact_write_items(TransactItems=_writes_then(again))

    assert _items(table) == before


def test_a_transaction_that_passes_makes_all_its_writes(table: Any) -> None:
    kept = {
        "ConditionCheck": {
            "TableName": TABLE,
            "Key": _key("kept"),
            "ConditionExpression": "n = :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
    }

    table.transact_write_items(TransactItems=_writes_then(kept))

    items = {item["sk"]["S"]: item for item in _items(table)}
    assert sorted(items) == ["kept", "new", "replaced", "updated"]
    assert (items["updated"]["n"], items["updated"]["added"]) == ({"N": "2"}, {"N": "1"})
    assert "n" not in items["replaced"] and items["replaced"]["other"] == {"S": "x"}
