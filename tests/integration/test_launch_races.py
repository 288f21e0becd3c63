"""Two launches of one run id (a launch retried with its client token while the first is still
writing) on DynamoDB (moto), where a launch over 100 items is no one transaction: its
supporting rows go in batches, then the main row on condition no run holds the id.

The loser must not write over the winner's rows: by the time its batches land, the winner's
runner may have started a step (its row RUNNING, its attempt open).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.tables import TableNames
from domain.errors import ExecutionAlreadyExistsError
from domain.run import first_start
from domain.run_write import RunWrite
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, at, step_id, write_launch

RUN = "token-run"


class _OtherLaunchFirst:
    """The DynamoDB client of the retried launch: just before its first BatchWriteItem (after
    it found no main row), the first launch lands whole and its runner starts the first step."""

    def __init__(self, client: Any, other: Callable[[], None]) -> None:
        self._client = client
        self._other: Callable[[], None] | None = other

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_write_item(self, **request: Any) -> Any:
        if self._other is not None:
            other, self._other = self._other, None
            other()
        return self._client.batch_write_item(**request)


def test_a_big_launch_that_loses_to_another_of_its_id_leaves_the_winner_s_rows_as_they_are(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    launch = a_launch(RUN, inputs=[("db1:scans", f"part-{n}.obj") for n in range(60)], steps=3)
    store = DynamoDbExecutionStore(moto_dynamodb_client, dynamodb_table_names)

    def first_launch_and_its_first_step() -> None:
        write_launch(store, launch)
        assert store.commit(RunWrite.of(RUN, moves=(first_start(RUN, step_id(RUN, 0), at(1)),)))

    client: Any = _OtherLaunchFirst(moto_dynamodb_client, first_launch_and_its_first_step)
    retried = DynamoDbExecutionStore(client, dynamodb_table_names)

    with pytest.raises(ExecutionAlreadyExistsError):  # the use case answers the first's run
        write_launch(retried, launch)

    run = store.get_run(RUN)
    assert [step.status for step in run.steps] == [
        StepStatus.RUNNING,
        StepStatus.NEW,
        StepStatus.NEW,
    ]
    assert [(a.attempt, a.status.value) for a in run.attempts] == [(1, "RUNNING")]
