"""WorkflowCatalog and AssetCatalog on wfx's own DynamoDB tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from adapters.dynamodb.codec import check_item, from_wire, to_wire
from adapters.dynamodb.requests import batch_put, get_item, query_partition, unique_puts
from adapters.dynamodb.schema import create_tables
from adapters.records import (
    build_asset_file_record,
    build_workflow_version_record,
    join_key,
    parse_asset_file_record,
    parse_workflow_version_record,
)
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from domain.assets import AssetFile
from domain.errors import WorkflowNotFoundError
from domain.workflow import WorkflowVersion

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class DynamoDbWorkflowCatalog:
    """Published workflow versions, one item per version under the workflow's key."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._table_name = tables.get_table_name(ResourceKeys.WORKFLOW_VERSIONS)
        self._spec = TABLE_SPECS[ResourceKeys.WORKFLOW_VERSIONS]

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)

    def add_version(self, version: WorkflowVersion) -> bool:
        item = build_workflow_version_record(version)
        check_item(self._table_name, self._spec, item)
        try:
            # A version never changes once stored: the put only lands on a free key.
            self._client.put_item(
                TableName=self._table_name,
                Item=to_wire(item),
                ConditionExpression="attribute_not_exists(#pk)",
                ExpressionAttributeNames={"#pk": self._spec.partition.name},
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion | None:
        response = self._client.query(
            TableName=self._table_name,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": self._spec.partition.name},
            ExpressionAttributeValues={":pk": {"S": join_key(database_id, workflow_id)}},
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        )
        items = response["Items"]
        return parse_workflow_version_record(from_wire(items[0])) if items else None

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion:
        assert self._spec.sort is not None  # the version number is the sort key
        key = {
            self._spec.partition.name: join_key(database_id, workflow_id),
            self._spec.sort.name: version,
        }
        item = get_item(self._client, self._table_name, key)
        if item is None:
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            )
        return parse_workflow_version_record(item)

    def record_deployment(
        self, database_id: str, workflow_id: str, version: int, state_machine_arn: str
    ) -> WorkflowVersion:
        assert self._spec.sort is not None
        key = {
            self._spec.partition.name: join_key(database_id, workflow_id),
            self._spec.sort.name: version,
        }
        try:
            response = self._client.update_item(
                TableName=self._table_name,
                Key=to_wire(key),
                UpdateExpression="SET #arn = :arn",
                ConditionExpression="attribute_exists(#pk)",
                ExpressionAttributeNames={
                    "#arn": "stateMachineArn",
                    "#pk": self._spec.partition.name,
                },
                ExpressionAttributeValues={":arn": {"S": state_machine_arn}},
                ReturnValues="ALL_NEW",
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            ) from exc
        return parse_workflow_version_record(from_wire(response["Attributes"]))


class DynamoDbAssetCatalog:
    """The current version of every asset file, one item per file under the asset's key."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._table_name = tables.get_table_name(ResourceKeys.ASSET_FILES)
        self._spec = TABLE_SPECS[ResourceKeys.ASSET_FILES]

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)

    def put_files(self, files: Sequence[AssetFile]) -> None:
        puts = unique_puts(
            [(self._table_name, self._spec, build_asset_file_record(f)) for f in files]
        )
        batch_put(self._client, [(table_name, to_wire(item)) for table_name, _, item in puts])

    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        if not database_id or not asset_id:
            return []
        asset_key = join_key(database_id, asset_id)
        rows = query_partition(self._client, self._table_name, self._spec.partition.name, asset_key)
        return [parse_asset_file_record(row) for row in rows]
