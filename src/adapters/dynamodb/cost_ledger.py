"""`CostLedger` on DynamoDB: appends are conditional puts in TransactWriteItems, reads are
Queries on the table or one of its indexes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from adapters.cost_records import (
    ALL_COSTS,
    ALL_COSTS_PARTITION,
    ENTRY_KEY,
    GROUP,
    PARTITION,
    RECORDED_AT,
    WORKFLOW_KEY,
    Item,
    build_cost_ledger_record,
    parse_cost_ledger_record,
)
from adapters.dynamodb.codec import to_wire
from adapters.dynamodb.requests import CONDITION_FAILED, cancellation_codes, query_partition
from adapters.dynamodb.schema import create_tables
from adapters.tables import (
    COSTS_BY_DATE_INDEX,
    COSTS_BY_GROUP_INDEX,
    COSTS_BY_WORKFLOW_INDEX,
    ResourceKeys,
    TableNames,
)
from application.ports.costs import CostScope
from domain.costs import CostEntryExistsError, CostLedgerEntry, CostTally
from domain.errors import ExecutionNotFoundError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

TRANSACTION_LIMIT = 100  # TransactWriteItems' cap on actions in one request

# Which partition attribute (and index) a scope reads; None: the table itself.
_READS: dict[CostScope, tuple[str, str | None]] = {
    CostScope.EXECUTION: (PARTITION, None),
    CostScope.WORKFLOW: (WORKFLOW_KEY, COSTS_BY_WORKFLOW_INDEX),
    CostScope.GROUP: (GROUP, COSTS_BY_GROUP_INDEX),
    CostScope.ALL: (ALL_COSTS, COSTS_BY_DATE_INDEX),
}


def _index_order(item: Item) -> tuple[str, str, str]:
    # an index orders by recordedAt alone; equal dates are put in the SQLite adapter's order
    return (item[RECORDED_AT], item[PARTITION], item[ENTRY_KEY])


def cost_entry_put(table_name: str, entry: CostLedgerEntry) -> dict[str, Any]:
    """The entry's Put for a transaction: append-only, a key is written once, never replaced."""
    return {
        "TableName": table_name,
        "Item": to_wire(build_cost_ledger_record(entry)),
        "ConditionExpression": "attribute_not_exists(#pk)",
        "ExpressionAttributeNames": {"#pk": PARTITION},
    }


class DynamoDbCostLedger:
    """Cost entries in wfx's cost-ledger table."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client = client
        self._tables = tables
        self._table_name = tables.get_table_name(ResourceKeys.COST_LEDGER)
        self._executions_table = tables.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)

    def append(self, entries: Sequence[CostLedgerEntry]) -> None:
        chunk: list[CostLedgerEntry] = []
        runs: dict[str, CostLedgerEntry] = {}  # each run's first entry: its main row's key
        for entry in entries:
            fresh = entry.workflow_execution_id not in runs
            if len(chunk) + len(runs) + 1 + fresh > TRANSACTION_LIMIT:
                self._transact(chunk, list(runs.values()))
                chunk, runs, fresh = [], {}, True
            chunk.append(entry)
            if fresh:
                runs[entry.workflow_execution_id] = entry
        if chunk:
            self._transact(chunk, list(runs.values()))

    def _transact(
        self, entries: Sequence[CostLedgerEntry], runs: Sequence[CostLedgerEntry]
    ) -> None:
        """The entries, and a check that each run's main row is there (a run deleted meanwhile
        keeps no entry: its delete takes the run's entries after the main row)."""
        actions: list[Any] = [{"Put": cost_entry_put(self._table_name, entry)} for entry in entries]
        actions += [{"ConditionCheck": self._run_check(entry)} for entry in runs]
        try:
            self._client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            codes = cancellation_codes(exc)
            for entry, code in zip(entries, codes, strict=False):
                if code == CONDITION_FAILED:
                    raise CostEntryExistsError.of(entry) from exc
            for entry, code in zip(runs, codes[len(entries) :], strict=False):
                if code == CONDITION_FAILED:
                    raise ExecutionNotFoundError(entry.workflow_execution_id) from exc
            raise

    def _run_check(self, entry: CostLedgerEntry) -> dict[str, Any]:
        # an entry names its run's workflow as the run's main row is keyed by it
        key = {PARTITION: entry.workflow_execution_id, WORKFLOW_KEY: entry.workflow_key}
        return {
            "TableName": self._executions_table,
            "Key": to_wire(key),
            "ConditionExpression": "attribute_exists(#pk)",
            "ExpressionAttributeNames": {"#pk": PARTITION},
        }

    def list_entries(self, scope: CostScope, key: str | None) -> list[CostLedgerEntry]:
        value = ALL_COSTS_PARTITION if scope is CostScope.ALL else key
        if not value:
            return []
        attribute, index = _READS[scope]
        items = query_partition(self._client, self._table_name, attribute, value, index)
        if index is not None:
            items.sort(key=_index_order)
        return [parse_cost_ledger_record(item) for item in items]

    def tally(self, scope: CostScope, key: str | None, tally: CostTally) -> None:
        value = ALL_COSTS_PARTITION if scope is CostScope.ALL else key
        if not value:
            return
        # the same one Query as list_entries; the wire items are held (the corrections' targets
        # are known only at the end), each parsed only as it is added
        attribute, index = _READS[scope]
        items = query_partition(self._client, self._table_name, attribute, value, index)
        replaced = {item["supersedes"] for item in items if item.get("supersedes")}
        for item in items:
            entry = parse_cost_ledger_record(item)
            tally.add(entry, entry.entry_id in replaced)
