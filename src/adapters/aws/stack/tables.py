"""The stack's tables: every table wfx creates (never the earlier one: it exists only where the
previous release made it, and is named by a parameter), and the expression each function reads
a table's name from."""

from __future__ import annotations

from typing import Any

from adapters.aws.stack.parameters import EARLIER_TABLE_NAMED, EXISTING_EARLIER_TABLE
from adapters.dynamodb.template import logical_id, table_resource
from adapters.tables import CREATED_TABLES, TABLES, ResourceKeys, TableNames

EARLIER = ResourceKeys.WORKFLOW_EXECUTIONS_V1


def table_resources(tables: TableNames) -> dict[str, Any]:
    return {
        logical_id(spec.key): table_resource(spec, tables.get_table_name(spec.key))
        for spec in CREATED_TABLES
    }


def table_name(key: ResourceKeys) -> Any:
    """The deployed table's name: its Ref, or for the earlier table the name given (empty: the
    functions then resolve the default name, which no stack resource holds)."""
    if key is EARLIER:
        return {"Ref": EXISTING_EARLIER_TABLE}
    return {"Ref": logical_id(key)}


def table_arn(key: ResourceKeys) -> Any:
    return {
        "Fn::Sub": [
            "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${Name}",
            {"Name": table_name(key)},
        ]
    }


def table_outputs() -> dict[str, Any]:
    outputs: dict[str, Any] = {
        f"{logical_id(spec.key)}Name": {
            "Description": f"{spec.default_name}: WFX_TABLE_{spec.key.value}",
            "Value": table_name(spec.key),
        }
        for spec in TABLES
    }
    # an output may not be empty: the earlier table's is given only when one was named
    outputs[f"{logical_id(EARLIER)}Name"]["Condition"] = EARLIER_TABLE_NAMED
    return outputs
