"""The SQLite workflow list seeks the list index and each primary key: no scan, no sort."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.tables import TableNames
from tests.contract.builders import a_version


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[SqliteWorkflowCatalog]:
    database = SqliteDatabase(tmp_path / "plans.db")
    catalog = SqliteWorkflowCatalog(database, TableNames())
    catalog.create_tables()
    for n in range(30):
        for version in range(1, n % 4 + 2):
            catalog.add_version(a_version(version, workflow=f"db{n % 3}:wf{n}"))
    with database.write() as connection:
        connection.execute("ANALYZE")
    yield catalog
    database.close()


@pytest.mark.parametrize("filtered", [False, True], ids=["all", "one database"])
@pytest.mark.parametrize("continued", [False, True], ids=["page 1", "page 2"])
def test_a_page_of_workflows_walks_the_list_index(
    catalog: SqliteWorkflowCatalog, filtered: bool, continued: bool
) -> None:
    sql = catalog.list_workflows_sql(filtered, continued)
    count = sql.count("?")
    with catalog._database.read() as connection:
        plan = [row[3] for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}", (None,) * count)]

    assert any("WorkflowsByKeyGSI" in step for step in plan), plan
    assert not any(step.startswith("SCAN") or "TEMP B-TREE" in step for step in plan), plan
