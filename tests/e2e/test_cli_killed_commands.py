"""`wfx` commands cut short part-way, real processes on one SQLite file: what the next ordinary
command finds, and whether running the command again finishes the job.

A kill lands where the test wants it by the file's write lock: the test holds `BEGIN IMMEDIATE`
on a connection of its own, so the command does everything it does before its next write of
the rows and then waits; the test kills it there and lets go (a delete's first write, its mark,
is let through: the test stops the process with SIGSTOP once the mark is stored, takes the
lock, and lets it go on). Where the point is between two of
a command's writes, a trigger the test plants refuses the second, which leaves the rows as the
command dying there would.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import yaml

from adapters.tables import ResourceKeys, TableNames
from tests.e2e.cli import TRIVIAL_WORKFLOW, USER, Wfx
from tests.e2e.run_processes import wait_until_nothing_is_left
from tests.e2e.test_cli_delete import _files_of, _rows_mentioning

_SECONDS = 10.0
_PADDING_FILES = 3_000
_LONG_ERROR = 20_000  # words of a step's error: past what a row keeps (16 KiB), cut and offloaded

_FAILING_HANDLER = f"""
def fail(**arguments):
    raise RuntimeError("failed " + "at length " * {_LONG_ERROR})
"""


@contextmanager
def _write_lock(database: Path) -> Iterator[None]:
    lock = sqlite3.connect(database, isolation_level=None, timeout=5)
    try:
        lock.execute("BEGIN IMMEDIATE")
        yield
        lock.execute("ROLLBACK")
    finally:
        lock.close()


def _kill_once(
    process: subprocess.Popen[str],
    reached: Callable[[], bool],
    what: str,
    number: int = signal.SIGKILL,
    group: bool = False,
) -> tuple[str, str]:
    """Signal the process (`group`: its process group, as a terminal's Ctrl-C does) as soon as
    `reached()`; it must still be running then, and end within a bound after. Its output."""
    deadline = time.monotonic() + _SECONDS
    while not reached():
        assert process.poll() is None, f"{what}: it ended first: {process.communicate()}"
        assert time.monotonic() < deadline, f"{what}: never reached"
        time.sleep(0.02)
    if group:
        os.killpg(process.pid, number)
    else:
        process.send_signal(number)
    try:
        return process.communicate(timeout=_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _wait_for_the_mark(database: Path, execution_id: str, process: subprocess.Popen[str]) -> None:
    """Until the delete's first write, the run marked as being deleted, is stored (read with
    no lock taken, polled without a pause: the delete goes on meanwhile)."""
    main = TableNames().get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)
    query = (
        f"SELECT json_extract(item, '$.runnerLeaseOwner') FROM \"{main}\" "
        'WHERE "workflowExecutionId" = ?'
    )
    deadline = time.monotonic() + _SECONDS
    with sqlite3.connect(database, isolation_level=None) as reader:
        while True:
            (owner,) = reader.execute(query, (execution_id,)).fetchone()
            if str(owner or "").startswith("deleting:"):
                return
            assert process.poll() is None, f"the delete ended first: {process.communicate()}"
            assert time.monotonic() < deadline, "the delete never marked the run"


def _files_gone(home: Path, execution_id: str) -> bool:
    try:
        return not _files_of(home, execution_id)
    except FileNotFoundError:  # the walk met a folder the delete removed meanwhile
        return False


def _run_failing_at_length(wfx: Wfx) -> str:
    """A run whose error is too long for its rows: the rows keep its head, the object store
    the whole of it."""
    project = wfx.home / "project"
    project.mkdir()
    (project / "long_errors.py").write_text(_FAILING_HANDLER, encoding="utf-8")
    document = {
        "databaseId": "demo",
        "workflowId": "long-error",
        "steps": [
            {
                "pipelineId": "fail",
                "executionType": "python",
                "handler": "long_errors:fail",
                "inputFileArity": "none",
            }
        ],
    }
    (project / "workflow.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(project / "workflow.yaml"))
    execution_id = wfx.run_id("demo/long-error", expect_code=1)
    assert list((wfx.home / "objects").rglob(f"*{execution_id}*/bodies/*")), "nothing offloaded"
    return execution_id


def test_a_delete_killed_after_it_removed_the_objects_leaves_a_store_that_reads_and_deletes(
    wfx: Wfx,
) -> None:
    execution_id = _run_failing_at_length(wfx)
    kept = wfx.run_id("demo/long-error", expect_code=1)
    database = wfx.home / "wfx.db"

    # files enough that removing them takes the delete far longer than stopping it does
    padding = wfx.home / "outputs" / execution_id / "padding"
    padding.mkdir(parents=True)
    for number in range(_PADDING_FILES):
        (padding / f"{number}.txt").write_bytes(b"")

    deleting = wfx.start("executions", "delete", execution_id)
    _wait_for_the_mark(database, execution_id, deleting)
    os.kill(deleting.pid, signal.SIGSTOP)
    with _write_lock(database):
        os.kill(deleting.pid, signal.SIGCONT)
        _kill_once(deleting, lambda: _files_gone(wfx.home, execution_id), "the delete")
    assert _rows_mentioning(database, execution_id), "the kill came after the rows went"

    # every read still answers, the half-deleted run with the head of its error
    assert set(wfx.listed_ids()) == {execution_id, kept}
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionError"].startswith("RuntimeError: failed at length at length")
    whole = wfx.json("executions", "show", kept)["executionError"]
    assert len(whole) > _LONG_ERROR * len("at length "), "the other run lost its whole error"
    exported = wfx("export", "--to", str(wfx.home / "runs.jsonl"))
    assert exported.code == 0, str(exported)

    # and the delete, run again, finishes the job
    assert wfx.json("executions", "delete", execution_id)["deleted"] is True
    assert _rows_mentioning(database, execution_id) == {}
    assert wfx.listed_ids() == [kept]


def _parked_at_a_gate(wfx: Wfx, after: list[str]) -> tuple[str, str]:
    """A run of demo/gate parked at its approval gate, whose next step runs `after`: the run's
    id and the gate's approval id."""
    document = {
        "databaseId": "demo",
        "workflowId": "gate",
        "steps": [
            {"pipelineId": "sign-off", "executionType": "approval", "approvers": [USER]},
            {
                "pipelineId": "after",
                "executionType": "command",
                "command": after,
                "inputFileArity": "none",
            },
        ],
    }
    workflow = wfx.home / "gate.yaml"
    workflow.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(workflow))
    execution_id = wfx.run_id("demo/gate")
    (request,) = wfx.json("approvals", "list", "--execution", execution_id)["Items"]
    return execution_id, request["approvalId"]


