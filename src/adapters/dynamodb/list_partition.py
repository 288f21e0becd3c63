"""ListPartitionBackfill on DynamoDB: a paged Scan of the main table, and conditional updates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adapters.dynamodb.codec import from_wire, to_wire
from adapters.list_partition import (
    EXECUTION_ID,
    PARTITION,
    PARTITION_VALUE,
    WORKFLOW_KEY,
    decode_cursor,
    encode_cursor,
)
from adapters.tables import ResourceKeys, TableNames
from application.ports.migration import MainRowKey, MainRowPage

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class DynamoDbListPartitionBackfill:
    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._table = tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)

    def scan_page(self, cursor: str | None, limit: int) -> MainRowPage:
        # The product's only Scan (seed 000 lists through indexes): only the keys and the
        # partition come back, and a page is `limit` rows, so a large table is read in bounded
        # steps whose cursor resumes it.
        request: dict[str, Any] = {
            "TableName": self._table,
            "Limit": limit,
            "ProjectionExpression": "#run, #workflow, #partition",
            "ExpressionAttributeNames": {
                "#run": EXECUTION_ID,
                "#workflow": WORKFLOW_KEY,
                "#partition": PARTITION,
            },
            "ConsistentRead": True,
        }
        if cursor is not None:
            after = decode_cursor(cursor)
            request["ExclusiveStartKey"] = to_wire(
                {EXECUTION_ID: after.workflow_execution_id, WORKFLOW_KEY: after.workflow_key}
            )
        response = self._client.scan(**request)
        items = [from_wire(item) for item in response["Items"]]
        last = response.get("LastEvaluatedKey")
        next_cursor = None
        if last:
            key = from_wire(last)
            next_cursor = encode_cursor(MainRowKey(key[EXECUTION_ID], key[WORKFLOW_KEY]))
        return MainRowPage(
            scanned=len(items),
            unstamped=tuple(
                MainRowKey(item[EXECUTION_ID], item[WORKFLOW_KEY])
                for item in items
                if PARTITION not in item
            ),
            next_cursor=next_cursor,
        )

    def stamp(self, row: MainRowKey) -> bool:
        from botocore.exceptions import ClientError

        try:
            self._client.update_item(
                TableName=self._table,
                Key=to_wire(
                    {EXECUTION_ID: row.workflow_execution_id, WORKFLOW_KEY: row.workflow_key}
                ),
                UpdateExpression="SET #partition = :value",
                # the row must still exist (an update would otherwise create a bare one) and
                # still lack the partition: a concurrent writer's row is never overwritten
                ConditionExpression="attribute_exists(#run) AND attribute_not_exists(#partition)",
                ExpressionAttributeNames={"#partition": PARTITION, "#run": EXECUTION_ID},
                ExpressionAttributeValues={":value": {"S": PARTITION_VALUE}},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            return False
        return True
