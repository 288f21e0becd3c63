"""A launch that dies part-way leaves no execution visible in any list (DynamoDB on moto).

A launch over 100 items cannot be one transaction: its supporting rows are batch-written first and
the main row last. The crash is injected by a client wrapper that fails the main-row write the way
a lost connection would; everything before it really reaches moto.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.system import SystemClock
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import ExecutionStore, ListScope
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from domain.errors import ExecutionNotFoundError
from tests.contract.builders import a_launch, write_launch


class _CrashBeforeMainRow:
    """Delegates to the real client, but the connection "drops" on any write of the main row."""

    def __init__(self, client: Any, main_table: str) -> None:
        self._client, self._main_table = client, main_table

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def put_item(self, **request: Any) -> Any:
        if request["TableName"] == self._main_table:
            raise ConnectionError("simulated crash before the main row")
        return self._client.put_item(**request)

    def transact_write_items(self, **request: Any) -> Any:
        raise ConnectionError("simulated crash during the transaction")


def _visible_anywhere(store: ExecutionStore, execution_id: str) -> list[str]:
    seen = []
    for scope, partition in (
        (ListScope.ALL, None),
        (ListScope.WORKFLOW, "db1:wf1"),
        (ListScope.GROUP, "nightly"),
    ):
        page = store.list_executions(scope, partition, 100, None)
        if any(e.workflow_execution_id == execution_id for e in page.items):
            seen.append(scope.value)
    for asset in ("db1/scans", "db1/results"):
        page = ListExecutions(store, clock=SystemClock()).execute(
            ListExecutionsQuery(asset=asset, limit=100)
        )
        if any(e.workflow_execution_id == execution_id for e in page.items):
            seen.append(asset)
    return seen


@pytest.mark.parametrize("input_count", [2, 60], ids=["one transaction", "main row last"])
def test_a_launch_that_dies_part_way_is_in_no_list_and_can_be_retried(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames, input_count: int
) -> None:
    launch = a_launch(
        "crash-1",
        group="nightly",
        inputs=[("db1:scans", f"part-{n}.obj") for n in range(input_count)],
        output_asset="db1:results",
        steps=3,
    )
    main_table = dynamodb_table_names.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)
    crashing_client: Any = _CrashBeforeMainRow(moto_dynamodb_client, main_table)
    crashing = DynamoDbExecutionStore(crashing_client, dynamodb_table_names)
    store = DynamoDbExecutionStore(moto_dynamodb_client, dynamodb_table_names)

    with pytest.raises(ConnectionError):
        write_launch(crashing, launch)

    with pytest.raises(ExecutionNotFoundError):
        store.get_execution("crash-1")
    assert _visible_anywhere(store, "crash-1") == []

    write_launch(store, launch)  # the retry writes the same rows again and completes the launch
    assert _visible_anywhere(store, "crash-1") == [
        "all",
        "workflow",
        "group",
        "db1/scans",
        "db1/results",
    ]
