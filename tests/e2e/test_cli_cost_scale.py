"""`wfx costs summary` over a large ledger, as a real process: its peak memory (VmHWM in /proc)
must not grow with the entries it totals, only with the days, currencies and units it reports."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from adapters.cost_records import build_cost_ledger_record
from adapters.sqlite.cost_ledger import SqliteCostLedger
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql
from adapters.tables import ResourceKeys, TableNames
from domain.costs import CostBasis, CostKind, CostLedgerEntry, CostSource
from tests.e2e.cli import Wfx, peak_kib

pytestmark = pytest.mark.xdist_group("e2e-cli-cost-scale")

SMALL, LARGE = 1_000, 20_000
RUNS_EVERY = 10  # entries a run
# 20k entries held as parsed entries cost ~55 MiB; totals of one currency and unit cost nothing
MOST_GROWTH_KIB = 16 * 1024
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _fill(wfx: Wfx, count: int) -> None:
    """`count` estimates of 1.5 s at 0.01 USD, 10 a run, 30 s apart, as the ledger stores them."""
    database = SqliteDatabase(wfx.home / "wfx.db")
    tables = TableNames()
    SqliteCostLedger(database, tables).create_tables()
    table = TableSql.render(build_schema(tables)[ResourceKeys.COST_LEDGER])
    runs = [uuid.uuid4().hex for _ in range(count // RUNS_EVERY)]
    rows = [
        table.row(
            build_cost_ledger_record(
                CostLedgerEntry(
                    entry_id=f"e{number}",
                    workflow_execution_id=runs[number % len(runs)],
                    pipeline_execution_id="step",
                    attempt=1,
                    workflow_database_id="demo",
                    workflow_id="wf",
                    kind=CostKind.DURATION,
                    quantity=Decimal("1.5"),
                    unit="seconds",
                    unit_price=Decimal("0.01"),
                    currency="USD",
                    amount=Decimal("0.015"),
                    basis=CostBasis.ESTIMATE,
                    source=CostSource.RUNNER,
                    recorded_at=EPOCH + timedelta(seconds=30 * number),
                )
            )
        )
        for number in range(count)
    ]
    with database.write() as connection:
        connection.executemany(table.insert, rows)
    database.close()


def test_a_summary_of_many_entries_holds_its_totals_not_its_entries(tmp_path: Path) -> None:
    small, large = Wfx(tmp_path / "small"), Wfx(tmp_path / "large")
    _fill(small, SMALL)
    _fill(large, LARGE)

    small_peak, small_out = peak_kib(small, "costs", "summary")
    large_peak, large_out = peak_kib(large, "costs", "summary")

    # the totals are right at both sizes: 1.5 s and 0.015 USD an entry
    assert f"{SMALL} entries (0 superseded)" in small_out
    assert f"{LARGE} entries (0 superseded)" in large_out, large_out
    assert "300 USD estimate (20000 entries)" in large_out, large_out
    assert "30000 seconds estimate (20000 entries)" in large_out, large_out
    assert large_peak - small_peak < MOST_GROWTH_KIB, (small_peak, large_peak)
