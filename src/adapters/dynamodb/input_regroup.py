"""`wfx migrate items`' input regrouping on DynamoDB (adapters/input_regroup.py): each run's
earlier file rows become its selection rows, and move to the resolved files' table.

The new rows are written before the earlier ones are deleted, each write the same on every try:
an interrupted run leaves earlier rows behind, and running again regroups them to the same rows
and deletes them. A launch's input rows never change afterwards, so no condition guards them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from adapters.dynamodb.codec import Item, from_wire, to_wire
from adapters.input_regroup import INPUT_SELECTIONS, is_earlier_input_row, regroup_inputs
from adapters.records import CONFIGURATION_RECORD_TYPE
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from domain.migration import TableItemShapes

EXECUTION_ID = "workflowExecutionId"


def regroup_dynamodb_inputs(client: Any, tables: TableNames, write: bool) -> TableItemShapes:
    """The inputs table's items read, and its earlier rows regrouped (`write`) or counted."""
    name = tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTION_INPUTS)
    earlier: dict[str, list[Item]] = defaultdict(list)
    read = 0
    for page in client.get_paginator("scan").paginate(TableName=name, ConsistentRead=True):
        for wire in page["Items"]:
            read += 1
            item = from_wire(wire)
            if is_earlier_input_row(item):
                earlier[item[EXECUTION_ID]].append(item)
    if write:
        for execution_id, rows in earlier.items():
            _regroup_run(client, tables, execution_id, rows)
    return TableItemShapes(
        table=name, read=read, rewritten=sum(len(rows) for rows in earlier.values())
    )


def _regroup_run(client: Any, tables: TableNames, execution_id: str, rows: list[Item]) -> None:
    configuration = client.get_item(
        TableName=tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION),
        Key=to_wire({EXECUTION_ID: execution_id, "recordType": CONFIGURATION_RECORD_TYPE}),
        ConsistentRead=True,
    ).get("Item")
    selections = from_wire(configuration).get(INPUT_SELECTIONS, []) if configuration else []
    regrouped = regroup_inputs(rows, selections)
    resolved_table = tables.get_table_name(ResourceKeys.RESOLVED_INPUT_FILES)
    inputs_table = tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTION_INPUTS)
    for item in regrouped.resolved:
        client.put_item(TableName=resolved_table, Item=to_wire(item))
    for item in regrouped.selections:
        client.put_item(TableName=inputs_table, Item=to_wire(item))
    key_names = [a.name for a in TABLE_SPECS[ResourceKeys.WORKFLOW_EXECUTION_INPUTS].key_attributes]
    for row in rows:
        client.delete_item(
            TableName=inputs_table, Key=to_wire({name: row[name] for name in key_names})
        )
