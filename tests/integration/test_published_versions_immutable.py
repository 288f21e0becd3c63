"""A published version and its step definitions never change, whoever writes: on SQLite the
triggers refuse any statement that would change a stored row; on DynamoDB every put of a
publish is conditioned on a free key, the step definitions' each on its own."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from adapters.dynamodb.codec import from_wire, to_wire
from adapters.records import build_step_definition_records, build_workflow_version_record
from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from adapters.sqlite.workflow_tables import IMMUTABLE_MESSAGE
from adapters.tables import ResourceKeys, TableNames
from domain.workflow import ExecutionType, StepDefinition, WorkflowDefinition, WorkflowVersion
from tests.contract.builders import a_version, publish

VERSIONS = '"WfxWorkflowVersionsTable"'
STEPS = '"WfxStepDefinitionsTable"'


def _two_steps(number: int) -> WorkflowVersion:
    steps = tuple(
        StepDefinition(
            pipeline_id=name,
            pipeline_database_id="db1",
            execution_type=ExecutionType.COMMAND,
            command=("echo", name),
        )
        for name in ("first", "second")
    )
    return a_version(number).model_copy(update={"steps": steps})


REWRITES = {
    "update a version": f"UPDATE {VERSIONS} SET item = json_set(item, '$.description', 'x')",
    "replace a version": f"INSERT OR REPLACE INTO {VERSIONS} "
    f"(\"workflowDatabaseId:workflowId\", \"workflowVersion\", item) VALUES ('db1:wf1', 1, '{{}}')",
    "delete a version": f"DELETE FROM {VERSIONS}",
    "renumber a version": f'UPDATE {VERSIONS} SET "workflowVersion" = 9',
    "update a step": f"UPDATE {STEPS} SET item = json_set(item, '$.command', json('[\"rm\"]'))",
    "replace a step": f"INSERT OR REPLACE INTO {STEPS} "
    '("workflowDatabaseId:workflowId:workflowVersion", "stepIndex", item) '
    "VALUES ('db1:wf1:1', 0, '{}')",
    "delete a step": f'DELETE FROM {STEPS} WHERE "stepIndex" = 1',
}


@pytest.mark.parametrize("statement", REWRITES.values(), ids=REWRITES.keys())
def test_sqlite_refuses_every_rewrite_of_a_published_version(
    sqlite_file_database: SqliteDatabase,
    sqlite_file_workflow_catalog: SqliteWorkflowCatalog,
    sqlite_file_workflow_definitions: SqliteWorkflowDefinitions,
    statement: str,
) -> None:
    publish(sqlite_file_workflow_definitions, _two_steps(1))

    with (
        pytest.raises(sqlite3.IntegrityError, match=IMMUTABLE_MESSAGE),
        sqlite_file_database.write() as connection,
    ):
        connection.execute(statement)

    assert sqlite_file_workflow_catalog.get_version("db1", "wf1", 1) == _two_steps(1)


def test_sqlite_still_lets_a_version_gain_its_state_machine_once(
    sqlite_file_workflow_catalog: SqliteWorkflowCatalog,
    sqlite_file_workflow_definitions: SqliteWorkflowDefinitions,
) -> None:
    publish(sqlite_file_workflow_definitions, _two_steps(1))

    deployed = sqlite_file_workflow_catalog.record_deployment("db1", "wf1", 1, "arn:one")

    assert deployed == _two_steps(1).model_copy(update={"state_machine_arn": "arn:one"})


def test_dynamodb_refuses_a_publish_onto_a_stored_step_and_writes_nothing(
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
    dynamodb_workflow_catalog: Any,
    dynamodb_workflow_definitions: Any,
) -> None:
    """A step row of version 2 is there already (left by any other writer): version 2's
    publish must neither overwrite it nor land in part."""
    publish(dynamodb_workflow_definitions, _two_steps(1))
    steps_table = dynamodb_table_names.get_table_name(ResourceKeys.STEP_DEFINITIONS)
    stray = build_step_definition_records(_two_steps(2))[1] | {"command": ["stray"]}
    moto_dynamodb_client.put_item(TableName=steps_table, Item=to_wire(stray))
    current = dynamodb_workflow_definitions.find_definition("db1", "wf1")
    second = _two_steps(2)

    assert dynamodb_workflow_definitions.publish(current.published(second), second) is False

    assert dynamodb_workflow_definitions.find_definition("db1", "wf1") == current
    assert dynamodb_workflow_catalog.latest_version("db1", "wf1") == _two_steps(1)
    key = {"workflowDatabaseId:workflowId:workflowVersion": "db1:wf1:2", "stepIndex": 1}
    kept = moto_dynamodb_client.get_item(TableName=steps_table, Key=to_wire(key))["Item"]
    assert from_wire(kept) == stray


def test_dynamodb_refuses_a_second_version_1_and_keeps_the_first(
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
    dynamodb_workflow_catalog: Any,
    dynamodb_workflow_definitions: Any,
) -> None:
    publish(dynamodb_workflow_definitions, _two_steps(1))
    versions_table = dynamodb_table_names.get_table_name(ResourceKeys.WORKFLOW_VERSIONS)
    rival = a_version(1).model_copy(update={"description": "rival"})

    first = WorkflowDefinition.first(rival, "eve")

    assert dynamodb_workflow_definitions.publish(first, rival) is False
    item = moto_dynamodb_client.get_item(
        TableName=versions_table,
        Key=to_wire({"workflowDatabaseId:workflowId": "db1:wf1", "workflowVersion": 1}),
    )["Item"]
    assert from_wire(item) == build_workflow_version_record(_two_steps(1))
    assert dynamodb_workflow_catalog.get_version("db1", "wf1", 1) == _two_steps(1)
