"""`wfx export` of a store with many runs, as a real process: the run list is walked a page at
a time, so its peak memory (VmHWM in /proc) does not grow with the store's runs, and a run
deleted while the export goes is left out without ending it."""

from __future__ import annotations

import json
import subprocess
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

pytestmark = pytest.mark.xdist_group("e2e-cli-export-scale")

SMALL, LARGE = 2_000, 20_000
# Ids of the longest a run may have (80 characters): 18k more of them, all held, took ~2.9 MiB
# more (60.8 -> 63.7 MB); a page of 1,000 held, ~0.2 MiB (61.0 -> 61.2 MB)
MOST_GROWTH_KIB = 1536
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _run_id(number: int) -> str:
    return f"run-{number:06d}-".ljust(80, "x")


def _fill(wfx: Wfx, count: int) -> None:
    """`count` ended runs (main rows), one a second, through the store's own insert."""
    database = SqliteDatabase(wfx.home / "wfx.db")
    tables = TableNames()
    SqliteExecutionStore(database, tables).create_tables()
    table = TableSql.render(build_schema(tables)[ResourceKeys.WORKFLOW_EXECUTIONS])
    template = an_execution("template", status=ExecutionStatus.SUCCEEDED)
    rows = [
        table.row(
            build_execution_record(
                template.model_copy(
                    update={
                        "workflow_execution_id": _run_id(number),
                        "execution_start_date": EPOCH + timedelta(seconds=number),
                        "execution_stop_date": EPOCH + timedelta(seconds=number + 5),
                    }
                )
            )
        )
        for number in range(count)
    ]
    with database.write() as connection:
        connection.executemany(table.insert, rows)
        # the rows are in today's shapes: the first wfx to open the file must not rewrite them
        # all (item_upgrade), a peak of its own
        connection.execute(f"PRAGMA user_version = {ITEM_SHAPES_VERSION}")
    database.close()


def test_an_export_of_many_runs_holds_a_page_of_their_ids_not_all(tmp_path: Path) -> None:
    small, large = Wfx(tmp_path / "small"), Wfx(tmp_path / "large")
    _fill(small, SMALL)
    _fill(large, LARGE)

    small_peak, small_out = peak_kib(small, "export", "--to", str(tmp_path / "small.jsonl"))
    large_peak, large_out = peak_kib(large, "export", "--to", str(tmp_path / "large.jsonl"))

    assert small_out.startswith(f"exported {SMALL} runs: {SMALL} items"), small_out
    assert large_out.startswith(f"exported {LARGE} runs: {LARGE} items"), large_out
    with (tmp_path / "large.jsonl").open(encoding="utf-8") as lines:
        next(lines)  # the header
        runs = [json.loads(line)["run"] for line in lines]
    assert runs == [_run_id(number) for number in range(LARGE)]  # each once, oldest first
    assert large_peak - small_peak < MOST_GROWTH_KIB, (small_peak, large_peak)


def test_runs_deleted_while_the_export_walks_are_left_out_and_the_rest_exported(
    tmp_path: Path,
) -> None:
    wfx = Wfx(tmp_path / "home")
    _fill(wfx, 1_500)  # two pages of the run list, many times what a pipe buffers
    gone = [_run_id(900), _run_id(1_400)]  # on the page read first, and on the next
    pipe = tmp_path / "export.pipe"
    subprocess.run(["mkfifo", str(pipe)], check=True)
    exporting = wfx.start("export", "--to", str(pipe))
    with pipe.open(encoding="utf-8") as reading:
        lines = [reading.readline(), reading.readline()]  # the header, the first run
        for run_id in gone:  # while the export waits on a full pipe
            wfx.ok("executions", "delete", run_id)
        lines += reading

    stdout, stderr = exporting.communicate(timeout=60)
    assert exporting.returncode == 0, stderr
    runs = [json.loads(line)["run"] for line in lines[1:]]
    assert runs == [_run_id(n) for n in range(1_500) if _run_id(n) not in gone]
    assert "exported 1498 runs" in stderr + stdout, (stdout, stderr)
