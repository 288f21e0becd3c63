"""`WorkflowDefinitions` on DynamoDB: a definition item per workflow, and the publishing
transaction (TransactWriteItems) that adds a version with its steps and moves the pointer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.catalog_paging import (
    check_limit,
    decode_workflow_token,
    encode_workflow_token,
    page_of,
)
from adapters.dynamodb.codec import Item, check_item, to_wire
from adapters.dynamodb.requests import (
    CONDITION_FAILED,
    cancellation_codes,
    get_item,
    query_up_to,
)
from adapters.dynamodb.schema import create_tables
from adapters.dynamodb.workflow_upgrade import upgrade_earlier_versions
from adapters.records import (
    WORKFLOW_LIST_PARTITION,
    build_step_definition_records,
    build_workflow_definition_record,
    build_workflow_version_record,
    join_key,
    parse_workflow_definition_record,
    workflow_list_sort_key,
)
from adapters.tables import TABLE_SPECS, WORKFLOW_LIST_INDEX, ResourceKeys, TableNames
from domain.paging import Page
from domain.workflow import WorkflowDefinition, WorkflowVersion

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class DynamoDbWorkflowDefinitions:
    """One item per workflow; a publish writes it with its version and step items, or nothing."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._definitions = tables.get_table_name(ResourceKeys.WORKFLOW_DEFINITIONS)
        self._spec = TABLE_SPECS[ResourceKeys.WORKFLOW_DEFINITIONS]

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)
        upgrade_earlier_versions(self._client, self._tables)

    def publish(self, definition: WorkflowDefinition, version: WorkflowVersion) -> bool:
        if not definition.points_at(version):  # a caller's mistake, not a store's refusal
            raise ValueError(f"{definition.workflow_key}: the definition must point at the version")
        actions: list[Any] = [
            self._pointer(definition, version.version),
            self._new(ResourceKeys.WORKFLOW_VERSIONS, build_workflow_version_record(version)),
            *(
                self._new(ResourceKeys.STEP_DEFINITIONS, item)
                for item in build_step_definition_records(version)
            ),
        ]
        try:
            self._client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if CONDITION_FAILED in cancellation_codes(exc):
                return False  # a rival publish took the number, or moved the pointer on
            raise
        return True

    def _pointer(self, definition: WorkflowDefinition, version: int) -> dict[str, Any]:
        """The definition's put: new for version 1, else only over the version before, so two
        publishes of one number cannot both land and the pointer never goes backwards."""
        item = build_workflow_definition_record(definition)
        check_item(self._definitions, self._spec, item)
        put: dict[str, Any] = {
            "TableName": self._definitions,
            "Item": to_wire(item),
            "ExpressionAttributeNames": {"#pk": self._spec.partition.name},
        }
        if version == 1:
            put["ConditionExpression"] = "attribute_not_exists(#pk)"
        else:
            put["ConditionExpression"] = "#latest = :previous"
            put["ExpressionAttributeNames"] = {"#latest": "latestVersion"}
            put["ExpressionAttributeValues"] = {":previous": {"N": str(version - 1)}}
        return {"Put": put}

    def _new(self, key: ResourceKeys, item: Item) -> dict[str, Any]:
        """A put that only lands on a free key: a stored version or step is never rewritten."""
        table_name, spec = self._tables.get_table_name(key), TABLE_SPECS[key]
        check_item(table_name, spec, item)
        return {
            "Put": {
                "TableName": table_name,
                "Item": to_wire(item),
                "ConditionExpression": "attribute_not_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": spec.partition.name},
            }
        }

    def find_definition(self, database_id: str, workflow_id: str) -> WorkflowDefinition | None:
        key = {self._spec.partition.name: join_key(database_id, workflow_id)}
        item = get_item(self._client, self._definitions, key)
        return parse_workflow_definition_record(item) if item else None

    def list_definitions(
        self, limit: int, starting_token: str | None, database_id: str | None = None
    ) -> Page[WorkflowDefinition]:
        check_limit(limit)
        index = self._spec.index(WORKFLOW_LIST_INDEX)
        assert index.sort is not None
        names = {"#pk": index.partition.name}
        values: dict[str, Any] = {":pk": {"S": WORKFLOW_LIST_PARTITION}}
        condition = "#pk = :pk"
        if database_id is not None:
            # The separator ends the prefix, so database "demo" never matches "demo2"'s items.
            condition += " AND begins_with(#sk, :db)"
            names["#sk"] = index.sort.name
            values[":db"] = {"S": workflow_list_sort_key(database_id)}
        request: dict[str, Any] = {
            "TableName": self._definitions,
            "IndexName": index.name,
            "KeyConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        if starting_token is not None:
            last = decode_workflow_token(starting_token, database_id)
            request["ExclusiveStartKey"] = to_wire(
                {
                    self._spec.partition.name: join_key(*last),
                    index.partition.name: WORKFLOW_LIST_PARTITION,
                    index.sort.name: workflow_list_sort_key(*last),
                }
            )
        found = [
            parse_workflow_definition_record(item)
            for item in query_up_to(self._client, request, limit + 1)
        ]
        return page_of(
            found[:limit],
            len(found) > limit,
            lambda last: encode_workflow_token(last.database_id, last.workflow_id),
        )
