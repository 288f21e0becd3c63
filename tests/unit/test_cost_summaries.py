"""Cost summaries against totals worked out by hand: currencies apart, estimate and actual
apart, a correction replacing the estimate it supersedes."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from domain.costs import (
    DEFAULT_RATE_CARD,
    AmountTotal,
    CostBasis,
    CostEntryNotFoundError,
    CostEntrySupersededError,
    CostKind,
    CostLedgerEntry,
    CostSource,
    QuantityTotal,
    check_supersedes,
    summarize,
    validated_entry,
)


def entry(entry_id: str, quantity: str, price: str | None, **changes: Any) -> CostLedgerEntry:
    currency = changes.pop("currency", "USD" if price is not None else None)
    fields: dict[str, Any] = {
        "entry_id": entry_id,
        "workflow_execution_id": "run-1",
        "pipeline_execution_id": "step-1",
        "attempt": 1,
        "workflow_database_id": "db1",
        "workflow_id": "wf1",
        "kind": CostKind.USAGE,
        "quantity": Decimal(quantity),
        "unit": "lambda-GB-seconds",
        "unit_price": None if price is None else Decimal(price),
        "currency": currency,
        "amount": None if price is None else Decimal(quantity) * Decimal(price),
        "basis": CostBasis.ESTIMATE,
        "source": CostSource.REPORT,
        "recorded_at": datetime(2026, 12, 1, 9, tzinfo=UTC),
    }
    return validated_entry(**(fields | changes))


def test_a_correction_replaces_the_estimate_it_supersedes_in_the_totals() -> None:
    # by hand: estimates 100 x 0.0001 = 0.01 and 40 x 0.0001 = 0.004; the first is corrected
    # by an actual bill of 120 x 0.0001 = 0.012. Counted: estimate 0.004, actual 0.012.
    first = entry("e1", "100", "0.0001")
    second = entry("e2", "40", "0.0001")
    bill = entry("b1", "120", "0.0001", basis=CostBasis.ACTUAL, supersedes="e1")

    summary = summarize([first, second, bill])

    (row,) = summary.rows
    assert row.amounts == (
        AmountTotal(currency="USD", basis=CostBasis.ACTUAL, amount=Decimal("0.012"), entries=1),
        AmountTotal(currency="USD", basis=CostBasis.ESTIMATE, amount=Decimal("0.004"), entries=1),
    )
    assert row.quantities == (
        QuantityTotal(
            unit="lambda-GB-seconds", basis=CostBasis.ACTUAL, quantity=Decimal(120), entries=1
        ),
        QuantityTotal(
            unit="lambda-GB-seconds", basis=CostBasis.ESTIMATE, quantity=Decimal(40), entries=1
        ),
    )
    assert (summary.entries, summary.superseded) == (2, 1)


def test_amounts_in_different_currencies_are_never_added() -> None:
    # by hand: USD 2 x 0.5 + 3 x 0.25 = 1.75; EUR 4 x 0.1 = 0.4
    summary = summarize(
        [
            entry("a", "2", "0.5"),
            entry("b", "3", "0.25"),
            entry("c", "4", "0.1", currency="EUR"),
        ]
    )

    amounts = {(t.currency, t.basis): t.amount for t in summary.rows[0].amounts}
    assert amounts == {
        ("EUR", CostBasis.ESTIMATE): Decimal("0.4"),
        ("USD", CostBasis.ESTIMATE): Decimal("1.75"),
    }


def test_an_unpriced_entry_adds_its_quantity_and_no_amount() -> None:
    duration = entry("d", "12.25", None, kind=CostKind.DURATION, unit="seconds")

    (row,) = summarize([duration, entry("p", "1", "0.5")]).rows

    assert [(t.currency, t.amount, t.entries) for t in row.amounts] == [("USD", Decimal("0.5"), 1)]
    assert {t.unit: t.quantity for t in row.quantities}["seconds"] == Decimal("12.25")


def test_by_day_a_correction_counts_on_its_own_day_and_its_estimate_on_none() -> None:
    # by hand: Dec 1 estimates 10 x 0.01 = 0.1 (corrected) and 5 x 0.01 = 0.05; Dec 3 the bill
    # for the first, 11 x 0.01 = 0.11. Dec 1: estimate 0.05. Dec 3: actual 0.11.
    estimate = entry("e1", "10", "0.01")
    kept = entry("e2", "5", "0.01")
    bill = entry(
        "b1",
        "11",
        "0.01",
        basis=CostBasis.ACTUAL,
        supersedes="e1",
        recorded_at=datetime(2026, 12, 3, 23, 59, tzinfo=UTC),
    )

    rows = summarize([bill, estimate, kept], by_day=True).rows

    assert [(r.day, [(t.basis.value, t.amount) for t in r.amounts]) for r in rows] == [
        (date(2026, 12, 1), [("estimate", Decimal("0.05"))]),
        (date(2026, 12, 3), [("actual", Decimal("0.11"))]),
    ]


def test_nothing_recorded_summarizes_to_one_empty_row() -> None:
    summary = summarize([])

    assert summary.rows[0].amounts == () and summary.entries == 0


def test_a_correction_names_an_entry_of_its_run_that_nothing_replaced() -> None:
    first = entry("e1", "1", "1")
    fix = entry("f1", "2", "1", supersedes="e1")

    check_supersedes(fix, [first])
    with pytest.raises(CostEntryNotFoundError, match="e9"):
        check_supersedes(entry("f2", "2", "1", supersedes="e9"), [first])
    with pytest.raises(CostEntrySupersededError, match="superseded already by f1"):
        check_supersedes(entry("f2", "2", "1", supersedes="e1"), [first, fix])


def test_money_needs_its_currency_and_never_a_float_rounding() -> None:
    with pytest.raises(ValidationError, match="currency"):
        entry("x", "1", "1", currency=None)
    assert entry("x", "0.1", "3").amount == Decimal(
        "0.3"
    )  # 0.1 * 3 in float is 0.30000000000000004


def test_the_default_rate_card_prices_lambda_by_memory_and_batch_vcpu_seconds() -> None:
    by_memory = DEFAULT_RATE_CARD.price_of("lambda-1024MB-seconds")
    assert by_memory is not None and by_memory.unit_price == Decimal("0.0000166667")
    assert by_memory.currency == "USD"
    assert DEFAULT_RATE_CARD.price_of("batch-vCPU-seconds") is not None
    assert DEFAULT_RATE_CARD.price_of("seconds") is None  # a local second has no known price
