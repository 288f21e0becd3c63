"""The upgrade of a DynamoDB deployment made before workflow definitions: its version items
hold their steps, and no definition exists. Run by `wfx tables create` (create_tables of the
definitions), once the new tables exist; idempotent, and safe to run again after a crash."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.dynamodb.codec import Item, from_wire, to_wire
from adapters.records import (
    build_step_definition_records,
    parse_embedded_version_record,
    recovered_definition_record,
)
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# On version 1 in the earlier layout: the keys of the list index it carried.
_EARLIER_LIST_KEYS = ("workflowListPartition", "workflowListSortKey")


def upgrade_earlier_versions(client: DynamoDBClient, tables: TableNames) -> None:
    """Move each version's embedded steps into step-definition items (then out of the version
    item), and put a definition for each workflow that has none."""
    versions_table = tables.get_table_name(ResourceKeys.WORKFLOW_VERSIONS)
    by_workflow: dict[str, list[Item]] = {}
    # A one-off walk of the whole (small) versions table, as a migration does: no read path scans.
    for item in _scan(client, versions_table):
        if "steps" in item:
            item = _move_steps_out(client, tables, versions_table, item)
        by_workflow.setdefault(item["workflowDatabaseId:workflowId"], []).append(item)
    for versions in by_workflow.values():
        ordered = sorted(versions, key=lambda v: int(v["workflowVersion"]))
        _put_if_absent(
            client,
            tables.get_table_name(ResourceKeys.WORKFLOW_DEFINITIONS),
            recovered_definition_record(ordered[0], ordered[-1]),
            TABLE_SPECS[ResourceKeys.WORKFLOW_DEFINITIONS].partition.name,
        )


def _scan(client: DynamoDBClient, table_name: str) -> Iterator[Item]:
    request: dict[str, Any] = {"TableName": table_name, "ConsistentRead": True}
    while True:
        response = client.scan(**request)
        yield from (from_wire(item) for item in response["Items"])
        last_key = response.get("LastEvaluatedKey")
        if not last_key:
            return
        request = {**request, "ExclusiveStartKey": last_key}


def _move_steps_out(
    client: DynamoDBClient, tables: TableNames, versions_table: str, item: Item
) -> Item:
    version = parse_embedded_version_record(item)
    steps_table = tables.get_table_name(ResourceKeys.STEP_DEFINITIONS)
    steps_partition = TABLE_SPECS[ResourceKeys.STEP_DEFINITIONS].partition.name
    for step in build_step_definition_records(version):
        _put_if_absent(client, steps_table, step, steps_partition)
    spec = TABLE_SPECS[ResourceKeys.WORKFLOW_VERSIONS]
    assert spec.sort is not None
    names = {"#steps": "steps", **{f"#k{i}": k for i, k in enumerate(_EARLIER_LIST_KEYS)}}
    # The steps leave the item only once every step item is stored: a crash before it leaves
    # the item as it was, for the next run to finish.
    client.update_item(
        TableName=versions_table,
        Key=to_wire({name: item[name] for name in (spec.partition.name, spec.sort.name)}),
        UpdateExpression="REMOVE #steps, #k0, #k1 SET #count = :count",
        ExpressionAttributeNames={**names, "#count": "stepCount"},
        ExpressionAttributeValues={":count": {"N": str(len(version.steps))}},
    )
    kept = {k: v for k, v in item.items() if k not in ("steps", *_EARLIER_LIST_KEYS)}
    return kept | {"stepCount": len(version.steps)}


def _put_if_absent(client: DynamoDBClient, table_name: str, item: Item, partition: str) -> None:
    try:
        client.put_item(
            TableName=table_name,
            Item=to_wire(item),
            ConditionExpression="attribute_not_exists(#pk)",
            ExpressionAttributeNames={"#pk": partition},
        )
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
            raise
