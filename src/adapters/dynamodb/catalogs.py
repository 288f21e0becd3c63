"""WorkflowCatalog and AssetCatalog on wfx's own DynamoDB tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.catalog_paging import (
    MAX_FILE_PAGE_SIZE,
    check_limit,
    decode_file_token,
    decode_version_token,
    encode_file_token,
    encode_version_token,
    page_of,
)
from adapters.dynamodb.codec import Item, from_wire, to_wire
from adapters.dynamodb.requests import (
    batch_get,
    get_item,
    partition_query,
    query_first,
    query_partition,
    query_up_to,
    unique_puts,
)
from adapters.dynamodb.schema import create_tables
from adapters.dynamodb.store_base import error_code
from adapters.records import (
    build_asset_file_record,
    join_key,
    parse_asset_file_record,
    parse_workflow_version_record,
    step_definitions_key,
)
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from domain.assets import AssetFile
from domain.errors import VersionImmutableError, WorkflowNotFoundError
from domain.paging import Page
from domain.workflow import WorkflowVersion

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

_MODIFIED_AT = "modifiedAt"
# TransactWriteItems' caps: 100 actions, 4 MB (the size below is an estimate: kept well under)
_TRANSACTION_ITEMS = 100
_TRANSACTION_BYTES = 3_500_000


class DynamoDbWorkflowCatalog:
    """Published workflow versions, one item per version under the workflow's key, each with its
    step definitions' items; written by DynamoDbWorkflowDefinitions.publish only."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._table_name = tables.get_table_name(ResourceKeys.WORKFLOW_VERSIONS)
        self._spec = TABLE_SPECS[ResourceKeys.WORKFLOW_VERSIONS]
        self._steps_table = tables.get_table_name(ResourceKeys.STEP_DEFINITIONS)
        self._steps_spec = TABLE_SPECS[ResourceKeys.STEP_DEFINITIONS]

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)

    def _with_steps(self, items: Sequence[Item]) -> list[WorkflowVersion]:
        """The versions of these items, each with its steps: their keys are known from each
        version's stepCount, so one BatchGetItem (100 keys a request) reads them all."""
        partition, sort = self._steps_spec.partition.name, self._steps_spec.sort
        assert sort is not None  # the step index
        keys = [
            {partition: _steps_key(item), sort.name: index}
            for item in items
            for index in range(int(item["stepCount"]))
        ]
        by_version: dict[str, list[Item]] = {_steps_key(item): [] for item in items}
        for step in batch_get(self._client, self._steps_table, keys):
            by_version[step[partition]].append(step)
        return [parse_workflow_version_record(item, by_version[_steps_key(item)]) for item in items]

    def _key(self, database_id: str, workflow_id: str, version: int) -> Item:
        assert self._spec.sort is not None  # the version number is the sort key
        return {
            self._spec.partition.name: join_key(database_id, workflow_id),
            self._spec.sort.name: version,
        }

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion | None:
        request = self._versions_request(join_key(database_id, workflow_id))
        items = query_up_to(self._client, request, 1)
        return self._with_steps(items)[0] if items else None

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion:
        item = get_item(
            self._client, self._table_name, self._key(database_id, workflow_id, version)
        )
        if item is None:
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            )
        return self._with_steps([item])[0]

    def _versions_request(self, workflow_key: str) -> dict[str, Any]:
        """A workflow's versions, newest first, consistently."""
        return partition_query(
            self._table_name, self._spec.partition.name, workflow_key, newest_first=True
        )

    def list_versions(
        self, database_id: str, workflow_id: str, limit: int, starting_token: str | None
    ) -> Page[WorkflowVersion]:
        check_limit(limit)
        request = self._versions_request(join_key(database_id, workflow_id))
        if starting_token is not None:
            after = decode_version_token(starting_token, database_id, workflow_id)
            request["ExclusiveStartKey"] = to_wire(self._key(database_id, workflow_id, after))
        items = query_up_to(self._client, request, limit + 1)
        return page_of(
            self._with_steps(items[:limit]),
            len(items) > limit,
            lambda last: encode_version_token(database_id, workflow_id, last.version),
        )

    def record_deployment(
        self, database_id: str, workflow_id: str, version: int, state_machine_arn: str
    ) -> WorkflowVersion:
        key = self._key(database_id, workflow_id, version)
        try:
            response = self._client.update_item(
                TableName=self._table_name,
                Key=to_wire(key),
                UpdateExpression="SET #arn = :arn",
                # set once: a redeploy writes the same ARN, nothing else of a version changes
                ConditionExpression="attribute_exists(#pk) AND "
                "(attribute_not_exists(#arn) OR #arn = :arn)",
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
            if get_item(self._client, self._table_name, key) is None:
                raise WorkflowNotFoundError(
                    f"workflow {database_id}/{workflow_id} version {version} not found"
                ) from exc
            raise VersionImmutableError(
                f"workflow {database_id}/{workflow_id} version {version} is deployed already "
                "as another state machine; a published version never changes"
            ) from exc
        return self._with_steps([from_wire(response["Attributes"])])[0]


def _steps_key(version_item: Item) -> str:
    return step_definitions_key(
        version_item["workflowDatabaseId"],
        version_item["workflowId"],
        int(version_item["workflowVersion"]),
    )


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
        """Each row on condition no later `modifiedAt` is stored (AssetCatalog.put_files). Up to
        100 rows a transaction; one refused goes row by row, the refused rows left as stored."""
        puts = unique_puts(
            [(self._table_name, self._spec, build_asset_file_record(f)) for f in files]
        )
        chunk: list[dict[str, Any]] = []
        size = 0
        for _, _, item in puts:
            put = self._put_unless_newer(item)
            item_size = len(json.dumps(item, default=str).encode())
            if chunk and (
                len(chunk) == _TRANSACTION_ITEMS or size + item_size > _TRANSACTION_BYTES
            ):
                self._transact(chunk)
                chunk, size = [], 0
            chunk.append(put)
            size += item_size
        if chunk:
            self._transact(chunk)

    def _put_unless_newer(self, item: Item) -> dict[str, Any]:
        return {
            "TableName": self._table_name,
            "Item": to_wire(item),
            "ConditionExpression": "attribute_not_exists(#pk) OR #modified <= :modified",
            "ExpressionAttributeNames": {
                "#pk": self._spec.partition.name,
                "#modified": _MODIFIED_AT,
            },
            "ExpressionAttributeValues": {":modified": {"S": item[_MODIFIED_AT]}},
        }

    def _transact(self, puts: list[dict[str, Any]]) -> None:
        try:
            actions: list[Any] = [{"Put": put} for put in puts]
            self._client.transact_write_items(TransactItems=actions)
            return
        except ClientError as exc:
            if error_code(exc) != "TransactionCanceledException":
                raise
        for put in puts:  # one row newer already, or another write in flight: row by row
            try:
                self._client.put_item(**put)
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise

    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        if not database_id or not asset_id:
            return []
        asset_key = join_key(database_id, asset_id)
        rows = query_partition(self._client, self._table_name, self._spec.partition.name, asset_key)
        return [parse_asset_file_record(row) for row in rows]

    def list_files_page(
        self, database_id: str, asset_id: str, limit: int, starting_token: str | None
    ) -> Page[AssetFile]:
        check_limit(limit, MAX_FILE_PAGE_SIZE)
        after = (
            None
            if starting_token is None
            else decode_file_token(starting_token, database_id, asset_id)
        )
        assert self._spec.sort is not None  # the file key
        # one item past the page says whether another page exists
        rows = query_first(
            self._client,
            self._table_name,
            (self._spec.partition.name, join_key(database_id, asset_id)),
            self._spec.sort.name,
            after,
            limit + 1,
        )
        files = [parse_asset_file_record(row) for row in rows[:limit]]
        return page_of(
            files,
            len(rows) > limit,
            lambda last: encode_file_token(database_id, asset_id, last.file_key),
        )
