"""RunArchive on DynamoDB: a run's partitions by Query, items put only where their key is free."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from adapters.dynamodb.codec import check_item, from_wire, to_wire
from adapters.dynamodb.requests import query_pages, query_partition
from adapters.records import ALL_LIST_PARTITION, Item, format_table_date
from adapters.run_archive import EXECUTION_ID, RunArchiveRows
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from application.ports.files import ObjectStore

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_STEPS_INDEX = "PipelineExecByWorkflowExecGSI"
_DATE_INDEX = "WorkflowExecutionsByDateGSI"


class DynamoDbRunArchive(RunArchiveRows):
    def __init__(
        self, client: DynamoDBClient, tables: TableNames, objects: ObjectStore | None = None
    ) -> None:
        super().__init__(objects)
        self._client = client
        self._tables = tables

    def list_run_ids(self, since: datetime | None) -> list[str]:
        request: dict[str, Any] = {
            "TableName": self._tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS),
            "IndexName": _DATE_INDEX,
            "KeyConditionExpression": "#pk = :pk AND #start >= :since",
            "ExpressionAttributeNames": {
                "#pk": "allListPartition",
                "#start": "executionStartDate",
                "#run": EXECUTION_ID,
                "#workflow": "workflowDatabaseId:workflowId",
            },
            "ExpressionAttributeValues": {
                ":pk": {"S": ALL_LIST_PARTITION},
                ":since": {"S": format_table_date(since) if since is not None else " "},
            },
            "ProjectionExpression": "#run, #start, #workflow",
        }
        found = [
            (item["executionStartDate"], item[EXECUTION_ID])
            for item in query_pages(self._client, **request)
        ]
        return [run_id for _, run_id in sorted(found)]

    def _partition(self, table: ResourceKeys, value: str) -> list[Item]:
        name = self._tables.get_table_name(table)
        return query_partition(self._client, name, TABLE_SPECS[table].partition.name, value)

    def _steps(self, workflow_execution_id: str) -> list[Item]:
        name = self._tables.get_table_name(ResourceKeys.PIPELINE_EXECUTIONS)
        # a GSI read, eventually consistent: DynamoDB offers nothing stronger for this lookup
        steps = query_partition(
            self._client, name, EXECUTION_ID, workflow_execution_id, index_name=_STEPS_INDEX
        )
        return sorted(steps, key=lambda step: str(step["pipelineExecutionId"]))

    def _get(self, table: ResourceKeys, key: Mapping[str, Any]) -> Item | None:
        response = self._client.get_item(
            TableName=self._tables.get_table_name(table), Key=to_wire(key), ConsistentRead=True
        )
        item = response.get("Item")
        return None if item is None else from_wire(item)

    def _put_if_absent(self, table: ResourceKeys, item: Mapping[str, Any]) -> bool:
        from botocore.exceptions import ClientError

        name, spec = self._tables.get_table_name(table), TABLE_SPECS[table]
        check_item(name, spec, item)
        try:
            self._client.put_item(
                TableName=name,
                Item=to_wire(item),
                ConditionExpression="attribute_not_exists(#pk)",
                ExpressionAttributeNames={"#pk": spec.partition.name},
            )
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            return False
        return True
