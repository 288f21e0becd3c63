"""ExecutionStore contract: delete_execution, a run's permanent delete from every table.

Each test reads the tables past the adapter: every SQLite table of the file (`sqlite_master`),
every DynamoDB table of the account (`ListTables`, `Scan`), so that a row in a table the adapter
forgot is found too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.approval_records import build_approval_record
from adapters.cost_records import build_cost_ledger_record
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.step_records import build_pipeline_input_file_record
from adapters.tables import (
    NOT_RUN_TABLES,
    RUN_ROW_TABLES,
    STEP_ROW_TABLES,
    TABLES,
    ResourceKeys,
    TableNames,
)
from application.ports.executions import ExecutionStore, ListScope
from domain.approvals import ApprovalGate, ApprovalRequest
from domain.errors import ExecutionNotFoundError
from domain.execution import PipelineInputFile
from domain.logs import RegisteredSubExecution
from domain.run import first_start
from domain.sub_processes import StopOutcome, SubExecutionStop
from tests.contract.builders import (
    MONDAY,
    a_duration_entry,
    a_launch,
    at,
    registered_on_step,
    some_outputs,
    step_id,
    step_moved,
    stops_recorded_on_step,
    write_launch,
)
from tests.contract.conftest import BACKENDS

DOOMED, KEPT = "doomed-run", "kept-run"


class RawTables:
    """Every table of one backend, read and written past the adapter."""

    def __init__(self, backend: str, request: pytest.FixtureRequest) -> None:
        self.backend = backend
        self.store: ExecutionStore = request.getfixturevalue(f"{backend}_execution_store")
        if backend == "dynamodb":
            self._client = request.getfixturevalue("moto_dynamodb_client")
        else:
            self._database = request.getfixturevalue(f"{backend}_database")

    def put(self, key: ResourceKeys, item: dict[str, Any]) -> None:
        name = TableNames().get_table_name(key)
        if self.backend == "dynamodb":
            from adapters.dynamodb.codec import to_wire

            self._client.put_item(TableName=name, Item=to_wire(item))
            return
        spec = next(spec for spec in TABLES if spec.key is key)
        columns = [a.name for a in spec.all_key_attributes]
        quoted = ", ".join(f'"{column}"' for column in (*columns, "item"))
        values = (*(item.get(column) for column in columns), json.dumps(item))
        with self._database.write() as connection:
            connection.execute(
                f'INSERT INTO "{name}" ({quoted}) VALUES ({", ".join("?" * len(values))})', values
            )

    def rows(self) -> dict[str, list[str]]:
        """Every row of every table, as JSON text, by table name."""
        if self.backend == "dynamodb":
            from adapters.dynamodb.codec import from_wire

            found: dict[str, list[str]] = {}
            for name in self._client.list_tables()["TableNames"]:
                pages = self._client.get_paginator("scan").paginate(TableName=name)
                found[name] = [
                    json.dumps(from_wire(item), default=str)
                    for page in pages
                    for item in page["Items"]
                ]
            return found
        with self._database.read() as connection:
            names = [
                name
                for (name,) in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                )
            ]
            return {
                name: [text for (text,) in connection.execute(f'SELECT item FROM "{name}"')]
                for name in names
            }

    def mentioning(self, text: str) -> dict[str, int]:
        """How many rows of each table hold `text` anywhere (tables with none left out)."""
        counts = {name: sum(text in row for row in rows) for name, rows in self.rows().items()}
        return {name: count for name, count in counts.items() if count}


@pytest.fixture(params=BACKENDS)
def raw(request: pytest.FixtureRequest) -> RawTables:
    return RawTables(request.param, request)


def _a_run_in_every_table(raw: RawTables, execution_id: str) -> None:
    """Rows of the run in each table a run has rows in, as each writer would leave them."""
    store = raw.store
    write_launch(store, a_launch(execution_id, steps=3))
    for index in range(3):
        store.add_step_outputs(some_outputs(execution_id, index))
    root = step_id(execution_id, 0)
    assert step_moved(store, first_start(execution_id, root, at(1)))  # attempt 1 (TaskExecutions)
    registered_on_step(
        store,
        execution_id,
        root,
        (RegisteredSubExecution.of_resource(resource_type="batch", resource_id="job-1"),),
    )
    stop = SubExecutionStop(
        resource_type="batch", resource_id="job-1", outcome=StopOutcome.STOP_REQUESTED, at=at(2)
    )
    stops_recorded_on_step(store, execution_id, root, (stop,))
    # PipelineExecutionInputFiles: only the data migration writes it (seed 000)
    for index in range(3):
        raw.put(
            ResourceKeys.PIPELINE_INPUT_FILES,
            build_pipeline_input_file_record(
                PipelineInputFile(
                    pipeline_execution_id=step_id(execution_id, index),
                    workflow_execution_id=execution_id,
                    database_id="db1",
                    asset_id="asset1",
                    input_asset_file_key="scan.obj",
                )
            ),
        )
    # WfxCostLedgerTable: the runner's duration entry of the root's first attempt
    raw.put(ResourceKeys.COST_LEDGER, build_cost_ledger_record(a_duration_entry(execution_id)))
    # WfxApprovalRequestsTable: a gate the root step reached
    gate = ApprovalGate(approvers=("alice",))
    request = ApprovalRequest.open(
        f"{execution_id}-gate",
        gate,
        workflow_execution_id=execution_id,
        pipeline_execution_id=root,
        attempt=1,
        pipeline_id="gate",
        workflow_database_id="db1",
        workflow_id="wf1",
        at=at(3),
    )
    raw.put(ResourceKeys.APPROVAL_REQUESTS, build_approval_record(request))


def test_every_table_is_either_one_a_run_has_rows_in_or_one_it_has_none_in() -> None:
    run_tables = {ResourceKeys.WORKFLOW_EXECUTIONS, *RUN_ROW_TABLES, *STEP_ROW_TABLES}

    assert run_tables.isdisjoint(NOT_RUN_TABLES)
    assert run_tables | NOT_RUN_TABLES == {spec.key for spec in TABLES}


def test_a_deleted_run_has_no_row_left_in_any_table_and_other_runs_keep_all_of_theirs(
    raw: RawTables,
) -> None:
    _a_run_in_every_table(raw, DOOMED)
    _a_run_in_every_table(raw, KEPT)
    names = TableNames()
    run_tables = {ResourceKeys.WORKFLOW_EXECUTIONS, *RUN_ROW_TABLES, *STEP_ROW_TABLES}
    assert set(raw.mentioning(DOOMED)) == {names.get_table_name(key) for key in run_tables}
    kept_before = raw.mentioning(KEPT)

    assert raw.store.delete_execution(DOOMED) is True

    assert raw.mentioning(DOOMED) == {}
    assert raw.mentioning(KEPT) == kept_before
    with pytest.raises(ExecutionNotFoundError):
        raw.store.get_execution(DOOMED)
    listed = raw.store.list_executions(ListScope.ALL, None, 10, None).items
    assert [e.workflow_execution_id for e in listed] == [KEPT]


def test_deleting_a_run_twice_or_one_never_stored_is_no_error(raw: RawTables) -> None:
    _a_run_in_every_table(raw, DOOMED)

    assert raw.store.delete_execution(DOOMED) is True
    assert raw.store.delete_execution(DOOMED) is False
    assert raw.store.delete_execution("never-stored") is False
    assert raw.mentioning(DOOMED) == {}


def test_a_run_of_many_steps_goes_whole(raw: RawTables) -> None:
    """More rows than one BatchWriteItem (25) and one SQLite IN list of a wave take."""
    write_launch(raw.store, a_launch(DOOMED, steps=30, start=MONDAY))
    for index in range(30):
        raw.store.add_step_outputs(some_outputs(DOOMED, index))

    raw.store.delete_execution(DOOMED)

    assert raw.mentioning(DOOMED) == {}


def test_a_sqlite_file_made_before_attempts_were_kept_deletes_a_run_all_the_same(
    sqlite_file_execution_store: SqliteExecutionStore, request: pytest.FixtureRequest
) -> None:
    raw = RawTables("sqlite_file", request)
    write_launch(raw.store, a_launch(DOOMED))
    name = TableNames().get_table_name(ResourceKeys.TASK_EXECUTIONS)
    with request.getfixturevalue("sqlite_file_database").write() as connection:
        connection.execute(f'DROP TABLE "{name}"')
    store = SqliteExecutionStore(request.getfixturevalue("sqlite_file_database"), TableNames())

    assert store.delete_execution(DOOMED) is True
    assert raw.mentioning(DOOMED) == {}
