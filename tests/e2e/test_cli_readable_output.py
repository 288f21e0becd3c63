"""What the command line prints, read as a person reads it: `executions list` on an 80-column
terminal (every line fits, no id cut; `--wide` adds the rest) and narrower ones (the start goes
before the id or the status is cut), and a failed command step's error
as its exit code, first and last lines."""

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

    for columns in (60, 50):  # narrower: the start goes, never the id or the status
        listed = wfx.with_environment(COLUMNS=str(columns)).ok("executions", "list").stdout
        lines = [line for line in listed.splitlines() if line.strip()]
        assert all(len(line) <= columns for line in lines), listed
        assert "STATUS" in lines[0] and "STARTED" not in lines[0], listed
        for run in runs:
            (line,) = [line for line in lines if run in line]
            assert "SUCCEEDED" in line, listed

    wide = narrow.ok("executions", "list", "--wide").stdout
    assert "TRIGGER" in wide and "DURATION" in wide and "GROUP" in wide
    assert all(run in wide for run in runs)


def test_a_failed_command_step_shows_its_exit_code_first_and_last_error_lines(wfx: Wfx) -> None:
    code = (
        "import sys; print('cannot open mesh.obj', file=sys.stderr); "
        "print('more detail', file=sys.stderr); print('ValueError: bad vertex', file=sys.stderr); "
        "sys.exit(3)"
    )
    wfx.publish_command_step("loud-failure", code)
    outcome = wfx("run", "demo/loud-failure")
    assert outcome.code == 1, str(outcome)
    assert "exit code 3: cannot open mesh.obj … ValueError: bad vertex" in outcome.stderr, str(
        outcome
    )
    execution_id = outcome.stdout.strip()
    shown = wfx.ok("executions", "show", execution_id).stdout
    assert "exit code 3" in shown and "ValueError: bad vertex" in shown, shown


def test_off_a_terminal_the_list_writes_what_rich_draws(wfx: Wfx) -> None:
    """Off a terminal the list writes its table without rich (entrypoints/cli/plain_table.py):
    the bytes rich draws, which it still does when TTY_COMPATIBLE=0 tells it of no terminal."""
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    for group in ("nightly-1", None, "b"):
        wfx.run_id("demo/trivial", *(("--group", group) if group else ()))
    drawn_by_rich = wfx.with_environment(TTY_COMPATIBLE="0")

    for options in ((), ("--limit", "2"), ("--wide",), ("--status", "FAILED")):
        plain = wfx.ok("executions", "list", *options).stdout
        assert plain == drawn_by_rich.ok("executions", "list", *options).stdout
        assert plain.startswith(" EXECUTION ID ") or plain == "No executions.\n", plain
        assert ("\nNext page: --starting-token " in plain) == (options == ("--limit", "2"))