def test_an_approve_cut_short_at_handing_the_run_on_leaves_the_gate_to_decide_again(
    wfx: Wfx,
) -> None:
    execution_id, approval_id = _parked_at_a_gate(wfx, ["true"])
    database = wfx.home / "wfx.db"
    handover = (
        'CREATE TRIGGER cut_short BEFORE UPDATE ON "WorkflowExecutionsStorageTableV2" '
        "WHEN json_extract(NEW.item, '$.runnerLeaseOwner') LIKE 'handover:%' "
        "BEGIN SELECT RAISE(ABORT, 'the approve died here'); END"
    )
    with sqlite3.connect(database) as connection:
        connection.execute(handover)
    cut_short = wfx("approvals", "approve", approval_id, "--reason", "checked")
    with sqlite3.connect(database) as connection:
        connection.execute("DROP TRIGGER cut_short")
    assert cut_short.code != 0, str(cut_short)

    # no decision stored without the run handed on: the gate is still to decide, and deciding
    # it carries the run to its end. Before, it stayed APPROVED with the run parked at it,
    # RUNNING, for good: a second approve was refused as decided once
    (request,) = wfx.json("approvals", "list", "--execution", execution_id)["Items"]
    assert request["status"] == "PENDING"
    wfx.ok("approvals", "approve", request["approvalId"], "--reason", "checked")
    assert wfx.json("executions", "show", execution_id)["executionStatus"] == "SUCCEEDED"


def test_ctrl_c_of_an_approve_carrying_the_run_on_aborts_the_run_at_once(wfx: Wfx) -> None:
    started = wfx.home / "step-started"
    step = f"touch {started}; exec sleep 60"
    execution_id, approval_id = _parked_at_a_gate(wfx, ["/bin/sh", "-c", step])
    approving = wfx.start("approvals", "approve", approval_id, "--reason", "ok", new_session=True)
    _kill_once(approving, started.exists, "the next step", signal.SIGINT, group=True)

    # as `wfx run` does: the run ABORTED, its step stopped, exit 130 saying so. Before, the
    # approve waited for the step to end by itself (a minute here), then exited 130 silently
    assert approving.returncode == 130, approving.stderr
    wait_until_nothing_is_left(execution_id)
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == "ABORTED"


def test_ctrl_c_of_an_asset_import_says_nothing_was_recorded_and_again_imports_it_all(
    wfx: Wfx, tmp_path: Path
) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    for number in range(6):  # long enough to copy that the Ctrl-C lands while it does
        with (folder / f"part-{number}.bin").open("wb") as part:
            part.truncate(32 * 1024 * 1024)
    objects = wfx.home / "objects"
    importing = wfx.start("assets", "import", "demo", "scans", str(folder), new_session=True)

    _, stderr = _kill_once(
        importing,
        lambda: objects.exists() and any(p.is_file() for p in objects.rglob("*")),
        "the first file's copy",
        signal.SIGINT,
        group=True,
    )

    # before, exit 130 and nothing said
    assert importing.returncode == 130, stderr
    assert stderr == (
        "interrupted: none of the 6 files was recorded in demo/scans (an import records them "
        "together, at its end); run the command again\n"
    )
    assert wfx("assets", "list", "demo/scans").code != 0  # no file of it recorded
    wfx.ok("assets", "import", "demo", "scans", str(folder))
    assert len(wfx.json("assets", "list", "demo/scans")) == 6


