"""`wfx executions list` on an 80-column terminal: every line fits, no id is cut, and the
columns that identify a run are there; `--wide` adds the rest."""

from __future__ import annotations

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx


def test_the_list_fits_80_columns_and_wide_shows_every_column(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    runs = [wfx.run_id("demo/trivial") for _ in range(2)]
    narrow = wfx.with_environment(COLUMNS="80")

    listed = narrow.ok("executions", "list").stdout
    lines = [line for line in listed.splitlines() if line.strip()]
    assert all(len(line) <= 80 for line in lines), listed
    header = lines[0].split()
    assert header[:2] == ["EXECUTION", "ID"] and "STATUS" in header and "STARTED" in header
    assert "TRIGGER" not in header
    for run in runs:
        (line,) = [line for line in lines if run in line]  # whole, on one line
        assert "SUCCEEDED" in line and "demo/trivial" in line

    wide = narrow.ok("executions", "list", "--wide").stdout
    assert "TRIGGER" in wide and "DURATION" in wide and "GROUP" in wide
    assert all(run in wide for run in runs)
