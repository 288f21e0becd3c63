"""The stack's tables: every spec of `adapters.tables`, the earlier table only when no existing
one is named, and the expression each function reads a table's name from."""

from __future__ import annotations

from typing import Any

from adapters.aws.stack.parameters import CREATE_EARLIER_TABLE, EXISTING_EARLIER_TABLE
from adapters.dynamodb.template import logical_id, table_resource
from adapters.tables import TABLES, ResourceKeys, TableNames

EARLIER = ResourceKeys.WORKFLOW_EXECUTIONS_V1


def table_resources(tables: TableNames) -> dict[str, Any]:
    resources = {
        logical_id(spec.key): table_resource(spec, tables.get_table_name(spec.key))
        for spec in TABLES
    }
    resources[logical_id(EARLIER)]["Condition"] = CREATE_EARLIER_TABLE
    return resources


def table_name(key: ResourceKeys) -> Any:
    """The deployed table's name: its Ref, or for the earlier table the existing one's name."""
    if key is EARLIER:
        return {
            "Fn::If": [
                CREATE_EARLIER_TABLE,
                {"Ref": logical_id(key)},
                {"Ref": EXISTING_EARLIER_TABLE},
            ]
        }
    return {"Ref": logical_id(key)}


def table_arn(key: ResourceKeys) -> Any:
    return {
        "Fn::Sub": [
            "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${Name}",
            {"Name": table_name(key)},
        ]
    }


def table_outputs() -> dict[str, Any]:
    return {
        f"{logical_id(spec.key)}Name": {
            "Description": f"{spec.default_name}: WFX_TABLE_{spec.key.value}",
            "Value": table_name(spec.key),
        }
        for spec in TABLES
    }
