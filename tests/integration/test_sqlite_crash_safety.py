"""A launch that fails part-way on SQLite leaves no row behind and nothing in any list.

The failure is SQLite's own: a trigger aborts the insert of the step rows, after the main row and
the inputs were already written inside the launch's transaction.
"""

from __future__ import annotations

import pytest

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.system import SystemClock
from adapters.tables import CREATED_TABLES, ResourceKeys, TableNames
from application.ports.executions import ListScope
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from domain.errors import ExecutionNotFoundError
from tests.contract.builders import a_launch, write_launch

STEPS_TABLE = TableNames().get_table_name(ResourceKeys.PIPELINE_EXECUTIONS)


def _row_counts(database: SqliteDatabase) -> dict[str, int]:
    names = TableNames()
    with database.read() as connection:
        return {
            spec.default_name: connection.execute(
                f'SELECT count(*) FROM "{names.get_table_name(spec.key)}"'
            ).fetchone()[0]
            for spec in CREATED_TABLES
        }


def test_a_launch_that_fails_part_way_writes_nothing_and_can_be_retried(
    sqlite_file_database: SqliteDatabase, sqlite_file_execution_store: SqliteExecutionStore
) -> None:
    store, database = sqlite_file_execution_store, sqlite_file_database
    launch = a_launch(
        "crash-1", group="nightly", inputs=[("db1:scans", "a.obj")], output_asset="db1:results"
    )
    with database.write() as connection:
        connection.execute(
            f'CREATE TRIGGER crash BEFORE INSERT ON "{STEPS_TABLE}" '
            "BEGIN SELECT RAISE(ABORT, 'simulated crash'); END"
        )

    with pytest.raises(Exception, match="simulated crash"):
        write_launch(store, launch)

    assert set(_row_counts(database).values()) == {0}
    with pytest.raises(ExecutionNotFoundError):
        store.get_execution("crash-1")
    assert store.list_executions(ListScope.ALL, None, 10, None).items == ()
    by_asset = ListExecutions(store, clock=SystemClock()).execute(
        ListExecutionsQuery(asset="db1/scans")
    )
    assert by_asset.items == ()

    with database.write() as connection:
        connection.execute("DROP TRIGGER crash")
    write_launch(store, launch)
    assert [
        e.workflow_execution_id for e in store.list_executions(ListScope.ALL, None, 10, None).items
    ] == ["crash-1"]
