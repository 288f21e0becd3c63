"""The DynamoDB request patterns every adapter here repeats: batches, retries, paged queries."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adapters.dynamodb.codec import Item, WireItem, check_item, from_wire, key_of, to_wire
from adapters.tables import TableSpec

if TYPE_CHECKING:
    from botocore.exceptions import ClientError
    from mypy_boto3_dynamodb import DynamoDBClient

BATCH_WRITE_LIMIT = 25  # BatchWriteItem's per-request cap; moto accepts more, AWS does not
BATCH_GET_LIMIT = 100
_MAX_ATTEMPTS = 8
_FIRST_BACKOFF_SECONDS = 0.05
_MAX_BACKOFF_SECONDS = 2.0
CONDITION_FAILED = "ConditionalCheckFailed"  # an action's cancellation code in a transaction


class UnprocessedItemsError(RuntimeError):
    """DynamoDB kept throttling part of a batch after every retry."""


def _backoff(attempt: int) -> None:
    time.sleep(min(_MAX_BACKOFF_SECONDS, _FIRST_BACKOFF_SECONDS * 2**attempt))


def unique_puts(
    puts: Sequence[tuple[str, TableSpec, Item]],
) -> list[tuple[str, TableSpec, Item]]:
    """Guard every item, and keep the last of several puts of one key.

    A batch or a transaction refuses two operations on one item; writing a row twice is a put
    that leaves one row, so the later value wins here as it would in two separate requests.
    """
    by_key: dict[tuple[str, tuple[Any, ...]], tuple[str, TableSpec, Item]] = {}
    for table_name, spec, item in puts:
        check_item(table_name, spec, item)
        by_key[(table_name, tuple(key_of(spec, item).values()))] = (table_name, spec, item)
    return list(by_key.values())


def batch_put(client: DynamoDBClient, puts: Sequence[tuple[str, WireItem]]) -> None:
    """Put wire items with BatchWriteItem, 25 to a request, retrying what comes back unprocessed."""
    _batch_write(client, [(table, {"PutRequest": {"Item": item}}) for table, item in puts])


def batch_delete(client: DynamoDBClient, keys: Sequence[tuple[str, WireItem]]) -> None:
    """Delete items by their wire keys with BatchWriteItem, 25 to a request, retrying what comes
    back unprocessed; a key with no item is no error."""
    _batch_write(client, [(table, {"DeleteRequest": {"Key": key}}) for table, key in keys])


def _batch_write(client: DynamoDBClient, writes: Sequence[tuple[str, dict[str, Any]]]) -> None:
    for start in range(0, len(writes), BATCH_WRITE_LIMIT):
        request: dict[str, list[Any]] = {}
        for table_name, write in writes[start : start + BATCH_WRITE_LIMIT]:
            request.setdefault(table_name, []).append(write)
        _write_until_processed(client, request)


def _write_until_processed(client: DynamoDBClient, request: Mapping[str, Any]) -> None:
    pending = request
    for attempt in range(_MAX_ATTEMPTS):
        pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        if not pending:
            return
        _backoff(attempt)
    count = sum(len(requests) for requests in pending.values())
    raise UnprocessedItemsError(f"BatchWriteItem: {count} items still unprocessed")


def batch_get(
    client: DynamoDBClient, table_name: str, keys: Sequence[Mapping[str, Any]]
) -> list[Item]:
    """Read items by key, 100 to a request, consistently; missing keys are simply absent."""
    return batch_get_tables(client, {table_name: keys})[table_name]


def batch_get_tables(
    client: DynamoDBClient, keys: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, list[Item]]:
    """Read items of several tables by key in as few BatchGetItem requests as the 100-key
    limit allows, consistently; per table, the items found (missing keys are simply absent)."""
    wanted = [
        (table_name, key)
        for table_name, table_keys in keys.items()
        for key in {tuple(sorted(key.items())): key for key in table_keys}.values()
    ]
    found: dict[str, list[Item]] = {table_name: [] for table_name in keys}
    for start in range(0, len(wanted), BATCH_GET_LIMIT):
        chunk: dict[str, Any] = {}
        for table_name, key in wanted[start : start + BATCH_GET_LIMIT]:
            request = chunk.setdefault(table_name, {"Keys": [], "ConsistentRead": True})
            request["Keys"].append(to_wire(key))
        pending: Mapping[str, Any] = chunk
        for attempt in range(_MAX_ATTEMPTS):
            response = client.batch_get_item(RequestItems=pending)
            for table_name, items in response["Responses"].items():
                found[table_name].extend(from_wire(item) for item in items)
            pending = response.get("UnprocessedKeys") or {}
            if not pending:
                break
            _backoff(attempt)
        else:
            raise UnprocessedItemsError(f"BatchGetItem: keys of {', '.join(pending)} unprocessed")
    return found


def query_pages(client: DynamoDBClient, **request: Any) -> Iterator[Item]:
    """Every item a Query matches, following LastEvaluatedKey to the end."""
    while True:
        response = client.query(**request)
        yield from (from_wire(item) for item in response["Items"])
        last_key = response.get("LastEvaluatedKey")
        if not last_key:
            return
        request = {**request, "ExclusiveStartKey": last_key}


def query_partition(
    client: DynamoDBClient,
    table_name: str,
    attribute: str,
    value: str,
    index_name: str | None = None,
) -> list[Item]:
    """All items of one partition: consistent on the table, eventually consistent on an index."""
    return list(query_pages(client, **partition_query(table_name, attribute, value, index_name)))


def partition_query(
    table_name: str,
    attribute: str,
    value: str,
    index_name: str | None = None,
    newest_first: bool = False,
) -> dict[str, Any]:
    """The Query request of one partition (a string key): consistent on the table, eventually
    consistent on an index (a GSI refuses ConsistentRead); `newest_first`: by sort key descending.
    A new request each call: a caller adds a sort key condition to its expressions."""
    request: dict[str, Any] = {
        "TableName": table_name,
        "KeyConditionExpression": "#pk = :pk",
        "ExpressionAttributeNames": {"#pk": attribute},
        "ExpressionAttributeValues": {":pk": {"S": value}},
    }
    if index_name is None:
        request["ConsistentRead"] = True
    else:
        request["IndexName"] = index_name
    if newest_first:
        request["ScanIndexForward"] = False
    return request


def query_up_to(client: DynamoDBClient, request: Mapping[str, Any], count: int) -> list[Item]:
    """Up to `count` items of a Query, following LastEvaluatedKey when the 1 MB response cap
    cuts a page short (a list asks one past its page, which says another page exists)."""
    found: list[Item] = []
    while len(found) < count:
        response = client.query(**request, Limit=count - len(found))
        found.extend(from_wire(item) for item in response["Items"])
        last_key = response.get("LastEvaluatedKey")
        if not last_key:
            break
        request = {**request, "ExclusiveStartKey": last_key}
    return found


def get_item(client: DynamoDBClient, table_name: str, key: Mapping[str, Any]) -> Item | None:
    response = client.get_item(TableName=table_name, Key=to_wire(key), ConsistentRead=True)
    item = response.get("Item")
    return from_wire(item) if item else None


def query_first(
    client: DynamoDBClient,
    table_name: str,
    partition: tuple[str, str],
    sort_attribute: str,
    after: str | None,
    limit: int,
) -> list[Item]:
    """The first `limit` items of one partition by (string) sort key past `after`, consistent.

    `Limit` caps each request at what is still wanted, so no more is read than is returned
    (a response may still stop early at 1 MB: then the next page is asked for the rest).
    """
    request = partition_query(table_name, *partition)
    if after is not None:
        request["KeyConditionExpression"] += " AND #sk > :after"
        request["ExpressionAttributeNames"]["#sk"] = sort_attribute
        request["ExpressionAttributeValues"][":after"] = {"S": after}
    return query_up_to(client, request, limit)


def cancellation_codes(error: ClientError) -> list[str]:
    """Each action's code in a cancelled TransactWriteItems, in the actions' order ("None" for
    one that did not cancel it, CONDITION_FAILED for one whose condition failed); [] for any
    other error."""
    if error.response.get("Error", {}).get("Code") != "TransactionCanceledException":
        return []
    return [str(reason.get("Code")) for reason in error.response.get("CancellationReasons", [])]
