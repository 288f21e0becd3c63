"""A versions table made before the workflow list index is upgraded by `create_tables`."""

from __future__ import annotations

from pathlib import Path

from adapters.records import build_workflow_version_record
from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.statements import load_item
from adapters.tables import TableNames
from tests.contract.builders import a_version

TABLE = '"WfxWorkflowVersionsTable"'


def _as_before_the_index(database: SqliteDatabase) -> None:
    """The table as wfx made it before: no list columns, no index, items without list keys."""
    with database.write() as connection:
        connection.execute('DROP INDEX "WfxWorkflowVersionsTable.WorkflowsByKeyGSI"')
        for column in ("workflowListPartition", "workflowListSortKey"):
            connection.execute(f'ALTER TABLE {TABLE} DROP COLUMN "{column}"')
        connection.execute(
            f"UPDATE {TABLE} SET item = "
            "json_remove(item, '$.workflowListPartition', '$.workflowListSortKey')"
        )


def test_create_tables_adds_the_list_index_to_an_earlier_table(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "earlier.db")
    catalog = SqliteWorkflowCatalog(database, TableNames())
    catalog.create_tables()
    for version, key in ((1, "demo:a"), (2, "demo:a"), (1, "demo:b")):
        catalog.add_version(a_version(version, workflow=key))
    _as_before_the_index(database)

    catalog.create_tables()
    catalog.create_tables()  # and again: nothing left to do

    listed = catalog.list_workflows(20, None, database_id="demo").items
    assert listed == (a_version(2, workflow="demo:a"), a_version(1, workflow="demo:b"))
    with database.read() as connection:
        rows = connection.execute(f'SELECT item FROM {TABLE} WHERE "workflowVersion" = 1')
        items = sorted((load_item(text) for (text,) in rows), key=str)
    expected = [
        build_workflow_version_record(a_version(1, workflow=k)) for k in ("demo:a", "demo:b")
    ]
    assert items == sorted(expected, key=str)  # the same items a fresh table holds
    database.close()
