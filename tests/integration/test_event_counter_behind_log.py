"""A run whose event log is ahead of its counter (two transactions landed over each other
half-way, as moto's threaded server let them: an event numbered one past the counter) is moved
on by its next write, on both stores: the write numbers after the log's last event, and the
run's writes after it go on."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.dynamodb.codec import to_wire
from adapters.event_records import build_execution_event_record
from adapters.item_budget import OffloadedBodies
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.tables import ResourceKeys, TableNames
from domain.events import EventType, NewEvent
from tests.contract.builders import a_launch, write_launch
from tests.integration.test_event_log_concurrency import all_events


def note(text: str) -> NewEvent:
    return NewEvent(
        workflow_execution_id="e1",
        event_type=EventType.NOTE,
        occurred_at=datetime.now(UTC),
        status=text,
    )


def _assert_moves_on(log: Any) -> None:  # a UnitOfWork and its ExecutionEvents
    (written,) = log.append_events("e1", [note("next write")])
    assert written.sequence_number == 3  # after the stray event 2, not refused by it
    (after,) = log.append_events("e1", [note("and the one after")])
    assert after.sequence_number == 4
    numbers = [(e.sequence_number, e.status) for e in all_events(log)]
    assert numbers[1:] == [(2, "stray"), (3, "next write"), (4, "and the one after")]


def test_on_dynamodb_a_counter_behind_the_log_catches_up_on_the_next_write(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    from adapters.dynamodb.execution_store import DynamoDbExecutionStore
    from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork

    client = moto_dynamodb_client
    write_launch(DynamoDbExecutionStore(client, dynamodb_table_names), a_launch("e1"))
    # event 2 in the log, the counter still at 1: the half of a transaction that landed
    stray = build_execution_event_record(note("stray").numbered(2))
    client.put_item(
        TableName=dynamodb_table_names.get_table_name(ResourceKeys.EXECUTION_EVENTS),
        Item=to_wire(stray),
    )

    _assert_moves_on(DynamoDbUnitOfWork(client, dynamodb_table_names, OffloadedBodies(None)))


def test_on_sqlite_a_write_numbers_after_an_event_another_process_wrote(
    sqlite_file_database: SqliteDatabase,
    sqlite_file_execution_store: SqliteExecutionStore,
    tmp_path: Path,
) -> None:
    database = sqlite_file_database
    write_launch(sqlite_file_execution_store, a_launch("e1"))
    schema = build_schema(TableNames())
    first = SqliteUnitOfWork(database, schema, OffloadedBodies(None))
    assert first.events_after("e1", 0, 10).items  # it has seen the run at event 1
    other = SqliteUnitOfWork(SqliteDatabase(tmp_path / "wfx.db"), schema, OffloadedBodies(None))
    other.append_events("e1", [note("stray")])

    _assert_moves_on(first)


def test_a_log_that_stays_ahead_is_one_line_on_the_cli_and_a_409_over_http(
    capsys: Any,
) -> None:
    import warnings

    import pytest
    from fastapi import FastAPI

    with warnings.catch_warnings():  # its deprecation warning is printed on stderr otherwise
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from application.ports.executions import EventNumberTakenError
    from entrypoints.cli.errors import EXIT_SERVICE_UNAVAILABLE, exit_for
    from entrypoints.http.errors import install_error_handlers

    error = EventNumberTakenError("execution e1: event 2 is taken although the counter is at 1")
    with pytest.raises(SystemExit) as exited:
        exit_for(error)
    assert exited.value.code == EXIT_SERVICE_UNAVAILABLE
    assert capsys.readouterr().err == f"error: {error}\n"

    app = FastAPI()
    install_error_handlers(app)

    @app.get("/stuck")
    def stuck() -> None:
        raise error

    answer = TestClient(app, raise_server_exceptions=False).get("/stuck")
    assert (answer.status_code, answer.json()) == (409, {"message": str(error)})


def test_on_dynamodb_a_write_refused_by_its_own_guard_is_not_tried_again_for_a_moved_counter(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    """The counter moved since this writer's guess and an item of its own refused its guard
    (there, its old image returned): no event number makes that guard hold, so the write is
    refused after its one TransactWriteItems, not tried again with the stored number."""
    from adapters.dynamodb.execution_store import DynamoDbExecutionStore
    from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork, TransactionRefusedError
    from adapters.records import CONFIGURATION_RECORD_TYPE

    client, tables = moto_dynamodb_client, dynamodb_table_names
    write_launch(DynamoDbExecutionStore(client, tables), a_launch("e1"))
    writer = DynamoDbUnitOfWork(client, tables, OffloadedBodies(None))
    main_key = writer.main_key("e1")  # its counter read too: 1, the launch's event
    assert main_key is not None
    DynamoDbUnitOfWork(client, tables, OffloadedBodies(None)).append_events("e1", [note("moved")])
    configuration = client.get_item(
        TableName=tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION),
        Key=to_wire({"workflowExecutionId": "e1", "recordType": CONFIGURATION_RECORD_TYPE}),
    )["Item"]
    taken = {  # the configuration row is there: its put-if-absent is refused
        "TableName": tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION),
        "Item": configuration,
        "ConditionExpression": "attribute_not_exists(workflowExecutionId)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
    }
    sent: list[str] = []

    def count(model: Any, **_: Any) -> None:
        sent.append(model.name)

    client.meta.events.register("before-call.dynamodb.TransactWriteItems", count)
    try:
        with pytest.raises(TransactionRefusedError) as refused:
            writer.transact("e1", main_key, [("Put", None, taken)], None, [note("no")], KeyError())
    finally:
        client.meta.events.unregister("before-call.dynamodb.TransactWriteItems", count)
    assert refused.value.position == 0
    assert sent == ["TransactWriteItems"]
    assert [e.status for e in all_events(writer)][1:] == ["moved"]  # nothing of the refused