def test_ctrl_c_of_an_export_into_a_pipe_says_how_many_runs_it_holds(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    for _ in range(2):
        wfx.run_id("demo/trivial")
    pipe = wfx.home / "export.pipe"
    os.mkfifo(pipe)
    exporting = wfx.start("export", "--to", str(pipe), new_session=True)

    def waiting_for_a_reader() -> bool:
        try:
            return (Path("/proc") / str(exporting.pid) / "wchan").read_text() == "wait_for_partner"
        except OSError:
            return False

    _, stderr = _kill_once(exporting, waiting_for_a_reader, "the pipe's open", signal.SIGINT, True)

    assert exporting.returncode == 130, stderr
    assert stderr == (
        f"interrupted: 0 runs exported to {pipe}, which does not hold the whole export; "
        "run the command again\n"
    )


def test_ctrl_c_of_a_v1_migration_says_what_is_kept_and_how_to_resume(
    wfx: Wfx, tmp_path: Path
) -> None:
    from tests.v1_items import GLOBAL, GLOBAL_MACHINE, v1_item

    items = [
        v1_item(
            f"e2{n:06d}-0000-4000-8000-{n:012d}", "db-a", "asset-1", GLOBAL, "SUCCEEDED",
            "03/04/2024, 09:30:00", "03/04/2024, 09:41:07", "models/a.obj", GLOBAL_MACHINE,
        )
        for n in range(20_000)  # far more than it migrates before the Ctrl-C lands
    ]  # fmt: skip
    (tmp_path / "items.json").write_text(json.dumps(items))
    checkpoint = tmp_path / "migrate.checkpoint"
    migrating = wfx.start(
        "migrate", "v1", "--from-file", str(tmp_path / "items.json"), "--offline",
        "--checkpoint", str(checkpoint), new_session=True,
    )  # fmt: skip

    _, stderr = _kill_once(
        migrating,
        lambda: checkpoint.exists() and checkpoint.stat().st_size > 0,
        "the first item migrated",
        signal.SIGINT,
        group=True,
    )

    assert migrating.returncode == 130, stderr
    assert stderr == (
        "interrupted: the items migrated before it are stored, the rest not; run the command "
        "again to finish: items already migrated are left as they are (it resumes after the "
        f"last item {checkpoint} records)\n"
    )
    last = checkpoint.read_text().split()[-1].rpartition(":")[2]  # DATABASE:ASSET:ID
    assert wfx.json("executions", "show", last)["executionStatus"] == "SUCCEEDED"


def test_ctrl_c_of_an_import_says_which_runs_are_in_and_again_imports_the_rest(
    wfx: Wfx, tmp_path: Path
) -> None:
    from tests.v1_items import GLOBAL, GLOBAL_MACHINE, v1_item

    run_id, step_pattern = "e2000000-0000-4000-8000-000000000000", r'"pipelineExecutionId":"'
    item = v1_item(
        run_id, "db-a", "asset-1", GLOBAL, "SUCCEEDED", "03/04/2024, 09:30:00",
        "03/04/2024, 09:41:07", "models/a.obj", GLOBAL_MACHINE,
    )  # fmt: skip
    (tmp_path / "items.json").write_text(json.dumps([item]))
    wfx.ok("migrate", "v1", "--from-file", str(tmp_path / "items.json"), "--offline")
    wfx.ok("export", "--to", str(tmp_path / "one.jsonl"))
    header, *lines = (tmp_path / "one.jsonl").read_text().splitlines()
    step_id = lines[0].split(step_pattern)[1].split('"')[0]
    copies = [header]
    # far more runs than it imports before the Ctrl-C lands (11 of them at load 5, where the
    # 1,000 took 1.4 s): the second import, of them all, is most of the test's time
    for n in range(1000):
        other_run, other_step = f"e3{n:06d}-0000-4000-8000-{n:012d}", f"{n + 1:032x}"
        copies += [line.replace(run_id, other_run).replace(step_id, other_step) for line in lines]
    many = tmp_path / "many.jsonl"
    many.write_text("\n".join(copies) + "\n")
    other = wfx.in_home(tmp_path / "other")
    main = TableNames().get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS)

    def listed() -> int:
        try:
            with sqlite3.connect(other.home / "wfx.db") as reader:
                return int(reader.execute(f'SELECT count(*) FROM "{main}"').fetchone()[0])
        except sqlite3.Error:  # not made yet
            return 0

    importing = other.start("import", str(many), new_session=True)
    _, stderr = _kill_once(importing, lambda: listed() > 0, "a run imported", signal.SIGINT, True)

    assert importing.returncode == 130, stderr
    said = re.fullmatch(
        rf"interrupted: (\d+) runs? of {re.escape(str(many))} imported, then run (\S+), "
        r"which may be cut short \(a run is listed only once it is whole\); the rest were not "
        r"imported; run the command again to finish \(items already stored are left as they "
        r"are\)\n",
        stderr,
    )
    assert said is not None, stderr
    assert listed() - int(said[1]) in (0, 1)  # the run it named, whole or not listed
    again = other.ok("import", str(many))
    assert again.stdout.startswith("imported 1000 runs: ") and listed() == 1000, again
