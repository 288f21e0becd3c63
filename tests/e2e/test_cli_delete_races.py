"""`wfx executions delete` racing another writer of the run, real processes on one SQLite file.

The test holds the file's write lock (`BEGIN IMMEDIATE` on a connection of its own) while the
delete reads the ended run and removes its objects and local files; once those are gone the
delete waits for the lock to write the rows, and the test writes, under the lock it holds,
what a redrive from another process writes first: the run PENDING_REDRIVE. Then it lets go.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from adapters.tables import ResourceKeys, TableNames
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


def test_a_run_redriven_while_its_delete_removes_its_files_keeps_its_rows(wfx: Wfx) -> None:
    wfx.publish_command_step("fails", "raise SystemExit(3)")
    execution_id = wfx.run_id("demo/fails", expect_code=1)
    database = wfx.home / "wfx.db"
    assert _status(database, execution_id) == "FAILED"
    assert _files_of(wfx.home, execution_id), "the run left files to remove"
    rows_before = _rows_mentioning(database, execution_id)

    lock = sqlite3.connect(database, isolation_level=None, timeout=5)
    try:
        lock.execute("BEGIN IMMEDIATE")
        deleting = wfx.start("executions", "delete", execution_id)
        deadline = time.monotonic() + _SECONDS
        while _files_of(wfx.home, execution_id) and time.monotonic() < deadline:
            assert deleting.poll() is None, deleting.communicate()
            time.sleep(0.02)
        assert _files_of(wfx.home, execution_id) == [], "the delete never reached the rows"
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
