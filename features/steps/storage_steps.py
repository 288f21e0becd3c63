"""The sparse keys as stored: absent from the item, never an empty string (seed 000)."""

from __future__ import annotations

from typing import Any

from pytest_bdd import parsers, then

from adapters.tables import TABLE_SPECS, ResourceKeys
from features.steps.stored_rows import StoredRows
from features.steps.world import World

_ROWS = {
    "main row": ResourceKeys.WORKFLOW_EXECUTIONS,
    "configuration row": ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
}


def _run_row(stored_rows: StoredRows, world: World, row: str) -> dict[str, Any]:
    items = stored_rows.items(_ROWS[row], "workflowExecutionId", world.execution_id)
    assert len(items) == 1, items
    return items[0]


def _step_rows(stored_rows: StoredRows, world: World) -> dict[str, dict[str, Any]]:
    items = stored_rows.items(
        ResourceKeys.PIPELINE_EXECUTIONS, "workflowExecutionId", world.execution_id
    )
    return {item["pipelineId"]: item for item in items}


def _assert_absent(
    stored_rows: StoredRows, storage: str, key: ResourceKeys, item: dict[str, Any], attribute: str
) -> None:
    assert attribute not in item, f"{attribute} is stored as {item[attribute]!r}"
    if storage == "sqlite" and stored_rows.has_key_column(key, attribute):
        # the index column of the SQLite mirror is NULL, which no `= ?` lookup matches
        where = {spec: item[spec] for spec in _table_keys(key)}
        assert stored_rows.key_column(key, attribute, where) == [None]


def _table_keys(key: ResourceKeys) -> tuple[str, ...]:
    return tuple(attribute.name for attribute in TABLE_SPECS[key].key_attributes)


@then(parsers.re(r'the stored (?P<row>main row|configuration row) has no "(?P<attribute>[^"]+)"'))
def _(stored_rows: StoredRows, storage: str, world: World, row: str, attribute: str) -> None:
    item = _run_row(stored_rows, world, row)
    _assert_absent(stored_rows, storage, _ROWS[row], item, attribute)


@then(
    parsers.re(
        r'the stored (?P<row>main row|configuration row) has "(?P<attribute>[^"]+)"'
        r' = "(?P<value>[^"]*)"'
    )
)
def _(stored_rows: StoredRows, world: World, row: str, attribute: str, value: str) -> None:
    item = _run_row(stored_rows, world, row)
    assert item.get(attribute) == value, item


@then(parsers.parse('the stored row of the step "{name}" has no "{attribute}"'))
def _(stored_rows: StoredRows, storage: str, world: World, name: str, attribute: str) -> None:
    item = _step_rows(stored_rows, world)[name]
    _assert_absent(stored_rows, storage, ResourceKeys.PIPELINE_EXECUTIONS, item, attribute)


@then(parsers.parse('the stored row of the step "{name}" chains from the step "{previous}"'))
def _(stored_rows: StoredRows, world: World, name: str, previous: str) -> None:
    rows = _step_rows(stored_rows, world)
    chained = rows[name].get("from_pipeline_execution_id")
    assert chained == rows[previous]["pipelineExecutionId"], rows[name]
