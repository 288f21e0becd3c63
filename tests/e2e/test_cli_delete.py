"""`wfx executions delete` on SQLite: a run goes whole (rows, objects, local files), a second
delete answers "already absent", and a running run goes only with --force, which aborts it."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from tests.e2e.cli import Wfx, assert_bad_input, publish_mesh_and_import

_MESH = ("demo/mesh-report", "--input", "demo/meshes", "--output", "demo/mesh-results")


def _rows_mentioning(database: Path, text: str) -> dict[str, int]:
    """Rows holding `text`, by table, in every table of the SQLite file (past wfx)."""
    with sqlite3.connect(database) as connection:
        names = [
            n for (n,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        counts = {
            name: sum(text in str(row) for row in connection.execute(f'SELECT * FROM "{name}"'))
            for name in names
        }
    return {name: count for name, count in counts.items() if count}


def _files_of(home: Path, execution_id: str) -> list[Path]:
    """Anything under the home whose path names the run (its objects, run folder, step logs)."""
    return [path for path in home.rglob("*") if execution_id in str(path.relative_to(home))]


def test_a_deleted_run_leaves_no_row_object_or_file_and_the_other_run_stays(wfx: Wfx) -> None:
    publish_mesh_and_import(wfx)
    doomed = wfx.run_id(*_MESH)
    kept = wfx.run_id(*_MESH)
    database = wfx.home / "wfx.db"
    assert _rows_mentioning(database, doomed)
    assert any((wfx.home / "objects").rglob(f"*{doomed}*")), "the run wrote outputs"
    kept_rows, kept_files = _rows_mentioning(database, kept), _files_of(wfx.home, kept)

    answer = wfx.json("executions", "delete", doomed)

    assert answer["workflowExecutionId"] == doomed
    assert answer["deleted"] is True and answer["aborted"] is False
    assert answer["objectsDeleted"] > 0
    assert _rows_mentioning(database, doomed) == {}
    assert _files_of(wfx.home, doomed) == []
    assert _rows_mentioning(database, kept) == kept_rows
    assert _files_of(wfx.home, kept) == kept_files
    assert wfx.listed_ids() == [kept]
    gone = wfx("executions", "show", doomed)
    assert gone.code == 2 and "not found" in gone.stderr

    again = wfx.json("executions", "delete", doomed)
    assert again["deleted"] is False
    assert wfx.ok("executions", "delete", doomed).stdout == f"{doomed} already absent\n"


def test_a_running_run_is_refused_and_deleted_with_force_its_process_stopped_first(
    wfx: Wfx,
) -> None:
    pid_file = wfx.home / "step.pid"
    wfx.publish_command_step(
        "slow",
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)",
    )
    launched = wfx("run", "demo/slow", "--no-wait")
    assert launched.code == 0, str(launched)
    execution_id = launched.stdout.strip()
    deadline = time.monotonic() + 20
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    step_pid = int(pid_file.read_text())

    refused = wfx("executions", "delete", execution_id)

    assert_bad_input(refused, execution_id, "RUNNING", "force")
    assert wfx.json("executions", "show", execution_id)["executionStatus"] == "RUNNING"

    forced = wfx.json("executions", "delete", execution_id, "--force")

    assert forced["deleted"] is True and forced["aborted"] is True
    assert _process_gone(step_pid, seconds=10)
    assert _rows_mentioning(wfx.home / "wfx.db", execution_id) == {}
    assert wfx.listed_ids() == []


def _process_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_latest_and_a_prefix_name_the_run_deleted_as_they_do_for_show(wfx: Wfx) -> None:
    """As every other command takes them: never a delete that deletes nothing and says the run
    is `already absent` while it is listed."""
    wfx.publish_command_step("noop", "pass")
    older, newer = wfx.run_id("demo/noop"), wfx.run_id("demo/noop")

    assert wfx.json("executions", "delete", "latest")["deleted"] is True
    assert wfx.listed_ids() == [older]
    assert wfx.json("executions", "delete", older[:12])["deleted"] is True
    assert wfx.listed_ids() == []
    assert wfx.json("executions", "delete", newer)["deleted"] is False  # a whole id, twice
    assert_bad_input(wfx("executions", "delete", "latest"), "latest", "no execution yet")
