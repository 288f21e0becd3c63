"""The DynamoDB store keeps the keys it knows: a step's move committed is one transaction, and
lands on a row another process (another store) wrote since it was known, keeping what that
wrote; the guards still decide."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.tables import TableNames
from domain.run import StepMove
from domain.statuses import StepStatus
from tests.contract.builders import (
    a_launch,
    an_attempt,
    at,
    registered_on_step,
    step_id,
    step_moved,
    write_launch,
)
from tests.contract.test_execution_store_registration import LOG

pytestmark = pytest.mark.integration

SID = step_id("e1", 0)
NEW = frozenset({StepStatus.NEW})
OPEN = frozenset({StepStatus.NEW, StepStatus.RUNNING})


def start() -> StepMove:
    return StepMove(
        "e1", SID, StepStatus.RUNNING, NEW, start_date=at(1), open_attempt=an_attempt(SID, 1)
    )


def finish() -> StepMove:
    return StepMove("e1", SID, StepStatus.SUCCEEDED, OPEN, stop_date=at(2), close_attempt=1)


@pytest.fixture
def stores(
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
    body_object_store: FilesystemObjectStore,
) -> Iterator[tuple[DynamoDbExecutionStore, DynamoDbExecutionStore]]:
    """Two processes' stores on one account: the first launches the run, so knows its rows."""
    one, other = (
        DynamoDbExecutionStore(
            moto_dynamodb_client, dynamodb_table_names, objects=body_object_store
        )
        for _ in range(2)
    )
    write_launch(one, a_launch("e1"))
    yield one, other


@pytest.fixture
def requests(moto_dynamodb_client: Any) -> Iterator[list[str]]:
    """The operation of every request the client sends."""
    calls: list[str] = []

    def count(model: Any, **_: Any) -> None:
        calls.append(model.name)

    events = moto_dynamodb_client.meta.events
    events.register("before-call.dynamodb.*", count)
    try:
        yield calls
    finally:
        events.unregister("before-call.dynamodb.*", count)


def test_a_move_from_the_launching_store_is_one_transaction(
    stores: tuple[DynamoDbExecutionStore, DynamoDbExecutionStore], requests: list[str]
) -> None:
    one, _ = stores
    requests.clear()

    assert step_moved(one, start())

    assert requests == ["TransactWriteItems"]
    assert one.get_step(SID).status is StepStatus.RUNNING


def test_a_move_after_another_process_registered_keeps_its_registration(
    stores: tuple[DynamoDbExecutionStore, DynamoDbExecutionStore],
) -> None:
    one, other = stores
    registered_on_step(other, "e1", SID, logs=(LOG,))

    assert step_moved(one, start())

    started = other.get_step(SID)
    assert (started.status, started.registered_logs) == (StepStatus.RUNNING, (LOG,))


def test_a_move_after_another_process_moved_the_step_keeps_that_move_too(
    stores: tuple[DynamoDbExecutionStore, DynamoDbExecutionStore],
) -> None:
    one, other = stores
    assert step_moved(other, start())

    assert step_moved(one, finish())  # known NEW, stored RUNNING: both are expected

    finished = other.get_step(SID)
    assert (finished.status, finished.start_date) == (StepStatus.SUCCEEDED, at(1))


def test_the_guard_still_refuses_a_move_another_process_made_impossible(
    stores: tuple[DynamoDbExecutionStore, DynamoDbExecutionStore],
) -> None:
    one, other = stores
    assert step_moved(other, start())
    assert step_moved(other, finish())

    assert not step_moved(one, start())
    assert one.get_step(SID).status is StepStatus.SUCCEEDED
