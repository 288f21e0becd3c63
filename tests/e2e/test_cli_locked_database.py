"""A SQLite file another process holds a write transaction on for longer than wfx waits (its
busy timeout, 5 s): the command that needed to write says so in one line, naming the file and
what to do (exit 3), and writes nothing; once the lock is let go the same command works."""

from __future__ import annotations

import sqlite3

from tests.e2e.cli import Wfx


def test_a_launch_on_a_file_another_process_is_writing_says_so_and_writes_nothing(
    wfx: Wfx,
) -> None:
    wfx.publish_command_step("noop", "pass")
    first = wfx.run_id("demo/noop")
    database = wfx.home / "wfx.db"
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        outcome = wfx("run", "demo/noop")
        holder.execute("ROLLBACK")
    finally:
        holder.close()

    assert outcome.code == 3, str(outcome)
    assert outcome.stdout == "", str(outcome)
    (line,) = outcome.stderr_lines
    assert line.startswith(f"error: WFX_DB ({database})"), line
    assert "another process" in line and "try again" in line, line
    assert wfx.listed_ids() == [first]
    second = wfx.run_id("demo/noop")
    assert wfx.listed_ids() == [second, first]
