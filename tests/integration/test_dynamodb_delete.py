"""A permanent delete on DynamoDB (moto): batched, retried, and safe to cut short.

The faults are injected by client wrappers: everything they let through really reaches moto.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.dynamodb.codec import from_wire
from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.dynamodb.requests import BATCH_WRITE_LIMIT
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import ListScope
from tests.contract.builders import a_launch, some_outputs, write_launch

RUN = "doomed-run"


def _rows_mentioning(client: Any, text: str) -> int:
    """Rows holding `text` anywhere, in every table of the account (a Scan of each)."""
    count = 0
    for name in client.list_tables()["TableNames"]:
        for page in client.get_paginator("scan").paginate(TableName=name):
            count += sum(text in json.dumps(from_wire(item), default=str) for item in page["Items"])
    return count


def _store_a_run(store: DynamoDbExecutionStore, steps: int = 3) -> None:
    write_launch(store, a_launch(RUN, steps=steps))
    for index in range(steps):
        store.add_step_outputs(some_outputs(RUN, index))


class _CutShort:
    """Delegates to the real client; the connection "drops" at the first BatchWriteItem that
    names `table`, after the earlier ones went through."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_write_item(self, **request: Any) -> Any:
        if self._table in request["RequestItems"]:
            raise ConnectionError("simulated crash during the delete")
        return self._client.batch_write_item(**request)


@pytest.mark.parametrize(
    "table",
    [
        ResourceKeys.PIPELINE_LOGS,
        ResourceKeys.PIPELINE_EXECUTIONS,
        ResourceKeys.WORKFLOW_EXECUTIONS,
    ],
    ids=["in the steps' rows", "in the run's rows", "at the main row"],
)
def test_a_delete_cut_short_leaves_the_run_listed_and_deleting_it_again_finishes_the_job(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames, table: ResourceKeys
) -> None:
    """The main row goes last: a delete that dies part-way leaves a run that is still read and
    listed (with fewer rows), never rows that no read can reach."""
    store = DynamoDbExecutionStore(moto_dynamodb_client, dynamodb_table_names)
    _store_a_run(store, steps=10)  # 60 rows of its steps alone: three batches
    cut: Any = _CutShort(moto_dynamodb_client, dynamodb_table_names.get_table_name(table))

    with pytest.raises(ConnectionError):
        DynamoDbExecutionStore(cut, dynamodb_table_names).delete_execution(RUN)

    assert store.get_execution(RUN).workflow_execution_id == RUN
    listed = store.list_executions(ListScope.ALL, None, 10, None).items
    assert [execution.workflow_execution_id for execution in listed] == [RUN]
    assert store.delete_execution(RUN) is True
    assert _rows_mentioning(moto_dynamodb_client, RUN) == 0


class _Throttling:
    """Delegates to the real client, recording each BatchWriteItem; the first one is only half
    applied, the rest handed back as UnprocessedItems (as DynamoDB does when throttled)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.sizes: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_write_item(self, RequestItems: dict[str, list[Any]]) -> Any:  # noqa: N803
        self.sizes.append(sum(len(writes) for writes in RequestItems.values()))
        if len(self.sizes) > 1:
            return self._client.batch_write_item(RequestItems=RequestItems)
        writes = [(table, write) for table, requests in RequestItems.items() for write in requests]
        half = len(writes) // 2
        applied: dict[str, list[Any]] = {}
        for table, write in writes[:half]:
            applied.setdefault(table, []).append(write)
        self._client.batch_write_item(RequestItems=applied)
        unprocessed: dict[str, list[Any]] = {}
        for table, write in writes[half:]:
            unprocessed.setdefault(table, []).append(write)
        return {"UnprocessedItems": unprocessed}


def test_deletes_go_25_to_a_request_and_unprocessed_ones_are_sent_again(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    store = DynamoDbExecutionStore(moto_dynamodb_client, dynamodb_table_names)
    _store_a_run(store, steps=10)
    throttling: Any = _Throttling(moto_dynamodb_client)

    assert DynamoDbExecutionStore(throttling, dynamodb_table_names).delete_execution(RUN) is True

    assert max(throttling.sizes) == BATCH_WRITE_LIMIT
    assert throttling.sizes[1] == BATCH_WRITE_LIMIT - BATCH_WRITE_LIMIT // 2  # the retry
    assert _rows_mentioning(moto_dynamodb_client, RUN) == 0
