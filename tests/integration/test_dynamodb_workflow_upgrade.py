"""A DynamoDB deployment made before workflow definitions is upgraded by `create_tables` of the
definitions (`wfx tables create`): each version's steps become step-definition items and leave
the version item, and each workflow gets its definition; a second run changes nothing."""

from __future__ import annotations

from typing import Any

from adapters.dynamodb.codec import from_wire, to_wire
from adapters.tables import ResourceKeys, TableNames
from domain.workflow import WorkflowDefinition
from tests.contract.builders import a_version, at
from tests.earlier_workflow_items import EARLIER, earlier_item


def _earlier_deployment(client: Any, tables: TableNames) -> str:
    versions_table = tables.get_table_name(ResourceKeys.WORKFLOW_VERSIONS)
    for version in EARLIER:
        client.put_item(TableName=versions_table, Item=to_wire(earlier_item(version)))
    return versions_table


def test_create_tables_upgrades_an_earlier_deployment(
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
    dynamodb_workflow_catalog: Any,
    dynamodb_workflow_definitions: Any,
) -> None:
    dynamodb_workflow_definitions.create_tables()
    versions_table = _earlier_deployment(moto_dynamodb_client, dynamodb_table_names)

    dynamodb_workflow_definitions.create_tables()
    dynamodb_workflow_definitions.create_tables()  # and again: nothing left to do

    for version in EARLIER:
        stored = dynamodb_workflow_catalog.get_version(
            version.database_id, version.workflow_id, version.version
        )
        assert stored == version
    assert dynamodb_workflow_definitions.list_definitions(20, None).items == (
        WorkflowDefinition(
            database_id="demo",
            workflow_id="a",
            description="version 2",
            created_at=at(1),
            latest_version=2,
        ),
        WorkflowDefinition(
            database_id="demo",
            workflow_id="b",
            description="version 1",
            created_at=at(1),
            latest_version=1,
        ),
    )
    items = [from_wire(i) for i in moto_dynamodb_client.scan(TableName=versions_table)["Items"]]
    assert not any("steps" in i or "workflowListPartition" in i for i in items)
    current = dynamodb_workflow_definitions.find_definition("demo", "a")
    third = a_version(3, workflow="demo:a")
    assert dynamodb_workflow_definitions.publish(current.published(third), third) is True
