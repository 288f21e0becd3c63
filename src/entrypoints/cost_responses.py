"""The cost ledger's answers, one contract for `wfx costs ... --json` and `GET /costs`.

Money and quantities are decimal strings: a JSON number would pass through float in most
clients, and money never does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from application.use_cases.summarize_costs import CostSummaryResult
from domain.costs import CostLedgerEntry, CostSummaryRow
from domain.derived import written_fields
from entrypoints.responses import Response


def plain(number: Decimal) -> str:
    """The exact value without trailing zeros or an exponent: 0.0016666700 -> 0.00166667."""
    return format(number.normalize(), "f")


def _optional(number: Decimal | None) -> str | None:
    return None if number is None else plain(number)


class CostEntryResponse(Response):
    entry_id: str
    workflow_execution_id: str
    pipeline_execution_id: str
    attempt: int
    workflow_database_id: str
    workflow_id: str
    execution_group_id: str | None = None
    asset_keys: tuple[str, ...] = ()
    kind: str
    quantity: str
    unit: str
    unit_price: str | None = None
    currency: str | None = None
    amount: str | None = None
    basis: str
    source: str
    recorded_at: str
    supersedes: str | None = None

    @classmethod
    def of(cls, entry: CostLedgerEntry) -> CostEntryResponse:
        as_text = {
            "kind": entry.kind.value,
            "quantity": plain(entry.quantity),
            "unit_price": _optional(entry.unit_price),
            "amount": _optional(entry.amount),
            "basis": entry.basis.value,
            "source": entry.source.value,
            "recorded_at": entry.recorded_at.isoformat().replace("+00:00", "Z"),
        }
        return cls(**(written_fields(entry) | as_text))


class CostEntriesResponse(Response):
    entries: tuple[CostEntryResponse, ...]

    @classmethod
    def of(cls, entries: Sequence[CostLedgerEntry]) -> CostEntriesResponse:
        return cls(entries=tuple(CostEntryResponse.of(e) for e in entries))


class AmountResponse(Response):
    currency: str
    basis: str
    amount: str
    entries: int


class QuantityResponse(Response):
    unit: str
    basis: str
    quantity: str
    entries: int


class CostSummaryRowResponse(Response):
    day: date | None = None  # only with by=day
    amounts: tuple[AmountResponse, ...]
    quantities: tuple[QuantityResponse, ...]

    @classmethod
    def of(cls, row: CostSummaryRow) -> CostSummaryRowResponse:
        return cls(
            day=row.day,
            amounts=tuple(
                AmountResponse(
                    currency=t.currency,
                    basis=t.basis.value,
                    amount=plain(t.amount),
                    entries=t.entries,
                )
                for t in row.amounts
            ),
            quantities=tuple(
                QuantityResponse(
                    unit=t.unit, basis=t.basis.value, quantity=plain(t.quantity), entries=t.entries
                )
                for t in row.quantities
            ),
        )


class CostSummaryResponse(Response):
    scope: str
    key: str | None = None
    by: str | None = None
    rows: tuple[CostSummaryRowResponse, ...]
    entries: int
    superseded: int

    @classmethod
    def of(cls, result: CostSummaryResult) -> CostSummaryResponse:
        return cls(
            scope=result.scope.value,
            key=result.key,
            by="day" if result.by_day else None,
            rows=tuple(CostSummaryRowResponse.of(row) for row in result.summary.rows),
            entries=result.summary.entries,
            superseded=result.summary.superseded,
        )
