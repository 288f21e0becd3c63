"""The DynamoDB store's reads sent at once answer exactly what the same reads one after another
answer: the same details (every collection, in order), the same unreadable rows named in the
same order, the same failure; and a permanent delete sent at once leaves nothing behind.

Two stores on one moto client and one set of tables: the default (`concurrent_reads=True`) and
one whose reads go one after another, as every read went before (`concurrent_reads=False`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.dynamodb.run_archive import DynamoDbRunArchive
from adapters.local.object_store import FilesystemObjectStore
from adapters.run_archive import RunArchiveRows
from adapters.tables import TABLE_SPECS, ResourceKeys, TableNames
from domain.errors import UnreadableRowError
from domain.run import StepMove
from domain.statuses import StepStatus
from tests.contract.builders import (
    a_launch,
    an_attempt,
    at,
    some_outputs,
    step_id,
    step_moved,
    write_launch,
)

pytestmark = pytest.mark.integration

RUN = "e1"  # the attempts builder's run
STEPS = 5


@pytest.fixture
def stores(moto_dynamodb_tables: Any, tmp_path: Path) -> tuple[Any, ...]:
    objects = FilesystemObjectStore(tmp_path / "objects")
    at_once = DynamoDbExecutionStore(moto_dynamodb_tables, TableNames(), objects=objects)
    in_turn = DynamoDbExecutionStore(
        moto_dynamodb_tables, TableNames(), objects=objects, concurrent_reads=False
    )
    return moto_dynamodb_tables, at_once, in_turn


def _a_run_with_every_row(store: DynamoDbExecutionStore) -> None:
    """RUN: its steps each with a row of every output table, the first three with attempts."""
    write_launch(store, a_launch(RUN, steps=STEPS))
    running = frozenset({StepStatus.RUNNING})
    for index in range(STEPS):
        sid = step_id(RUN, index)
        store.add_step_outputs(some_outputs(RUN, index, version=f"v{index}"))
        if index < 3:
            start = StepMove(
                RUN, sid, StepStatus.RUNNING, frozenset({StepStatus.NEW}), start_date=at(1)
            )
            assert step_moved(store, start)
            for number in (1, 2):
                move = StepMove(RUN, sid, None, running, open_attempt=an_attempt(sid, number))
                assert step_moved(store, move)


def _unreadable(client: Any, table: ResourceKeys, step: str, attribute: str) -> None:
    """`attribute` of the step's first row in `table` made no date beside the store, as another
    writer might."""
    name, spec = TableNames().get_table_name(table), TABLE_SPECS[table]
    (item, *_) = client.query(
        TableName=name,
        KeyConditionExpression="#p = :id",
        ExpressionAttributeNames={"#p": spec.partition.name},
        ExpressionAttributeValues={":id": {"S": step}},
    )["Items"]
    key = {attribute.name: item[attribute.name] for attribute in spec.key_attributes}
    client.update_item(
        TableName=name,
        Key=key,
        UpdateExpression="SET #a = :v",
        ExpressionAttributeNames={"#a": attribute},
        ExpressionAttributeValues={":v": {"S": "yesterday"}},
    )


@pytest.mark.parametrize(
    "read",
    [
        {},
        {"include_outputs": False},
        {"row_limit": 1},
        {"detailed_steps": 2},
        {"leave_out_unreadable": True, "detailed_steps": 3},
    ],
    ids=["whole", "no-outputs", "row-limit", "first-steps", "bounded"],
)
def test_details_read_at_once_are_the_details_read_one_after_another(
    stores: tuple[Any, ...], read: dict[str, Any]
) -> None:
    _, at_once, in_turn = stores
    _a_run_with_every_row(at_once)

    assert at_once.get_details(RUN, **read) == in_turn.get_details(RUN, **read)


def test_the_unreadable_rows_are_named_in_the_same_order(stores: tuple[Any, ...]) -> None:
    client, at_once, in_turn = stores
    _a_run_with_every_row(at_once)
    first, third, fifth = step_id(RUN, 0), step_id(RUN, 2), step_id(RUN, 4)
    # rows of different tables and steps: named in the order the read asks for them
    _unreadable(client, ResourceKeys.TASK_EXECUTIONS, third, "startDate")
    _unreadable(client, ResourceKeys.TASK_EXECUTIONS, first, "startDate")
    _unreadable(client, ResourceKeys.PIPELINE_EXECUTIONS, fifth, "executionStopDate")

    named = at_once.get_details(RUN, leave_out_unreadable=True)

    assert [row.key for row in named.unreadable_rows] == [
        row.key for row in in_turn.get_details(RUN, leave_out_unreadable=True).unreadable_rows
    ]
    assert [row.key.split(" ")[0] for row in named.unreadable_rows] == [fifth, first, third]
    with pytest.raises(UnreadableRowError) as at_once_error:
        at_once.get_details(RUN)
    with pytest.raises(UnreadableRowError) as in_turn_error:
        in_turn.get_details(RUN)
    assert str(at_once_error.value) == str(in_turn_error.value)


def test_a_per_step_query_that_fails_fails_the_read_with_its_error(
    stores: tuple[Any, ...],
) -> None:
    client, at_once, _ = stores
    _a_run_with_every_row(at_once)
    refused: list[str] = []

    def throttle_the_logs(params: dict[str, Any], **_: Any) -> None:
        if b"PipelineExecutionLogsStorageTable" in params["body"]:
            refused.append("logs")
            error = {"Code": "ProvisionedThroughputExceededException", "Message": "Rate exceeded"}
            raise ClientError({"Error": error}, "Query")  # type: ignore[typeddict-item]

    client.meta.events.register("before-call.dynamodb.Query", throttle_the_logs)
    try:
        with pytest.raises(ClientError, match="ProvisionedThroughputExceeded"):
            at_once.get_details(RUN)
    finally:
        client.meta.events.unregister("before-call.dynamodb.Query", throttle_the_logs)
    assert len(refused) == STEPS  # every step's logs were asked: none left unsent or running


def test_a_delete_sent_at_once_leaves_no_row_of_the_run(stores: tuple[Any, ...]) -> None:
    client, at_once, in_turn = stores
    _a_run_with_every_row(at_once)

    assert at_once.delete_execution(RUN)

    with pytest.raises(Exception, match=RUN):
        in_turn.get_execution(RUN)
    for step in range(STEPS):
        sid = step_id(RUN, step)
        for table in (ResourceKeys.PIPELINE_OUTPUT_FILES, ResourceKeys.TASK_EXECUTIONS):
            answer = client.query(
                TableName=TableNames().get_table_name(table),
                KeyConditionExpression="pipelineExecutionId = :id",
                ExpressionAttributeValues={":id": {"S": sid}},
            )
            assert answer["Items"] == [], (table, sid)


def test_the_access_facts_of_runs_read_at_once_are_those_read_one_after_another(
    stores: tuple[Any, ...],
) -> None:
    _, at_once, in_turn = stores
    _a_run_with_every_row(at_once)
    write_launch(at_once, a_launch("e2", steps=2, output_asset=None))
    wanted = ["e2", "nothing-here", RUN, "e2"]

    facts = at_once.access_facts(wanted)

    assert facts == in_turn.access_facts(wanted)
    assert list(facts) == ["e2", RUN]


def test_a_run_exported_at_once_is_the_run_exported_one_after_another(
    stores: tuple[Any, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, at_once, _ = stores
    _a_run_with_every_row(at_once)
    archive = DynamoDbRunArchive(
        client, TableNames(), objects=FilesystemObjectStore(tmp_path / "objects")
    )

    exported = archive.export_run(RUN)
    # every store's way: each partition read after the other
    monkeypatch.setattr(DynamoDbRunArchive, "_partitions", RunArchiveRows._partitions)

    assert exported == archive.export_run(RUN)
    tables = {item.table for item in exported.items}
    assert {"TASK_EXECUTIONS", "PIPELINE_LOGS", "PIPELINE_OUTPUT_FILES"} <= tables, tables
