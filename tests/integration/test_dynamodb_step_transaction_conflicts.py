"""A step-and-attempt transaction cancelled by another in-flight write is tried again (DynamoDB on
moto).

moto runs each request alone, so it never cancels a transaction for a conflict. The conflict is
injected by a client wrapper that answers the first TransactWriteItems calls the way DynamoDB does
(TransactionCanceledException with a `TransactionConflict` reason and nothing applied); the
transaction that follows really reaches moto.
"""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.tables import TableNames
from domain.run import StepMove
from domain.run_write import RunWrite
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, an_attempt, at, step_id, write_launch

SID = step_id("e1", 0)
NEW = frozenset({StepStatus.NEW})
# a start on an open run with no abort requested: a transaction of three items
START = StepMove(
    "e1",
    SID,
    StepStatus.RUNNING,
    NEW,
    start_date=at(1),
    while_open=True,
    open_attempt=an_attempt(SID, 1),
)


class _ConflictingFirst:
    """Delegates to the real client; the next `conflicts_left` transactions are cancelled."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.conflicts_left = 0
        self.transactions = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def transact_write_items(self, **request: Any) -> Any:
        self.transactions += 1
        if self.conflicts_left:
            self.conflicts_left -= 1
            reasons = [{"Code": "TransactionConflict", "Message": "Transaction is ongoing"}]
            reasons += [{"Code": "None"}] * (len(request["TransactItems"]) - 1)
            response: Any = {
                "Error": {
                    "Code": "TransactionCanceledException",
                    "Message": "Transaction cancelled, please refer cancellation reasons "
                    "for specific reasons [TransactionConflict, None]",
                },
                "CancellationReasons": reasons,
            }
            raise ClientError(response, "TransactWriteItems")
        return self._client.transact_write_items(**request)


def _store(client: Any, names: TableNames) -> tuple[DynamoDbExecutionStore, _ConflictingFirst]:
    wrapped = _ConflictingFirst(client)
    store = DynamoDbExecutionStore(wrapped, names)  # type: ignore[arg-type]
    write_launch(store, a_launch("e1"))  # a launch under 100 items: one transaction
    wrapped.transactions = 0
    return store, wrapped


def test_a_start_cancelled_by_a_conflict_is_tried_again_and_lands_once(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    store, client = _store(moto_dynamodb_client, dynamodb_table_names)
    client.conflicts_left = 2

    assert store.commit(RunWrite.of(START.workflow_execution_id, moves=(START,)))

    assert store.get_step(SID).status is StepStatus.RUNNING
    assert client.transactions == 3
    assert [a.attempt for a in store.list_attempts([SID])] == [1]


def test_conflicts_that_never_clear_are_raised_and_nothing_is_written(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    store, client = _store(moto_dynamodb_client, dynamodb_table_names)
    client.conflicts_left = 100

    with pytest.raises(ClientError, match="TransactionConflict"):
        store.commit(RunWrite.of(START.workflow_execution_id, moves=(START,)))

    assert client.transactions == 5
    assert store.get_step(SID).status is StepStatus.NEW
    assert store.list_attempts([SID]) == []
