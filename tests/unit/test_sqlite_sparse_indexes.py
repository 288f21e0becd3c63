"""A GSI whose partition a row may lack holds only the rows that have it, as in DynamoDB: a run
without a group or an output asset costs its write no page of those indexes, and the lists that
read them still walk them (tests/unit/test_sqlite_query_plans.py)."""

from __future__ import annotations

from pathlib import Path

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema, sparse_key
from adapters.tables import TABLES, ResourceKeys, TableNames
from tests.contract.builders import a_launch, at, write_launch

SCHEMA = build_schema(TableNames())


def index_entries(database: SqliteDatabase, index: str) -> int:
    """The rows an index holds, as ANALYZE counts them (the first figure of its stat)."""
    with database.write() as connection:
        connection.execute("ANALYZE")
        row = connection.execute("SELECT stat FROM sqlite_stat1 WHERE idx = ?", (index,)).fetchone()
    return 0 if row is None else int(row[0].split()[0])


def test_a_run_without_a_group_is_left_out_of_the_group_index(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "sparse.db")
    store = SqliteExecutionStore(database, TableNames())
    store.create_tables()
    write_launch(store, a_launch("grouped", start=at(1), group="g1"))
    write_launch(store, a_launch("alone", start=at(2), group=None))
    write_launch(store, a_launch("alone-too", start=at(3), group=None))
    table = SCHEMA[ResourceKeys.WORKFLOW_EXECUTIONS]

    by_group = index_entries(database, table.index_name("WorkflowExecutionsByGroupGSI"))
    by_date = index_entries(database, table.index_name("WorkflowExecutionsByDateGSI"))
    database.close()

    assert (by_group, by_date) == (1, 3)


def test_only_an_index_partition_that_is_no_table_key_makes_an_index_sparse() -> None:
    sparse = {
        (spec.default_name, index.name): sparse_key(spec, index)
        for spec in TABLES
        for index in spec.indexes
    }

    assert sparse["WorkflowExecutionsStorageTableV2", "WorkflowExecutionsByGroupGSI"] == (
        "executionGroupId"
    )
    # every run has a run id: the chain index holds each step, its first one included
    assert sparse["PipelineExecutionsStorageTable", "PipelineExecChainGSI"] is None
    assert sparse["WfxApprovalRequestsTable", "ApprovalsByIdGSI"] is None  # a table key
