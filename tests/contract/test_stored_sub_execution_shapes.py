"""Both stores read a step's registeredSubExecutions in either stored shape: VAMS's typed
locators (what wfx writes now) and wfx's former `{resourceType, resourceId, label}` entries, so
a store written before keeps working, and a row a VAMS handler wrote is understood."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adapters.records import Item
from adapters.step_records import build_pipeline_execution_record
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import ExecutionStore
from domain.logs import RegisteredSubExecution
from tests.contract.builders import a_launch, step_id, write_launch
from tests.contract.conftest import BACKENDS

RawPut = Callable[[Item], None]
INNER_RUN = "arn:aws:states:us-east-1:123456789012:execution:inner:run-1"
FARM, QUEUE, JOB = "farm-" + "1" * 32, "queue-" + "2" * 32, "job-" + "3" * 32


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> tuple[ExecutionStore, RawPut]:
    """The store, and a raw write of a step row as another writer made it."""
    name = request.param
    store: ExecutionStore = request.getfixturevalue(f"{name}_execution_store")
    table = TableNames().get_table_name(ResourceKeys.PIPELINE_EXECUTIONS)
    if name == "dynamodb":
        from adapters.dynamodb.codec import to_wire

        client = request.getfixturevalue("moto_dynamodb_client")

        def put(item: Item) -> None:
            client.put_item(TableName=table, Item=to_wire(item))

        return store, put
    from adapters.sqlite.schema import build_schema
    from adapters.sqlite.statements import TableSql

    database: Any = request.getfixturevalue(f"{name}_database")
    sql = TableSql.render(build_schema(TableNames())[ResourceKeys.PIPELINE_EXECUTIONS])

    def put_sqlite(item: Item) -> None:
        with database.write() as connection:
            connection.execute(sql.upsert, sql.row(item))

    return store, put_sqlite


def _stored_with(store: ExecutionStore, put: RawPut, entries: list[dict[str, str]]) -> Any:
    launch = a_launch("e1")
    write_launch(store, launch)
    item = dict(build_pipeline_execution_record(launch.steps[0]))
    put(item | {"registeredSubExecutions": entries})
    return store.get_step(step_id("e1", 0)).registered_sub_executions


def test_wfx_former_entries_are_read_as_typed_locators(
    backend: tuple[ExecutionStore, RawPut],
) -> None:
    store, put = backend
    old = [
        {"resourceType": "stepFunctions", "resourceId": INNER_RUN, "label": "inner"},
        {"resourceType": "batch", "resourceId": "job-7", "label": ""},
        {"resourceType": "deadline", "resourceId": f"{FARM}/{QUEUE}/{JOB}", "label": ""},
        {"resourceType": "localProcess", "resourceId": "4242", "label": ""},
    ]

    assert _stored_with(store, put, old) == (
        RegisteredSubExecution(
            resource_type="stepFunctionsExecution", execution_arn=INNER_RUN, label="inner"
        ),
        RegisteredSubExecution(resource_type="batchJob", job_id="job-7"),
        RegisteredSubExecution(
            resource_type="deadlineCloudJob", farm_id=FARM, queue_id=QUEUE, job_id=JOB
        ),
        RegisteredSubExecution(resource_type="localProcess", local_process_id="4242"),
    )


def test_entries_a_vams_handler_wrote_are_read_as_they_are(
    backend: tuple[ExecutionStore, RawPut],
) -> None:
    store, put = backend
    vams = [
        {"resourceType": "stepFunctionsExecution", "executionArn": INNER_RUN, "stageName": "M"},
        {"executionArn": INNER_RUN + "-2"},  # VAMS's default type: a Step Functions execution
        {"resourceType": "ecsTask", "taskArn": "arn:aws:ecs:us-east-1:1:task/c/t", "extra": "x"},
    ]

    assert _stored_with(store, put, vams) == (
        RegisteredSubExecution(
            resource_type="stepFunctionsExecution", execution_arn=INNER_RUN, stage_name="M"
        ),
        RegisteredSubExecution(
            resource_type="stepFunctionsExecution", execution_arn=INNER_RUN + "-2"
        ),
        RegisteredSubExecution(
            resource_type="ecsTask", task_arn="arn:aws:ecs:us-east-1:1:task/c/t"
        ),
    )
