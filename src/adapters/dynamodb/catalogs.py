"""WorkflowCatalog and AssetCatalog on wfx's own DynamoDB tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.catalog_paging import (
    check_limit,
    decode_version_token,
    decode_workflow_token,
    encode_version_token,
    encode_workflow_token,
)
from adapters.dynamodb.codec import Item, check_item, from_wire, to_wire
from adapters.dynamodb.requests import batch_put, get_item, query_partition, unique_puts
from adapters.dynamodb.schema import create_tables
from adapters.records import (
    WORKFLOW_LIST_PARTITION,
    build_asset_file_record,
    build_workflow_version_record,
    join_key,
    parse_asset_file_record,
    parse_workflow_version_record,
    workflow_list_sort_key,
)
from adapters.tables import TABLE_SPECS, WORKFLOW_LIST_INDEX, ResourceKeys, TableNames
from domain.assets import AssetFile
from domain.errors import WorkflowNotFoundError
from domain.paging import Page
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
        return self._latest_by_key(join_key(database_id, workflow_id))

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

    def list_versions(
        self, database_id: str, workflow_id: str, limit: int, starting_token: str | None
    ) -> Page[WorkflowVersion]:
        check_limit(limit)
        assert self._spec.sort is not None  # the version number is the sort key
        workflow_key = join_key(database_id, workflow_id)
        request: dict[str, Any] = {
            "TableName": self._table_name,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": self._spec.partition.name},
            "ExpressionAttributeValues": {":pk": {"S": workflow_key}},
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }
        if starting_token is not None:
            after = decode_version_token(starting_token, database_id, workflow_id)
            start = {self._spec.partition.name: workflow_key, self._spec.sort.name: after}
            request["ExclusiveStartKey"] = to_wire(start)
        versions = [parse_workflow_version_record(item) for item in self._first(request, limit)]
        page = versions[:limit]
        next_token = None
        if len(versions) > limit:
            next_token = encode_version_token(database_id, workflow_id, page[-1].version)
        return Page(items=tuple(page), next_token=next_token)

    def list_workflows(
        self, limit: int, starting_token: str | None, database_id: str | None = None
    ) -> Page[WorkflowVersion]:
        check_limit(limit)
        index = self._spec.index(WORKFLOW_LIST_INDEX)
        assert index.sort is not None
        names = {"#pk": index.partition.name, "#key": self._spec.partition.name}
        values: dict[str, Any] = {":pk": {"S": WORKFLOW_LIST_PARTITION}}
        condition = "#pk = :pk"
        if database_id is not None:
            # The separator ends the prefix, so database "demo" never matches "demo2"'s items.
            condition += " AND begins_with(#sk, :db)"
            names["#sk"] = index.sort.name
            values[":db"] = {"S": workflow_list_sort_key(database_id)}
        request: dict[str, Any] = {
            "TableName": self._table_name,
            "IndexName": index.name,
            "KeyConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            # Only the workflow key: the page's items are read again at their latest version.
            "ProjectionExpression": "#key",
        }
        if starting_token is not None:
            last_database, last_workflow = decode_workflow_token(starting_token, database_id)
            request["ExclusiveStartKey"] = to_wire(
                self._list_index_key(last_database, last_workflow)
            )
        keys = [str(item[self._spec.partition.name]) for item in self._first(request, limit)]
        latest = [self._latest_by_key(key) for key in keys[:limit]]
        next_token = None
        if len(keys) > limit:
            # Ids hold no ":" (domain.workflow.Identifier), so the key splits back unambiguously.
            next_token = encode_workflow_token(*keys[limit - 1].split(":", 1))
        return Page(items=tuple(v for v in latest if v is not None), next_token=next_token)

    def _list_index_key(self, database_id: str, workflow_id: str) -> Item:
        """The full key (table and index) of a workflow's item in the list index: its version 1."""
        assert self._spec.sort is not None
        index = self._spec.index(WORKFLOW_LIST_INDEX)
        assert index.sort is not None
        return {
            self._spec.partition.name: join_key(database_id, workflow_id),
            self._spec.sort.name: 1,
            index.partition.name: WORKFLOW_LIST_PARTITION,
            index.sort.name: workflow_list_sort_key(database_id, workflow_id),
        }

    def _first(self, request: dict[str, Any], limit: int) -> list[Item]:
        """Up to limit + 1 items of a Query (one past the page says another page exists),
        following LastEvaluatedKey when the 1 MB response cap cuts a page short."""
        found: list[Item] = []
        while len(found) <= limit:
            response = self._client.query(**request, Limit=limit + 1 - len(found))
            found.extend(from_wire(item) for item in response["Items"])
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                break
            request = {**request, "ExclusiveStartKey": last_key}
        return found

    def _latest_by_key(self, workflow_key: str) -> WorkflowVersion | None:
        # No batch read finds "the highest sort key" of several partitions: one Query each.
        response = self._client.query(
            TableName=self._table_name,
            KeyConditionExpression="#pk = :pk",
            ExpressionAttributeNames={"#pk": self._spec.partition.name},
            ExpressionAttributeValues={":pk": {"S": workflow_key}},
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        )
        items = response["Items"]
        return parse_workflow_version_record(from_wire(items[0])) if items else None

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
