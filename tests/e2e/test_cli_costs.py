"""`wfx costs` as a user runs it, on SQLite: a real local run whose step is retried records one
duration entry per attempt (priced by the rate card of WFX_RATE_CARD); usage is reported, a
billing export corrects it, a bad export changes nothing; summaries match totals by hand."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import TableNames
from domain.run import first_start
from tests.contract.builders import a_launch, step_id, step_moved, write_launch
from tests.e2e.cli import Wfx, assert_bad_input

pytestmark = pytest.mark.xdist_group("e2e-cli-costs")

FLAKY = (
    "import os, sys; marker = 'flaky-ran'; first = not os.path.exists(marker); "
    "open(marker, 'a').close(); sys.exit(3 if first else 0)"
)


def _flaky_run(wfx: Wfx) -> tuple[str, str]:
    """A run of one command step that fails once and succeeds on its retry: (run, step)."""
    document = {
        "databaseId": "demo",
        "workflowId": "flaky",
        "steps": [
            {
                "pipelineId": "flaky",
                "executionType": "command",
                "command": [sys.executable, "-c", FLAKY],
                "inputFileArity": "none",
                "retry": {"maxAttempts": 2, "intervalSeconds": 1},
            }
        ],
    }
    path = wfx.home / "flaky.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))
    run = wfx.run_id("demo/flaky")
    shown = wfx.json("executions", "show", run)
    (step,) = shown["pipelines"]
    return run, step["pipelineExecutionId"]


def _amounts(summary: dict[str, Any]) -> dict[tuple[str, str], Decimal]:
    (row,) = summary["rows"]
    return {(t["currency"], t["basis"]): Decimal(t["amount"]) for t in row["amounts"]}


@pytest.fixture
def priced_wfx(wfx: Wfx, tmp_path: Path) -> Wfx:
    card = tmp_path / "card.yaml"
    card.write_text('rates:\n  seconds: {unitPrice: "0.001", currency: EUR}\n', encoding="utf-8")
    return wfx.with_environment(WFX_RATE_CARD=str(card))


def test_a_retried_step_has_one_priced_duration_entry_per_attempt(priced_wfx: Wfx) -> None:
    run, _ = _flaky_run(priced_wfx)

    summary = priced_wfx.json("costs", "summary", "--execution", run)

    (seconds,) = summary["rows"][0]["quantities"]
    assert (seconds["unit"], seconds["basis"], seconds["entries"]) == ("seconds", "estimate", 2)
    (amount,) = summary["rows"][0]["amounts"]
    assert amount["currency"] == "EUR" and amount["entries"] == 2
    # by hand: the two attempts' seconds at 0.001 EUR each
    assert Decimal(amount["amount"]) == Decimal(seconds["quantity"]) * Decimal("0.001")


def test_reported_usage_a_correcting_import_and_a_bad_import_that_changes_nothing(
    wfx: Wfx,
) -> None:
    run, step = _flaky_run(wfx)
    reported = wfx.json(
        "costs", "report", run, "--step", step, "--quantity", "100", "--unit", "lambda-GB-seconds"
    )
    (entry,) = reported["entries"]
    assert entry["attempt"] == 2 and entry["amount"] == "0.00166667"  # 100 x 0.0000166667
    usd = wfx.json(
        "costs",
        "report",
        run,
        "--step",
        step,
        "--attempt",
        "1",
        "--quantity",
        "3",
        "--unit",
        "batch-vCPU-seconds",
        "--unit-price",
        "0.5",
        "--currency",
        "USD",
        "--actual",
    )["entries"][0]
    assert usd["amount"] == "1.5" and usd["basis"] == "actual"

    bill = wfx.home / "bill.csv"
    bill.write_text(
        "executionId,stepId,quantity,unit,unitPrice,currency,supersedes\n"
        f"{run},{step},120,lambda-GB-seconds,0.00002,USD,{entry['entryId']}\n",
        encoding="utf-8",
    )
    imported = wfx.ok("costs", "import", str(bill))
    assert "1 entry imported (1 correction)" in imported.stdout

    summary = wfx.json("costs", "summary", "--execution", run)
    # by hand: the estimate 0.00166667 is superseded by the bill, 120 x 0.00002 = 0.0024,
    # which adds to the actual 1.5: USD actual 1.5024, no USD estimate left
    assert _amounts(summary) == {("USD", "actual"): Decimal("1.5024")}
    assert summary["superseded"] == 1

    bad = wfx.home / "bad.csv"
    bad.write_text(
        "executionId,stepId,quantity,unit\n"
        f"{run},{step},5,lambda-GB-seconds\n"
        f"{run},{step},lots,lambda-GB-seconds\n",
        encoding="utf-8",
    )
    assert_bad_input(wfx("costs", "import", str(bad)), "line 3", "quantity", "decimal")
    assert wfx.json("costs", "summary", "--execution", run) == summary  # the good line too

    twice = wfx("costs", "import", str(bill))
    assert_bad_input(twice, "line 2", "supersedes", "superseded already")

    by_workflow = wfx.json("costs", "summary", "--workflow", "demo/flaky", "--by", "day")
    assert by_workflow["rows"][0]["day"] and by_workflow["entries"] == summary["entries"]
    text = wfx.ok("costs", "summary", "--workflow", "demo/flaky").stdout
    assert "1.5024 USD actual" in text


def test_a_run_whose_runner_was_lost_is_charged_for_the_attempt_its_end_closed(wfx: Wfx) -> None:
    """The run's rows are written into the CLI's database as a runner that died mid-step left
    them: a RUNNING attempt and no lease. The next read ends the run, and charges the attempt."""
    wfx.ok("tables", "create")
    database = SqliteDatabase(wfx.home / "wfx.db")
    try:
        store = SqliteExecutionStore(database, TableNames())
        now = datetime.now(UTC)
        write_launch(store, a_launch("run-1", start=now - timedelta(minutes=2)))
        assert step_moved(
            store, first_start("run-1", step_id("run-1", 0), now - timedelta(minutes=1))
        )
    finally:
        database.close()

    shown = wfx.json("executions", "show", "run-1")

    assert shown["executionStatus"] == "FAILED"
    summary = wfx.json("costs", "summary", "--execution", "run-1")
    (seconds,) = summary["rows"][0]["quantities"]
    assert (seconds["unit"], seconds["basis"], seconds["entries"]) == ("seconds", "estimate", 1)
    assert Decimal(seconds["quantity"]) >= 60  # from its start to the read that ended it


def test_bad_summary_and_report_options_are_refused_by_name(wfx: Wfx) -> None:
    assert_bad_input(wfx("costs", "summary", "--by", "week"), "--by")
    assert_bad_input(wfx("costs", "summary", "--group", "g", "--execution", "e"), "at most one")
    assert_bad_input(wfx("costs", "summary", "--asset", "no-slash"), "--asset")
    # as the HTTP route says it (entrypoints.cost_scope): what was sent, not the colon-joined key
    half = wfx("costs", "summary", "--workflow", "demo/")
    assert_bad_input(half, "--workflow: must be DATABASE_ID/ID, got 'demo/'")
    refused = wfx("costs", "report", "nope", "--step", "s", "--quantity", "x", "--unit", "u")
    assert_bad_input(refused, "--quantity")


def test_a_step_named_by_its_pipeline_id_is_refused_saying_which_id_to_give(wfx: Wfx) -> None:
    wfx.publish_command_step("quick", "pass")
    run = wfx.run_id("demo/quick")

    refused = wfx("costs", "report", run, "--step", "step", "--quantity", "1", "--unit", "seconds")

    assert_bad_input(refused, "step not found", "pipelineExecutionId", f"show {run} --json")
