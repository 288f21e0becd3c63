"""The first open of a large SQLite file an earlier wfx wrote, as a real process: its items are
read and rewritten a batch at a time, so the upgrade's peak memory (VmHWM in /proc) does not grow
with the file's rows (it held every row at once)."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.item_shapes_version import ITEM_SHAPES_VERSION
from adapters.run_records import build_execution_record
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql
from adapters.tables import ResourceKeys, TableNames
from domain.statuses import ExecutionStatus
from tests.contract.builders import an_execution
from tests.e2e.cli import Wfx, peak_kib

pytestmark = pytest.mark.xdist_group("e2e-cli-item-upgrade-scale")

# both files past SQLite's page cache (2 MiB by default, full at ~2,000 rows of these): a 1k-row
# file left it part empty, and the large one's +2.2 MB was the cache filling, not rows held
SMALL, LARGE = 3_000, 12_000
# 9k more rows: +0.3 MB measured (a batch of 1,000 held either way); every row held: +3.9 MB
MOST_GROWTH_KIB = 2048
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
EARLIER_NAME = "stateMachineArn"  # an earlier wfx's; the upgrade drops it


def _fill_earlier(wfx: Wfx, count: int) -> None:
    """`count` main rows each holding an earlier attribute, in a file with no shapes mark."""
    database = SqliteDatabase(wfx.home / "wfx.db")
    tables = TableNames()
    SqliteExecutionStore(database, tables).create_tables()
    table = TableSql.render(build_schema(tables)[ResourceKeys.WORKFLOW_EXECUTIONS])
    template = an_execution("template", status=ExecutionStatus.SUCCEEDED)
    rows = []
    for number in range(count):
        run = template.model_copy(
            update={
                "workflow_execution_id": f"run-{number:06d}",
                "execution_start_date": EPOCH + timedelta(seconds=number),
            }
        )
        rows.append(table.row({**build_execution_record(run), EARLIER_NAME: "arn:earlier"}))
    with database.write() as connection:
        connection.executemany(table.insert, rows)
        connection.execute("PRAGMA user_version = 0")
    database.close()


def _earlier_left(wfx: Wfx) -> int:
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == ITEM_SHAPES_VERSION
        items = connection.execute('SELECT item FROM "WorkflowExecutionsStorageTableV2"')
        return sum(EARLIER_NAME in json.loads(text) for (text,) in items)


def test_the_first_open_of_a_large_earlier_file_holds_a_batch_of_its_rows_not_all(
    tmp_path: Path,
) -> None:
    small, large = Wfx(tmp_path / "small"), Wfx(tmp_path / "large")
    _fill_earlier(small, SMALL)
    _fill_earlier(large, LARGE)

    # the same command on both: a list off a terminal without --json loads less than one with it
    small_peak, _ = peak_kib(small, "executions", "list", "--limit", "1", "--json")
    large_peak, listed = peak_kib(large, "executions", "list", "--limit", "1", "--json")

    assert json.loads(listed)["Items"][0]["workflowExecutionId"] == f"run-{LARGE - 1:06d}"
    assert _earlier_left(small) == _earlier_left(large) == 0  # every row rewritten
    assert large_peak - small_peak < MOST_GROWTH_KIB, (small_peak, large_peak)
