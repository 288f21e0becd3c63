"""The event log on every store: each transition's events in its own atomic write, numbered
gap-free, and never an event without its transition or a transition without its event."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from adapters.item_budget import OffloadedBodies
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import EventNumberTakenError, ExecutionEvents, ExecutionStore
from application.use_cases.complete_execution import FinishLastStepCommand
from domain.events import EventType
from domain.execution import WorkflowExecution
from domain.logs import RegisteredLog
from domain.run import Run, first_start, plain_finish
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import (
    a_completion,
    a_launch,
    at,
    registered_on_step,
    step_id,
    step_moved,
    write_change,
    write_launch,
)

SID = step_id("e1", 0)
STORES = ["sqlite_file", "sqlite_memory", "dynamodb"]


@pytest.fixture(params=STORES)
def store_and_log(request: pytest.FixtureRequest) -> tuple[ExecutionStore, ExecutionEvents, Any]:
    """The store, its event log, and what a test needs to damage it (a database or a client)."""
    if request.param == "dynamodb":
        from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork

        client = request.getfixturevalue("moto_dynamodb_client")
        names = request.getfixturevalue("dynamodb_table_names")
        store = request.getfixturevalue("dynamodb_execution_store")
        return store, DynamoDbUnitOfWork(client, names, OffloadedBodies(None)), client
    database: SqliteDatabase = request.getfixturevalue(f"{request.param}_database")
    store = request.getfixturevalue(f"{request.param}_execution_store")
    log = SqliteUnitOfWork(database, build_schema(TableNames()), OffloadedBodies(None))
    return store, log, database


def kinds(log: ExecutionEvents) -> list[tuple[int, str, str | None]]:
    return [
        (e.sequence_number, e.event_type.value, e.status)
        for e in log.events_after("e1", 0, 100).items
    ]


# a run whose one started step failed: launched, the step and its attempt started and ended, the end
A_FAILED_RUN = [
    (1, "ExecutionLaunched", "RUNNING"),
    (2, "StepStarted", "RUNNING"),
    (3, "AttemptStarted", "RUNNING"),
    (4, "AttemptFinished", "FAILED"),
    (5, "StepFinished", "FAILED"),
    (6, "ExecutionCompleted", "FAILED"),
]


def test_a_run_s_transitions_are_logged_in_order(store_and_log: Any) -> None:
    store, log, _ = store_and_log
    write_launch(store, a_launch("e1"))
    assert step_moved(store, first_start("e1", SID, at(1)))
    assert step_moved(
        store, plain_finish("e1", SID, StepStatus.FAILED, "boom password=hunter2", at(2), 1)
    )
    run = store.get_run("e1")
    end = run.complete(ExecutionStatus.FAILED, at(3), None, "", None)
    assert end is not None
    write_change(store, end.change)
    assert kinds(log) == A_FAILED_RUN
    finished = log.events_after("e1", 3, 1).items[0]
    assert finished.pipeline_execution_id == SID and finished.attempt == 1
    assert finished.error == "boom password=[REDACTED]"  # redacted before it was stored
    assert finished.occurred_at == at(2)
    page = log.events_after("e1", 0, 4)
    assert len(page.items) == 4 and page.next_token == "4"
    assert log.events_after("e1", 6, 10).items == () and log.events_after("nope", 0, 10).items == ()


def test_a_step_failure_that_ends_the_run_in_one_write_logs_what_the_two_writes_logged(
    store_and_log: Any, tmp_path: Path
) -> None:
    store, log, _ = store_and_log
    write_launch(store, a_launch("e1", steps=2))
    assert step_moved(store, first_start("e1", SID, at(1)))
    completion = a_completion(store, tmp_path)
    command = FinishLastStepCommand(
        workflow_execution_id="e1",
        pipeline_execution_id=SID,
        attempt=1,
        status=StepStatus.FAILED,
        error="boom",
    )
    completion.finish_last_step(command)
    completion.finish_last_step(command)  # delivered again: nothing more
    assert kinds(log) == A_FAILED_RUN


def test_a_refused_transition_logs_nothing(store_and_log: Any) -> None:
    store, log, _ = store_and_log
    write_launch(store, a_launch("e1"))
    assert step_moved(store, first_start("e1", SID, at(1)))
    assert not step_moved(store, first_start("e1", SID, at(2)))  # started already
    lease = Run(execution=store.get_execution("e1")).renew_lease("me", at(2), at(3) - at(2))
    assert write_change(store, lease) is None  # the lease is not "me"'s: refused
    assert [n for n, _, _ in kinds(log)] == [1, 2, 3]


def test_a_lease_change_is_no_transition_and_logs_nothing(store_and_log: Any) -> None:
    store, log, _ = store_and_log
    write_launch(store, a_launch("e1"))
    take = Run(execution=store.get_execution("e1")).take_lease("me", at(1), at(2) - at(1))
    assert write_change(store, take) is not None
    assert [kind for _, kind, _ in kinds(log)] == ["ExecutionLaunched"]


def _plant_event(damage: Any, number: int, monkeypatch: pytest.MonkeyPatch | None = None) -> None:
    """An item at `number` that wfx did not write, on DynamoDB; on SQLite, a trigger that fails
    every insert into the events table (SQLite numbers under its write lock, from the log itself,
    so a planted row would only move the next number on). With `monkeypatch`, the DynamoDB
    counter cannot catch up with the planted item, so the write keeps failing (a counter that
    can is moved on: test_event_counter_behind_log.py)."""
    if isinstance(damage, SqliteDatabase):
        table = build_schema(TableNames())[ResourceKeys.EXECUTION_EVENTS].name
        with damage.write() as connection:
            connection.execute(
                f'CREATE TRIGGER refuse_events BEFORE INSERT ON "{table}" '
                "BEGIN SELECT RAISE(ABORT, 'injected: the event write fails'); END"
            )
        return
    if monkeypatch is not None:
        from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork

        monkeypatch.setattr(DynamoDbUnitOfWork, "_catch_up", lambda *_: None)
    damage.put_item(
        TableName=TableNames().get_table_name(ResourceKeys.EXECUTION_EVENTS),
        Item={
            "workflowExecutionId": {"S": "e1"},
            "sequenceNumber": {"N": str(number)},
            "eventType": {"S": "Note"},
            "occurredAt": {"S": "2024-01-01T00:00:00.000000Z"},
        },
    )


FAILED_EVENT_WRITE = (EventNumberTakenError, sqlite3.IntegrityError)


def test_a_step_start_whose_event_fails_is_not_applied(
    store_and_log: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _, damage = store_and_log
    write_launch(store, a_launch("e1"))
    _plant_event(damage, 2, monkeypatch)
    with pytest.raises(FAILED_EVENT_WRITE):
        assert step_moved(store, first_start("e1", SID, at(1)))
    run = store.get_run("e1")
    assert run.step(SID).status is StepStatus.NEW  # the transition did not happen
    assert run.attempts == ()  # nor its attempt


def test_an_abort_request_whose_event_fails_is_not_applied(
    store_and_log: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _, damage = store_and_log
    write_launch(store, a_launch("e1"))
    _plant_event(damage, 2, monkeypatch)
    change = Run(execution=store.get_execution("e1")).request_abort(at(1), "stop it")
    assert change is not None
    with pytest.raises(FAILED_EVENT_WRITE):
        write_change(store, change)
    execution: WorkflowExecution = store.get_execution("e1")
    assert execution.abort_requested_date is None and execution.status is ExecutionStatus.RUNNING


def test_a_launch_whose_event_fails_is_not_applied(store_and_log: Any) -> None:
    store, _, damage = store_and_log
    _plant_event(damage, 1)
    with pytest.raises(FAILED_EVENT_WRITE):
        write_launch(store, a_launch("e1"))
    from domain.errors import ExecutionNotFoundError

    with pytest.raises(ExecutionNotFoundError):
        store.get_execution("e1")


def test_a_deleted_run_takes_its_events_with_it(store_and_log: Any) -> None:
    store, log, _ = store_and_log
    write_launch(store, a_launch("e1"))
    assert step_moved(store, first_start("e1", SID, at(1)))
    assert store.delete_execution("e1")
    assert log.events_after("e1", 0, 10).items == ()
    write_launch(store, a_launch("e1"))  # the id again: its log starts again at 1
    assert [n for n, _, _ in kinds(log)] == [1]


def test_appending_to_a_run_that_does_not_exist_is_refused(store_and_log: Any) -> None:
    from datetime import UTC, datetime

    from domain.errors import ExecutionNotFoundError
    from domain.events import NewEvent

    _, log, _ = store_and_log
    event = NewEvent(
        workflow_execution_id="nope", event_type=EventType.NOTE, occurred_at=datetime.now(UTC)
    )
    with pytest.raises(ExecutionNotFoundError):
        log.append_events("nope", [event])


def test_a_registration_s_event_is_stamped_with_the_registration_s_moment(
    store_and_log: Any,
) -> None:
    store, log, _ = store_and_log
    write_launch(store, a_launch("e1"))
    registered = RegisteredLog(log_group_name="/aws/batch/job", log_stream_name="s-1")
    registered_on_step(store, "e1", SID, logs=(registered,), registered_at=at(7))
    (event,) = [
        e
        for e in log.events_after("e1", 0, 100).items
        if e.event_type is EventType.SUB_PROCESS_REGISTERED
    ]
    assert (event.occurred_at, event.logs) == (at(7), 1)
