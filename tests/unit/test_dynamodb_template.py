"""The CloudFormation template declares every table with the keys and indexes of its spec."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.dynamodb.template import infrastructure_template
from adapters.tables import CREATED_TABLES, ResourceKeys, TableNames, TableSpec


def _tables_by_name(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        resource["Properties"]["TableName"]: resource["Properties"]
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::DynamoDB::Table"
    }


def _keys(key_schema: list[dict[str, str]]) -> tuple[str, ...]:
    order = {"HASH": 0, "RANGE": 1}
    ordered = sorted(key_schema, key=lambda element: order[element["KeyType"]])
    return tuple(element["AttributeName"] for element in ordered)


@pytest.fixture(scope="module")
def declared() -> dict[str, dict[str, Any]]:
    return _tables_by_name(infrastructure_template(TableNames()))


def test_the_template_declares_one_table_per_spec_and_nothing_else(
    declared: dict[str, dict[str, Any]],
) -> None:
    assert sorted(declared) == sorted(spec.default_name for spec in CREATED_TABLES)


@pytest.mark.parametrize("spec", CREATED_TABLES, ids=lambda spec: spec.default_name)
def test_each_table_has_the_keys_of_its_spec(
    declared: dict[str, dict[str, Any]], spec: TableSpec
) -> None:
    properties = declared[spec.default_name]
    assert _keys(properties["KeySchema"]) == tuple(a.name for a in spec.key_attributes)
    assert sorted(
        (d["AttributeName"], d["AttributeType"]) for d in properties["AttributeDefinitions"]
    ) == sorted((a.name, a.type) for a in spec.all_key_attributes)


@pytest.mark.parametrize("spec", CREATED_TABLES, ids=lambda spec: spec.default_name)
def test_each_table_has_the_indexes_of_its_spec_projecting_everything(
    declared: dict[str, dict[str, Any]], spec: TableSpec
) -> None:
    for member, specs in (
        ("GlobalSecondaryIndexes", spec.global_indexes),
        ("LocalSecondaryIndexes", spec.local_indexes),
    ):
        indexes = declared[spec.default_name].get(member, [])
        assert {i["IndexName"]: _keys(i["KeySchema"]) for i in indexes} == {
            i.name: tuple(a.name for a in i.attributes) for i in specs
        }
        assert all(i["Projection"] == {"ProjectionType": "ALL"} for i in indexes)


def test_every_table_is_on_demand_with_point_in_time_recovery(
    declared: dict[str, dict[str, Any]],
) -> None:
    for properties in declared.values():
        assert properties["BillingMode"] == "PAY_PER_REQUEST"
        assert properties["PointInTimeRecoverySpecification"] == {
            "PointInTimeRecoveryEnabled": True
        }
        assert "ProvisionedThroughput" not in properties


def test_table_names_follow_the_resolver() -> None:
    names = TableNames(prefix="prod-", overrides={ResourceKeys.PIPELINE_LOGS: "SharedLogs"})
    declared = _tables_by_name(infrastructure_template(names))
    assert "SharedLogs" in declared
    assert "prod-WorkflowExecutionsStorageTableV2" in declared
    assert "prod-PipelineExecutionLogsStorageTable" not in declared


def test_the_template_is_plain_json_with_alphanumeric_logical_ids() -> None:
    template = infrastructure_template(TableNames())
    assert json.loads(json.dumps(template)) == template
    assert all(logical_id.isalnum() for logical_id in template["Resources"])
    assert template["AWSTemplateFormatVersion"] == "2010-09-09"
