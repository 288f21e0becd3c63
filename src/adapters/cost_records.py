"""Cost-ledger items, shared by both storage adapters: keys, sparse index keys, ISO dates.

Quantities and money are stored as decimal strings: a DynamoDB number would survive, but a
SQLite JSON number is read back as a float, and money never passes through float.
"""

from __future__ import annotations

from decimal import Decimal
from operator import attrgetter
from typing import Any

from adapters.compact_json import RowTemplates, encode_compact
from adapters.item_budget import Record, new_record
from adapters.records import format_date, parse_date, row_parser
from domain.costs import CostLedgerEntry, validated_entry

Item = dict[str, Any]

PARTITION = "workflowExecutionId"
ENTRY_KEY = "entryKey"
WORKFLOW_KEY = "workflowDatabaseId:workflowId"
GROUP = "executionGroupId"
ALL_COSTS = "allCostsPartition"
RECORDED_AT = "recordedAt"
# The constant partition of CostsByDateGSI: every entry carries it, or it is missing from the
# summaries by day (as an execution without allListPartition is missing from the global list).
ALL_COSTS_PARTITION = "cost"


def entry_key(entry: CostLedgerEntry) -> str:
    """`pipelineExecutionId:attempt:entryId`: a run's entries by step, then by attempt."""
    return f"{entry.pipeline_execution_id}:{entry.attempt}:{entry.entry_id}"  # join_key's text


def build_cost_ledger_record(entry: CostLedgerEntry) -> Record:
    if entry.supersedes:  # an id of its own a correction: as part of the key, a kept row each
        return _fitted_cost(cost_ledger_item(entry), None)
    rows = _COST_ROWS if entry.amount is None else _PRICED_COST_ROWS
    varying: tuple[str, ...] = (
        entry.workflow_execution_id,
        entry_key(entry),
        entry.entry_id,
        entry.pipeline_execution_id,
        str(entry.quantity),
        format_date(entry.recorded_at),
    )
    if entry.amount is not None:
        varying += (str(entry.amount),)
    return rows.record(_cost_key(entry), varying, lambda: cost_ledger_item(entry), _fitted_cost)


def cost_ledger_item(entry: CostLedgerEntry) -> Item:
    """The entry's row, built from its fields one by one."""
    item: Item = {
        PARTITION: entry.workflow_execution_id,
        ENTRY_KEY: entry_key(entry),
        "entryId": entry.entry_id,
        "pipelineExecutionId": entry.pipeline_execution_id,
        "attempt": entry.attempt,
        "workflowDatabaseId": entry.workflow_database_id,
        "workflowId": entry.workflow_id,
        WORKFLOW_KEY: entry.workflow_key,
        ALL_COSTS: ALL_COSTS_PARTITION,
        "assetKeys": list(entry.asset_keys),
        "kind": str(entry.kind),
        "quantity": str(entry.quantity),
        "unit": entry.unit,
        "basis": str(entry.basis),
        "source": str(entry.source),
        RECORDED_AT: format_date(entry.recorded_at),
    }
    # Sparse: an indexed key is never an empty string (seed 000); absent means "none". Each
    # tested in turn, in the item's order: most entries (a runner's durations) have none.
    if entry.execution_group_id:
        item[GROUP] = entry.execution_group_id
    if entry.unit_price is not None:
        item["unitPrice"] = str(entry.unit_price)
    if entry.currency:
        item["currency"] = entry.currency
    if entry.amount is not None:
        item["amount"] = str(entry.amount)
    if entry.supersedes:
        item["supersedes"] = entry.supersedes
    return item


def _fitted_cost(item: Item, text: str | None) -> Record:
    # ids, numbers, decimal texts and a date: far below any budget (records.py), so not
    # fitted; its JSON made here, for a store that writes JSON (SQLite)
    return new_record(item, (), encode_compact(item) if text is None else text)


# A runner writes one a step (its duration): the same for each run of a workflow but for its
# ids, its quantity and its moment (and its amount, when priced), kept whole
# (compact_json.RowTemplates) by every other field of the entry. A price by its text: two equal
# Decimals may have two texts (1.0, 1.00).
_COST_VARYING = (PARTITION, ENTRY_KEY, "entryId", "pipelineExecutionId", "quantity", RECORDED_AT)
_COST_ROWS = RowTemplates(_COST_VARYING)
_PRICED_COST_ROWS = RowTemplates((*_COST_VARYING, "amount"))
_cost_fields = attrgetter(
    "attempt",
    "workflow_database_id",
    "workflow_id",
    "execution_group_id",
    "asset_keys",
    "kind",
    "unit",
    "currency",
    "basis",
    "source",
)


def _cost_key(entry: CostLedgerEntry) -> tuple[Any, ...]:
    price = entry.unit_price
    return (_cost_fields(entry), None if price is None else str(price))


def _decimal(item: Item, name: str) -> Decimal | None:
    value = item.get(name)
    return None if value is None else Decimal(str(value))


@row_parser("WfxCostLedgerTable", "workflowExecutionId", "entryKey")
def parse_cost_ledger_record(item: Item) -> CostLedgerEntry:
    return validated_entry(
        entry_id=item["entryId"],
        workflow_execution_id=item[PARTITION],
        pipeline_execution_id=item["pipelineExecutionId"],
        attempt=int(item["attempt"]),
        workflow_database_id=item["workflowDatabaseId"],
        workflow_id=item["workflowId"],
        execution_group_id=item.get(GROUP),
        asset_keys=tuple(item.get("assetKeys") or ()),
        kind=item["kind"],
        quantity=Decimal(str(item["quantity"])),
        unit=item["unit"],
        unit_price=_decimal(item, "unitPrice"),
        currency=item.get("currency"),
        amount=_decimal(item, "amount"),
        basis=item["basis"],
        source=item["source"],
        recorded_at=parse_date(item[RECORDED_AT]),
        supersedes=item.get("supersedes"),
    )
