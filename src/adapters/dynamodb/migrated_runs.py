"""MigratedRuns on DynamoDB: a migrated run's rows in one TransactWriteItems, the main row last
and conditional on its absence, so a run is written whole or not at all."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.dynamodb.codec import check_item, to_wire
from adapters.dynamodb.requests import CONDITION_FAILED, cancellation_codes
from adapters.migrated_rows import main_row, supporting_rows
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from domain.migration import MigratedRun

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class DynamoDbMigratedRuns:
    """Writes the V1 migration's runs into the execution tables."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._tables = tables

    def has_run(self, workflow_execution_id: str) -> bool:
        # the main table is keyed by id and workflow; its id alone names a run
        response = self._client.query(
            TableName=self._tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS),
            KeyConditionExpression="#id = :id",
            ExpressionAttributeNames={"#id": "workflowExecutionId"},
            ExpressionAttributeValues={":id": {"S": workflow_execution_id}},
            ProjectionExpression="#id",
            Limit=1,
            ConsistentRead=True,
        )
        return bool(response.get("Items"))

    def add_migrated(self, run: MigratedRun) -> bool:
        actions: list[Any] = []
        for key, item in supporting_rows(run):
            name = self._tables.get_table_name(key)
            check_item(name, TABLE_SPECS[key], item)
            actions.append({"Put": {"TableName": name, "Item": to_wire(item)}})
        main_name = self._tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)
        main = main_row(run)
        check_item(main_name, TABLE_SPECS[ResourceKeys.WORKFLOW_EXECUTIONS], main)
        actions.append(
            {
                "Put": {
                    "TableName": main_name,
                    "Item": to_wire(main),
                    "ConditionExpression": "attribute_not_exists(#id)",
                    "ExpressionAttributeNames": {"#id": "workflowExecutionId"},
                }
            }
        )
        try:
            self._client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if cancellation_codes(exc)[-1:] == [CONDITION_FAILED]:
                return False
            raise
        return True
