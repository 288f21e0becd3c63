"""The earlier table made before its previous-release indexes were declared (key columns only)
gets the index key columns, filled from its items, and the indexes, from `create_tables`."""

from __future__ import annotations

import json
from pathlib import Path

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema, create_tables, index_columns, index_name
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from tests.unit.test_sqlite_schema import indexes

NAMES = TableNames(prefix="up.")
SPEC = TABLE_SPECS[ResourceKeys.WORKFLOW_EXECUTIONS_V1]
TABLE = NAMES.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS_V1)
QUOTED = f'"{TABLE}"'
ROWS = (
    {
        "databaseId:assetId": "db:a1",
        "executionId": "e1",
        "workflowDatabaseId:workflowId": "db:wf",
        "workflowId": "wf",
    },
    {"databaseId:assetId": "db:a2", "executionId": "e2"},  # no workflow: sparse in every index
)


def _as_before_the_indexes(database: SqliteDatabase) -> None:
    """The table as wfx made it before: its two key columns and the item, holding ROWS."""
    with database.write() as connection:
        connection.execute(f"DROP TABLE IF EXISTS {QUOTED}")
        connection.execute(
            f'CREATE TABLE {QUOTED} ("databaseId:assetId" TEXT NOT NULL, '
            '"executionId" TEXT NOT NULL, item TEXT NOT NULL, '
            'PRIMARY KEY ("databaseId:assetId", "executionId"))'
        )
        connection.executemany(
            f"INSERT INTO {QUOTED} VALUES (?, ?, ?)",
            [(row["databaseId:assetId"], row["executionId"], json.dumps(row)) for row in ROWS],
        )


def test_create_tables_adds_the_index_columns_from_the_items_and_the_indexes(
    tmp_path: Path,
) -> None:
    database = SqliteDatabase(tmp_path / "earlier.db")
    schema = build_schema(NAMES)
    create_tables(database, schema)
    _as_before_the_indexes(database)

    create_tables(database, schema)
    create_tables(database, schema)  # and again: nothing left to do

    with database.read() as connection:
        found = indexes(connection, TABLE)
        rows = connection.execute(
            f'SELECT "executionId", "workflowDatabaseId:workflowId", "workflowId" FROM {QUOTED} '
            'ORDER BY "executionId"'
        ).fetchall()
    assert rows == [("e1", "db:wf", "wf"), ("e2", None, None)]
    assert found == {index_name(TABLE, index): index_columns(SPEC, index) for index in SPEC.indexes}
    database.close()


def test_the_local_index_is_mirrored_on_the_table_partition_and_its_sort_key() -> None:
    (local,) = SPEC.local_indexes
    assert index_columns(SPEC, local) == ("databaseId:assetId", "workflowDatabaseId:workflowId")
