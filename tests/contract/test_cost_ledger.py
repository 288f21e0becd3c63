"""The CostLedger contract, on every adapter: append-only, all-or-nothing, read by scope."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from application.ports.costs import CostLedger, CostScope
from domain.costs import (
    CostBasis,
    CostEntryExistsError,
    CostKind,
    CostLedgerEntry,
    CostSource,
    CostTally,
)
from domain.errors import ExecutionNotFoundError
from tests.contract.builders import a_launch, write_launch

RUNS = {"run-1": "db1:wf1", "run-2": "db1:wf1", "run-3": "db1:wf1", "run-4": "db1:wf2"}


@pytest.fixture
def cost_ledger(store_and_ledger: tuple[Any, CostLedger]) -> CostLedger:
    """The ledger beside a store holding the runs its entries name (an entry needs its run)."""
    store, ledger = store_and_ledger
    for run, workflow in RUNS.items():
        write_launch(store, a_launch(run, workflow=workflow))
    return ledger


def an_entry(entry_id: str, run: str = "run-1", **changes: Any) -> CostLedgerEntry:
    fields: dict[str, Any] = {
        "entry_id": entry_id,
        "workflow_execution_id": run,
        "pipeline_execution_id": f"{run}-step-0",
        "attempt": 1,
        "workflow_database_id": "db1",
        "workflow_id": "wf1",
        "execution_group_id": None,
        "asset_keys": ("db1:scans", "db1:results"),
        "kind": CostKind.USAGE,
        "quantity": Decimal("12.5"),
        "unit": "lambda-GB-seconds",
        "unit_price": Decimal("0.0000166667"),
        "currency": "USD",
        "amount": Decimal("12.5") * Decimal("0.0000166667"),
        "basis": CostBasis.ESTIMATE,
        "source": CostSource.REPORT,
        "recorded_at": datetime(2026, 12, 1, 10, 0, tzinfo=UTC),
    }
    return CostLedgerEntry(**(fields | changes))


def test_an_appended_entry_reads_back_equal_with_exact_decimals(cost_ledger: CostLedger) -> None:
    entry = an_entry("e1", quantity=Decimal("0.1"), amount=Decimal("0.30000000000000000001"))

    cost_ledger.append([entry])

    assert cost_ledger.list_entries(CostScope.EXECUTION, "run-1") == [entry]


def test_an_unpriced_entry_without_group_or_correction_reads_back_without_them(
    cost_ledger: CostLedger,
) -> None:
    entry = an_entry("e1", kind=CostKind.DURATION, unit="seconds", unit_price=None)
    entry = replace(entry, currency=None, amount=None)

    cost_ledger.append([entry])

    (stored,) = cost_ledger.list_entries(CostScope.EXECUTION, "run-1")
    assert (stored.unit_price, stored.currency, stored.amount) == (None, None, None)
    assert stored.execution_group_id is None and stored.supersedes is None


def test_a_run_lists_its_entries_by_step_then_attempt_and_no_other_runs(
    cost_ledger: CostLedger,
) -> None:
    later = an_entry("b", pipeline_execution_id="run-1-step-1")
    second = an_entry("a", attempt=2)
    first = an_entry("z")
    cost_ledger.append([later, second, an_entry("x", run="run-2"), first])

    listed = cost_ledger.list_entries(CostScope.EXECUTION, "run-1")

    assert [e.entry_id for e in listed] == ["z", "a", "b"]


def test_the_same_entry_key_is_refused_and_the_whole_append_is_not_applied(
    cost_ledger: CostLedger,
) -> None:
    cost_ledger.append([an_entry("e1")])

    with pytest.raises(CostEntryExistsError, match="e1"):
        cost_ledger.append([an_entry("e2"), an_entry("e1", quantity=Decimal(99))])

    assert [e.entry_id for e in cost_ledger.list_entries(CostScope.EXECUTION, "run-1")] == ["e1"]
    assert cost_ledger.list_entries(CostScope.EXECUTION, "run-1")[0].quantity == Decimal("12.5")


def test_a_correction_is_a_new_entry_and_the_entry_it_supersedes_stays(
    cost_ledger: CostLedger,
) -> None:
    estimate = an_entry("e1")
    actual = an_entry("e2", basis=CostBasis.ACTUAL, source=CostSource.IMPORT, supersedes="e1")

    cost_ledger.append([estimate])
    cost_ledger.append([actual])

    assert cost_ledger.list_entries(CostScope.EXECUTION, "run-1") == [estimate, actual]


def test_workflow_group_and_all_scopes_read_their_entries_oldest_first(
    cost_ledger: CostLedger,
) -> None:
    def on(day: int, entry_id: str, **changes: Any) -> CostLedgerEntry:
        moment = datetime(2026, 12, day, 9, 0, tzinfo=UTC)
        return an_entry(entry_id, recorded_at=moment, **changes)

    grouped = on(3, "g", run="run-3", execution_group_id="nightly")
    other_workflow = on(1, "o", run="run-4", workflow_id="wf2")
    cost_ledger.append([grouped, on(2, "w"), other_workflow])

    workflow = cost_ledger.list_entries(CostScope.WORKFLOW, "db1:wf1")
    assert [e.entry_id for e in workflow] == ["w", "g"]
    assert cost_ledger.list_entries(CostScope.GROUP, "nightly") == [grouped]
    assert cost_ledger.list_entries(CostScope.GROUP, "other") == []
    everything = cost_ledger.list_entries(CostScope.ALL, None)
    assert [e.entry_id for e in everything] == ["o", "w", "g"]


def test_a_tally_of_each_scope_counts_its_entries_and_leaves_out_the_replaced_ones(
    cost_ledger: CostLedger,
) -> None:
    estimate = an_entry("e1", quantity=Decimal("10"), amount=Decimal("1"))
    kept = an_entry("e2", quantity=Decimal("4"), amount=Decimal("0.4"))
    bill = an_entry(
        "b1", quantity=Decimal("12"), amount=Decimal("1.2"), basis=CostBasis.ACTUAL,
        supersedes="e1",
    )  # fmt: skip
    elsewhere = an_entry(
        "x", run="run-4", workflow_id="wf2", execution_group_id="nightly", amount=Decimal("2")
    )
    cost_ledger.append([estimate, kept, elsewhere])
    cost_ledger.append([bill])

    def tallied(scope: CostScope, key: str | None) -> tuple[int, int, dict[str, Decimal]]:
        tally = CostTally()
        cost_ledger.tally(scope, key, tally)
        summary = tally.summary()
        (row,) = summary.rows
        amounts = {str(total.basis): total.amount for total in row.amounts}
        return summary.entries, summary.superseded, amounts

    by_hand = {"estimate": Decimal("0.4"), "actual": Decimal("1.2")}
    assert tallied(CostScope.EXECUTION, "run-1") == (2, 1, by_hand)
    assert tallied(CostScope.WORKFLOW, "db1:wf1") == (2, 1, by_hand)
    everything = by_hand | {"estimate": Decimal("2.4")}
    assert tallied(CostScope.ALL, None) == (3, 1, everything)
    assert tallied(CostScope.GROUP, "nightly") == (1, 0, {"estimate": Decimal("2")})
    assert tallied(CostScope.GROUP, "other") == (0, 0, {})


def test_more_entries_than_one_dynamodb_transaction_holds_are_all_appended(
    cost_ledger: CostLedger,
) -> None:
    entries = [an_entry(f"e{n:03}") for n in range(130)]

    cost_ledger.append(entries)

    assert len(cost_ledger.list_entries(CostScope.EXECUTION, "run-1")) == 130
    assert len(cost_ledger.list_entries(CostScope.WORKFLOW, "db1:wf1")) == 130


def test_an_unknown_run_has_no_entries(cost_ledger: CostLedger) -> None:
    assert cost_ledger.list_entries(CostScope.EXECUTION, "nobody") == []


def test_an_entry_of_a_run_that_is_not_there_is_refused_with_the_whole_append(
    store_and_ledger: tuple[Any, CostLedger],
) -> None:
    """A run deleted between the reads that priced the entries and their append keeps none."""
    store, ledger = store_and_ledger
    write_launch(store, a_launch("run-1"))
    write_launch(store, a_launch("gone"))
    store.delete_execution("gone")

    with pytest.raises(ExecutionNotFoundError, match="gone"):
        ledger.append([an_entry("e1"), an_entry("e2", run="gone")])

    assert ledger.list_entries(CostScope.EXECUTION, "run-1") == []
    assert ledger.list_entries(CostScope.EXECUTION, "gone") == []
