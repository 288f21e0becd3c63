"""A CloudFormation template for the tables, emitted from the same specs `create_tables` uses."""

from __future__ import annotations

from typing import Any

from adapters.aws.registration_rule import (
    registration_conditions,
    registration_parameters,
    registration_resources,
)
from adapters.dynamodb.schema import (
    BILLING_MODE,
    attribute_definitions,
    key_schema,
    secondary_indexes,
    time_to_live,
)
from adapters.tables import CREATED_TABLES, ResourceKeys, TableNames, TableSpec
from domain.registration import DEFAULT_EVENT_SOURCE_PREFIX


def logical_id(key: ResourceKeys) -> str:
    """`PIPELINE_LOGS` -> `PipelineLogsTable`: CloudFormation ids are alphanumeric."""
    return "".join(part.capitalize() for part in key.value.split("_")) + "Table"


def table_resource(spec: TableSpec, table_name: str) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "TableName": table_name,
        "BillingMode": BILLING_MODE,
        "AttributeDefinitions": attribute_definitions(spec),
        "KeySchema": key_schema(spec.partition, spec.sort),
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
    } | secondary_indexes(spec)
    if spec.expiry_attribute is not None:
        properties["TimeToLiveSpecification"] = time_to_live(spec.expiry_attribute)
    return {
        "Type": "AWS::DynamoDB::Table",
        # Execution history outlives a stack: deleting or replacing the stack keeps the data. A
        # table the failed create of its stack made is empty, and would make the retry fail
        # (the name is taken): that rollback alone deletes it.
        "DeletionPolicy": "RetainExceptOnCreate",
        "UpdateReplacePolicy": "Retain",
        "Properties": properties,
    }


def infrastructure_template(
    tables: TableNames, event_source_prefix: str = DEFAULT_EVENT_SOURCE_PREFIX
) -> dict[str, Any]:
    """Every table wfx creates (`adapters.tables.CREATED_TABLES`), named as `tables` resolves
    them, and the registration rule for sources under `event_source_prefix` (when given a
    function ARN)."""
    resources = {
        logical_id(spec.key): table_resource(spec, tables.get_table_name(spec.key))
        for spec in CREATED_TABLES
    }
    outputs = {f"{resource_id}Name": {"Value": {"Ref": resource_id}} for resource_id in resources}
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": "wfx workflow execution storage (seed 000 tables and wfx catalogs)",
        "Parameters": registration_parameters(),
        "Conditions": registration_conditions(),
        "Resources": resources | registration_resources(event_source_prefix),
        "Outputs": outputs,
    }
