"""`wfx executions delete` racing another writer of the run, real processes on one SQLite file.

A delete marks the run as being deleted before anything of it goes. The test holds the file's
write lock (`BEGIN IMMEDIATE` on a connection of its own) while the delete reads the ended run
and waits for the lock to write that mark; then it writes, under the lock it holds, what a
redrive from another process writes first (the run PENDING_REDRIVE), and lets go. A delete
whose mark is written, then cut short, leaves a run that is neither redriven nor rerun until it
is deleted again.
"""

from __future__ import annotations

import os
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import ResourceKeys, TableNames
from domain.run_write import RunWrite
from tests.e2e.cli import Outcome, Wfx, assert_bad_input
from tests.e2e.test_cli_delete import _files_of, _rows_mentioning

_SECONDS = 10.0


def _main_table() -> str:
    return TableNames().get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)


def _status(database: Path, execution_id: str) -> str | None:
    with sqlite3.connect(database) as connection:
        row = connection.execute(
            f"SELECT json_extract(item, '$.executionStatus') FROM \"{_main_table()}\" "
            'WHERE "workflowExecutionId" = ?',
            (execution_id,),
        ).fetchone()
    return None if row is None else str(row[0])


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _waiting_on(database: Path, pid: int) -> bool:
    """The process has the database open and has used no CPU for 0.3 s: it waits for the
    lock (SQLite's busy handler sleeps between its tries)."""
    try:
        opened = any(
            os.readlink(f"/proc/{pid}/fd/{fd}") == str(database)
            for fd in os.listdir(f"/proc/{pid}/fd")
        )
        if not opened:
            return False
        before = _cpu_ticks(pid)
        time.sleep(0.3)
        return _cpu_ticks(pid) == before
    except OSError:  # it ended, or an fd closed while it was read
        return False


def test_a_run_redriven_before_its_delete_begins_keeps_its_rows_and_files(wfx: Wfx) -> None:
    wfx.publish_command_step("fails", "raise SystemExit(3)")
    execution_id = wfx.run_id("demo/fails", expect_code=1)
    database = wfx.home / "wfx.db"
    assert _status(database, execution_id) == "FAILED"
    files_before = _files_of(wfx.home, execution_id)
    assert files_before, "the run left files to remove"
    rows_before = _rows_mentioning(database, execution_id)

    lock = sqlite3.connect(database, isolation_level=None, timeout=5)
    try:
        lock.execute("BEGIN IMMEDIATE")
        deleting = wfx.start("executions", "delete", execution_id)
        deadline = time.monotonic() + _SECONDS
        while not _waiting_on(database, deleting.pid) and time.monotonic() < deadline:
            assert deleting.poll() is None, deleting.communicate()
        lock.execute(
            f"UPDATE \"{_main_table()}\" SET item = json_set(item, '$.executionStatus', "
            "'PENDING_REDRIVE') WHERE \"workflowExecutionId\" = ?",
            (execution_id,),
        )
        lock.execute("COMMIT")
    finally:
        lock.close()
    stdout, stderr = deleting.communicate(timeout=_SECONDS)
    refused = Outcome(
        ("executions", "delete", execution_id), deleting.returncode, stdout, stderr, 0
    )

    assert_bad_input(refused, execution_id, "PENDING_REDRIVE")
    assert _status(database, execution_id) == "PENDING_REDRIVE"
    assert _rows_mentioning(database, execution_id) == rows_before
    assert _files_of(wfx.home, execution_id) == files_before


def test_a_run_whose_delete_was_cut_short_is_refused_redrive_and_rerun_until_deleted(
    wfx: Wfx,
) -> None:
    wfx.publish_command_step("fails", "raise SystemExit(3)")
    execution_id = wfx.run_id("demo/fails", expect_code=1)
    database = SqliteDatabase(wfx.home / "wfx.db")
    try:  # the first write of a delete, which then stopped (a machine going down)
        store = SqliteExecutionStore(database, TableNames())
        change = store.get_run(execution_id).begin_delete(datetime.now(UTC))
        assert change is not None and store.commit(RunWrite.of(execution_id, change=change))
    finally:
        database.close()

    shown = wfx.json("executions", "show", execution_id)
    redrive = wfx("executions", "redrive", execution_id)
    rerun = wfx("executions", "rerun", execution_id)
    deleted = wfx.json("executions", "delete", execution_id)

    assert shown["redriveStatus"] == "NOT_REDRIVABLE"
    assert shown["redriveStatusReason"] == "Execution is being deleted and cannot be redriven."
    assert_bad_input(redrive, "Execution is being deleted and cannot be redriven.")
    assert_bad_input(rerun, execution_id, "is being deleted")
    assert deleted["deleted"] is True
    assert _files_of(wfx.home, execution_id) == []
