"""A SQLite file of the release before definitions is upgraded by `create_tables`: its versions
keep their steps inside them and the workflow list is a sparse index on version 1. The upgrade
moves the steps out into step definitions, makes each workflow's definition, drops the old list
index, and from then on guards every published row."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from adapters.sqlite.workflow_tables import IMMUTABLE_MESSAGE
from adapters.tables import TableNames
from domain.workflow import WorkflowDefinition
from tests.contract.builders import a_version, at
from tests.earlier_workflow_items import EARLIER, earlier_item

VERSIONS = '"WfxWorkflowVersionsTable"'


def _an_earlier_file(path: Path) -> SqliteDatabase:
    """Only the versions table of the earlier layout, with its list columns and index."""
    database = SqliteDatabase(path)
    with database.write() as connection:
        connection.execute(
            f'CREATE TABLE {VERSIONS} ("workflowDatabaseId:workflowId" TEXT NOT NULL, '
            '"workflowVersion" INTEGER NOT NULL, "workflowListPartition" TEXT, '
            '"workflowListSortKey" TEXT, item TEXT NOT NULL, '
            'PRIMARY KEY ("workflowDatabaseId:workflowId", "workflowVersion"))'
        )
        connection.execute(
            f'CREATE INDEX "WfxWorkflowVersionsTable.WorkflowsByKeyGSI" ON {VERSIONS} '
            '("workflowListPartition", "workflowListSortKey", "workflowDatabaseId:workflowId")'
        )
        for version in EARLIER:
            item = earlier_item(version)
            connection.execute(
                f"INSERT INTO {VERSIONS} VALUES (?, ?, ?, ?, json(?))",
                (
                    version.workflow_key,
                    version.version,
                    item.get("workflowListPartition"),
                    item.get("workflowListSortKey"),
                    json.dumps(item),
                ),
            )
    return database


def test_create_tables_upgrades_an_earlier_file(tmp_path: Path) -> None:
    database = _an_earlier_file(tmp_path / "earlier.db")
    catalog = SqliteWorkflowCatalog(database, TableNames())
    definitions = SqliteWorkflowDefinitions(database, TableNames())

    catalog.create_tables()
    definitions.create_tables()  # and again: nothing left to do

    for version in EARLIER:
        assert (
            catalog.get_version(version.database_id, version.workflow_id, version.version)
            == version
        )
    listed = definitions.list_definitions(20, None, database_id="demo").items
    assert listed == (
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
    with database.read() as connection:
        items = [text for (text,) in connection.execute(f"SELECT item FROM {VERSIONS}")]
        columns = {row[1] for row in connection.execute(f"PRAGMA table_info({VERSIONS})")}
        indexes = {row[1] for row in connection.execute(f"PRAGMA index_list({VERSIONS})")}
    assert not any('"steps"' in text or "workflowList" in text for text in items)
    assert "workflowListPartition" not in columns
    assert "WfxWorkflowVersionsTable.WorkflowsByKeyGSI" not in indexes
    database.close()


def test_an_upgraded_file_guards_its_versions_and_publishes_on_top(tmp_path: Path) -> None:
    database = _an_earlier_file(tmp_path / "earlier.db")
    definitions = SqliteWorkflowDefinitions(database, TableNames())
    definitions.create_tables()
    current = definitions.find_definition("demo", "a")
    assert current is not None

    with pytest.raises(sqlite3.IntegrityError, match=IMMUTABLE_MESSAGE), database.write() as c:
        c.execute(f"UPDATE {VERSIONS} SET item = json_set(item, '$.description', 'x')")
    third = a_version(3, workflow="demo:a")
    assert definitions.publish(current.published(third), third) is True
    database.close()
