"""The SQLite workflow list seeks the definitions' list index: no scan, no sort."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from adapters.tables import TableNames
from tests.contract.builders import a_version, publish


@pytest.fixture
def definitions(tmp_path: Path) -> Iterator[SqliteWorkflowDefinitions]:
    database = SqliteDatabase(tmp_path / "plans.db")
    definitions = SqliteWorkflowDefinitions(database, TableNames())
    definitions.create_tables()
    for n in range(30):
        workflow = f"db{n % 3}:wf{n}"
        publish(definitions, *(a_version(v, workflow=workflow) for v in range(1, n % 4 + 2)))
    with database.write() as connection:
        connection.execute("ANALYZE")
    yield definitions
    database.close()


@pytest.mark.parametrize("filtered", [False, True], ids=["all", "one database"])
@pytest.mark.parametrize("continued", [False, True], ids=["page 1", "page 2"])
def test_a_page_of_workflows_walks_the_list_index(
    definitions: SqliteWorkflowDefinitions, filtered: bool, continued: bool
) -> None:
    sql = definitions.list_definitions_sql(filtered, continued)
    count = sql.count("?")
    with definitions._database.read() as connection:
        plan = [row[3] for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}", (None,) * count)]

    assert any("WorkflowDefinitionsByKeyGSI" in step for step in plan), plan
    assert not any(step.startswith("SCAN") or "TEMP B-TREE" in step for step in plan), plan
