"""Concurrent appends to one run's event log come out numbered 1..N with no gap and no repeat:
8 writer processes on one SQLite file, 8 writer threads on DynamoDB (moto in-process)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.item_budget import OffloadedBodies
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.tables import TableNames
from application.ports.executions import ExecutionEvents, ExecutionStore, UnitOfWork
from domain.events import EventType, ExecutionEvent, NewEvent
from tests.contract.builders import a_launch, write_launch
from tests.integration.test_registration_concurrency import OneRequestAtATime

WRITERS = 8
SQLITE_EVENTS_EACH = 500
# moto copies its table state for every TransactWriteItems (~16 ms each, growing with the table)
# and answers one request at a time: 8 x 100 took ~3 minutes, 8 x 50 ~34 s, 8 x 32 ~12 s with the
# races the writers lose. SQLite takes the full 8 x 500 = 4,000, in real processes.
DYNAMODB_EVENTS_EACH = 32


def note(writer: int, n: int) -> NewEvent:
    return NewEvent(
        workflow_execution_id="e1",
        event_type=EventType.NOTE,
        occurred_at=datetime.now(UTC),
        status=f"writer-{writer}-{n}",
    )


def all_events(log: ExecutionEvents) -> list[ExecutionEvent]:
    events: list[ExecutionEvent] = []
    after = 0
    while True:
        page = log.events_after("e1", after, 1000)
        events.extend(page.items)
        if page.next_token is None:
            return events
        after = int(page.next_token)


def _append_in_own_process(path: str, writer: int, each: int, start: Any) -> None:
    database = SqliteDatabase(path)
    log = SqliteUnitOfWork(database, build_schema(TableNames()), OffloadedBodies(None))
    start.wait()
    for n in range(each):
        log.append_events("e1", [note(writer, n)])
    database.close()


@pytest.mark.xdist_group("processes")
def test_eight_processes_append_4000_events_gap_free_on_one_sqlite_file(
    tmp_path: Path,
    sqlite_file_execution_store: ExecutionStore,
    sqlite_file_database: SqliteDatabase,
) -> None:
    write_launch(sqlite_file_execution_store, a_launch("e1"))  # event 1: ExecutionLaunched
    path = str(sqlite_file_database.path)
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    writers = [
        context.Process(target=_append_in_own_process, args=(path, w, SQLITE_EVENTS_EACH, start))
        for w in range(WRITERS)
    ]
    for process in writers:
        process.start()
    time.sleep(0.5)  # let them all import before they start together
    start.set()
    for process in writers:
        process.join(timeout=120)
        assert process.exitcode == 0
    log = SqliteUnitOfWork(sqlite_file_database, build_schema(TableNames()), OffloadedBodies(None))
    events = all_events(log)
    assert events[0].event_type is EventType.EXECUTION_LAUNCHED
    assert_gap_free_after_launch(events, WRITERS, SQLITE_EVENTS_EACH)


def assert_gap_free_after_launch(events: list[ExecutionEvent], writers: int, each: int) -> None:
    assert [e.sequence_number for e in events] == list(range(1, writers * each + 2))
    notes = events[1:]
    for writer in range(writers):
        mine = [e.status for e in notes if (e.status or "").startswith(f"writer-{writer}-")]
        assert mine == [f"writer-{writer}-{n}" for n in range(each)]


def test_eight_threads_append_gap_free_on_dynamodb(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    from adapters.dynamodb.execution_store import DynamoDbExecutionStore
    from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork

    client: Any = OneRequestAtATime(moto_dynamodb_client)
    write_launch(DynamoDbExecutionStore(client, dynamodb_table_names), a_launch("e1"))
    barrier = threading.Barrier(WRITERS)

    def writer(w: int) -> None:
        # one unit of work per writer, as each Lambda or runner process has its own
        log: UnitOfWork = DynamoDbUnitOfWork(client, dynamodb_table_names, OffloadedBodies(None))
        barrier.wait()
        for n in range(DYNAMODB_EVENTS_EACH):
            log.append_events("e1", [note(w, n)])

    with ThreadPoolExecutor(WRITERS) as pool:
        list(pool.map(writer, range(WRITERS)))
    reader = DynamoDbUnitOfWork(client, dynamodb_table_names, OffloadedBodies(None))
    assert_gap_free_after_launch(all_events(reader), WRITERS, DYNAMODB_EVENTS_EACH)
