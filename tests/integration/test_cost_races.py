"""Cost entries appended while a permanent delete of their run goes, on SQLite (a file) and
DynamoDB (moto): no entry of a deleted run is left behind.

The delete is injected between the recording's reads of the run (its context, the attempt
charged) and its append; and, on DynamoDB, whose delete goes in waves, the append is injected
while the waves go, before the main row's.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, cast

import pytest

from adapters.dynamodb.cost_ledger import DynamoDbCostLedger
from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.tables import TableNames
from application.ports.costs import CostLedger, CostScope
from application.use_cases.delete_execution import DeleteExecutionCommand
from application.use_cases.record_cost import RecordCost, RecordCostCommand, ReportedUsage
from application.use_cases.step_tracking import StartStepCommand
from domain.costs import CostLedgerEntry, CostTally
from domain.errors import ExecutionNotFoundError
from tests.contract.builders import a_duration_entry, a_launch, step_id, write_launch

RUN = "costly-run"


class _DeletedBeforeTheAppend:
    """The ledger, before whose append another process deletes the run for good."""

    def __init__(self, ledger: CostLedger, delete: Any) -> None:
        self._ledger, self._delete = ledger, delete

    def create_tables(self) -> None:
        self._ledger.create_tables()

    def append(self, entries: Sequence[CostLedgerEntry]) -> None:
        self._delete()
        self._ledger.append(entries)

    def list_entries(self, scope: CostScope, key: str | None) -> list[CostLedgerEntry]:
        return self._ledger.list_entries(scope, key)

    def tally(self, scope: CostScope, key: str | None, tally: CostTally) -> None:
        self._ledger.tally(scope, key, tally)


def test_usage_reported_while_its_run_is_deleted_is_refused_and_leaves_no_entry(
    inline_container: Any,
) -> None:
    container = inline_container
    write_launch(container.execution_store(), a_launch(RUN, steps=1))
    start = StartStepCommand(workflow_execution_id=RUN, pipeline_execution_id=step_id(RUN, 0))
    container.start_step().execute(start)
    ledger = container.cost_ledger()

    def delete() -> None:
        command = DeleteExecutionCommand(workflow_execution_id=RUN, force=True)
        container.delete_execution().execute(command)

    record = RecordCost(
        _DeletedBeforeTheAppend(ledger, delete),
        container.execution_store(),
        container.rate_card(),
        container.clock(),
        container.ids(),
    )
    usage = ReportedUsage(quantity=Decimal(3), unit="gpu-seconds")
    command = RecordCostCommand(
        workflow_execution_id=RUN, pipeline_execution_id=step_id(RUN, 0), usages=(usage,)
    )

    with pytest.raises(ExecutionNotFoundError, match=RUN):
        record.execute(command)

    assert ledger.list_entries(CostScope.EXECUTION, RUN) == []
    assert ledger.list_entries(CostScope.WORKFLOW, "db1:wf1") == []


class _AppendDuringTheWaves:
    """The DynamoDB client, through which another process appends an entry of the run before
    each of the delete's BatchWriteItems, the last one (the main row's) included."""

    def __init__(self, client: Any, ledger: CostLedger) -> None:
        self._client, self._ledger, self.appended = client, ledger, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_write_item(self, **request: Any) -> Any:
        try:
            self._ledger.append([a_duration_entry(RUN, attempt=self.appended + 1)])
            self.appended += 1
        except ExecutionNotFoundError:
            pass
        return self._client.batch_write_item(**request)


def test_on_dynamodb_an_entry_appended_while_the_delete_s_waves_go_is_deleted_with_the_run(
    dynamodb_execution_store: Any, moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> None:
    write_launch(dynamodb_execution_store, a_launch(RUN, steps=1))
    ledger = DynamoDbCostLedger(moto_dynamodb_client, dynamodb_table_names)
    client = _AppendDuringTheWaves(moto_dynamodb_client, ledger)
    deleting = DynamoDbExecutionStore(cast(Any, client), dynamodb_table_names)

    assert deleting.delete_execution(RUN)

    assert client.appended >= 2  # before the waves of the run's rows and of its main row

    assert ledger.list_entries(CostScope.EXECUTION, RUN) == []
