"""A cost number (a quantity, a unit price, an amount) is bounded as DynamoDB bounds its numbers:
a reported or imported one out of that range is refused naming its option or column and the
rule, never priced into Decimal's overflow (a traceback), and the ledger is left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli import Wfx, assert_bad_input


@pytest.mark.parametrize(
    ("option", "quantity", "price"),
    [
        ("--quantity", "1E+999999999", "2"),
        ("--quantity", "9E+126", "1"),
        ("--unit-price", "1", "9E+999999"),
        ("--quantity", "1E-131", "1"),
        ("--quantity", "1." + "1" * 38, "1"),
    ],
)
def test_a_reported_cost_number_out_of_range_is_refused_by_name(
    wfx: Wfx, option: str, quantity: str, price: str
) -> None:
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    (step,) = wfx.json("executions", "show", run)["pipelines"]
    before = wfx.json("costs", "summary", "--execution", run)
    report = ("costs", "report", run, "--step", step["pipelineExecutionId"], "--unit", "GB")
    outcome = wfx(*report, "--quantity", quantity, "--unit-price", price, "--currency", "USD")
    assert_bad_input(outcome, option, "38 significant digits")
    assert wfx.json("costs", "summary", "--execution", run) == before
    assert wfx.ok(*report, "--quantity", "1E+125", "--unit-price", "9E+125", "--currency", "USD")


def test_an_imported_cost_number_out_of_range_is_refused_naming_its_line(wfx: Wfx) -> None:
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    (step,) = wfx.json("executions", "show", run)["pipelines"]
    before = wfx.json("costs", "summary", "--execution", run)
    bill = wfx.home / "bill.csv"
    bill.write_text(
        "executionId,stepId,quantity,unit,unitPrice,currency\n"
        f"{run},{step['pipelineExecutionId']},5,GB,1,USD\n"
        f"{run},{step['pipelineExecutionId']},9E+999999,GB,9E+999999,USD\n",
        encoding="utf-8",
    )
    assert_bad_input(wfx("costs", "import", str(bill)), "line 3", "quantity", "38 significant")
    assert wfx.json("costs", "summary", "--execution", run) == before


def test_a_rate_card_price_out_of_range_is_refused_naming_the_file_and_the_rate(
    wfx: Wfx, tmp_path: Path
) -> None:
    """A duration of 10 s at 9E+999999 would overflow while the runner records its cost."""
    card = tmp_path / "card.yaml"
    card.write_text('rates:\n  seconds: {unitPrice: "9E+999999", currency: EUR}\n', "utf-8")
    wfx.publish_command_step("noop", "pass")
    outcome = wfx.with_environment(WFX_RATE_CARD=str(card))("run", "demo/noop")
    assert outcome.code in (2, 3), str(outcome)
    (line,) = outcome.stderr_lines
    assert line.startswith(f"error: {card}: rates.seconds: unitPrice: must have at most 38"), line
    assert wfx.listed_ids() == []


def test_a_cell_past_the_csv_limit_is_refused_naming_its_line(wfx: Wfx) -> None:
    """Before, a `_csv.Error: field larger than field limit` traceback."""
    bill = wfx.home / "bill.csv"
    bill.write_text(
        f"executionId,stepId,quantity,unit\nrun,step,1,{'x' * 200_000}\n",
        encoding="utf-8",
    )
    assert_bad_input(wfx("costs", "import", str(bill)), "line 2", "field limit")


def test_a_file_that_never_ends_is_refused_past_the_bound_without_exhausting_memory(
    wfx: Wfx,
) -> None:
    """`/dev/zero` is read as a pipe is, up to the bound; before, it was read until memory ran
    out (a MemoryError traceback, or minutes of swapping)."""
    outcome = wfx("costs", "import", "/dev/zero", timeout=20)
    assert_bad_input(outcome, "FILE", "/dev/zero", "MiB")
