"""A run's process records on disk: the runner's beside the run's folder (`runs/<id>.json`),
the first written in place (this process's own record linked to one shared copy), later ones by
a rename, so a reader finds a whole record or none, no scratch file is left behind and a run
that starts no command step makes no folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adapters.local.processes_on_host import start_time_of
from adapters.local.supervisor import (
    SHARED_FOLDER,
    ProcessRecord,
    RunFolder,
    child_process,
    this_process,
)


def test_the_runner_record_of_a_new_run_reads_back_makes_no_folder_and_no_scratch_file(
    tmp_path: Path,
) -> None:
    folder = RunFolder(tmp_path / "runs" / "run-1")  # the first run: runs/ is made

    folder.write_runner(this_process("inline"))

    assert folder.runner() == this_process("inline")
    assert sorted(os.listdir(tmp_path / "runs")) == [SHARED_FOLDER, "run-1.json"]
    assert folder.runner_path == tmp_path / "runs" / "run-1.json"


def test_a_later_record_replaces_the_first_whole(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run-1")
    folder.write_runner(this_process("inline"))

    folder.write_runner(this_process("thread"))

    assert folder.runner() == this_process("thread")
    assert sorted(os.listdir(tmp_path)) == [SHARED_FOLDER, "run-1.json"]


def test_a_record_another_writer_put_first_is_replaced(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run-1")
    (tmp_path / "run-1.json").write_text("{}", encoding="utf-8")  # half a record, say

    folder.write_runner(this_process("inline"))

    assert folder.runner() == this_process("inline")
    assert (tmp_path / "run-1.json").stat().st_nlink == 1  # replaced: not the shared copy
    assert not (tmp_path / "run-1").exists()


def test_the_record_of_a_run_an_earlier_version_started_is_read_from_its_folder(
    tmp_path: Path,
) -> None:
    folder = RunFolder(tmp_path / "run-1")
    folder.path.mkdir()
    record = ProcessRecord("host", 42, 7, "thread", owner="host:42:abcd")
    (folder.path / "runner.json").write_text(json.dumps(vars(record)), encoding="utf-8")

    assert folder.runner() == record


def test_a_record_another_writer_put_in_the_new_folder_first_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = RunFolder(tmp_path / "run-1")
    folder.path.mkdir()
    steps = folder.path / "steps"
    original_mkdir = os.mkdir
    made: list[Path] = []

    def mkdir_then_another_writer(path: str, *args: int) -> None:
        original_mkdir(path, *args)
        made.append(Path(path))
        # the other writer's record lands between this mkdir and the open
        (steps / "step-1.json").write_text("{}", encoding="utf-8")

    monkeypatch.setattr(os, "mkdir", mkdir_then_another_writer)
    record = ProcessRecord("host", 42, None, "command", attempt=1)

    folder.write_step("step-1", record)

    assert made == [steps]  # the folder was new to this write
    assert folder.step("step-1") == record
    assert sorted(os.listdir(steps)) == ["step-1.json"]


def test_the_runs_of_one_process_link_their_runner_records_to_one_copy(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()  # as after a first run (which makes it, and its record is a file)
    first, second = RunFolder(runs / "run-1"), RunFolder(runs / "run-2")

    first.write_runner(this_process("thread"))
    second.write_runner(this_process("thread"))

    assert first.runner() == second.runner() == this_process("thread")
    copies = list((runs / SHARED_FOLDER).iterdir())
    assert len(copies) == 1
    inodes = {p.runner_path.stat().st_ino for p in (first, second)}
    assert inodes == {copies[0].stat().st_ino}


def test_a_record_written_later_replaces_one_runs_link_not_the_shared_copy(tmp_path: Path) -> None:
    first, second = RunFolder(tmp_path / "run-1"), RunFolder(tmp_path / "run-2")
    first.write_runner(this_process("inline"))
    second.write_runner(this_process("inline"))

    first.write_runner(child_process(os.getppid(), "detached"))

    assert first.runner() == child_process(os.getppid(), "detached")
    assert second.runner() == this_process("inline")


def test_with_no_hard_links_or_a_copy_gone_each_record_is_a_file_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    RunFolder(runs / "run-1").write_runner(this_process("inline"))
    for copy in (runs / SHARED_FOLDER).iterdir():
        copy.unlink()  # removed by hand (or by a sweep that judged wrongly)

    RunFolder(runs / "run-2").write_runner(this_process("inline"))  # written, a new copy kept
    monkeypatch.setattr(os, "link", _refused)  # a file system without hard links
    RunFolder(runs / "run-3").write_runner(this_process("inline"))

    for run in ("run-1", "run-2", "run-3"):
        assert RunFolder(runs / run).runner() == this_process("inline"), run
    assert (runs / "run-3.json").stat().st_nlink == 1


def test_the_copies_of_processes_that_ended_are_swept_when_a_process_makes_its_own(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "runs" / SHARED_FOLDER
    shared.mkdir(parents=True)
    ended = shared / "999999999-1-1.json"  # no such process
    ended.write_text("{}", encoding="utf-8")
    parent = os.getppid()
    living = shared / f"{parent}-{start_time_of(parent)}-1.json"
    living.write_text("{}", encoding="utf-8")

    RunFolder(tmp_path / "runs" / "run-1").write_runner(this_process("thread"))

    assert not ended.exists()
    assert living.exists()


def _refused(source: object, target: object) -> None:
    raise PermissionError(1, "Operation not permitted")


def test_a_name_in_the_shared_folder_that_only_looks_like_a_pid_is_left_alone(
    tmp_path: Path,
) -> None:
    """The sweep of ended processes' copies reads pids from file names anyone may put there:
    `²` is a digit to `str.isdigit` but not to `int`."""
    shared = tmp_path / SHARED_FOLDER
    shared.mkdir()
    for name in ("\u00b2-1-1.json", "1-\u00b2-1.json", "notes.json"):
        (shared / name).write_text("{}", encoding="utf-8")
    folder = RunFolder(tmp_path / "run-1")

    folder.write_runner(this_process("inline"))

    assert folder.runner() == this_process("inline")
    assert {"\u00b2-1-1.json", "notes.json"} <= set(os.listdir(shared))


def test_a_forked_child_records_itself_not_the_parent_whose_record_it_inherited(
    tmp_path: Path,
) -> None:
    parent = this_process("inline")  # made and kept before the fork: the child inherits it
    RunFolder(tmp_path / "run-1").write_runner(parent)

    child = os.fork()
    if child == 0:  # the child: a run of its own, its record written as the runner writes it
        try:
            RunFolder(tmp_path / "run-2").write_runner(this_process("inline"))
        finally:
            os._exit(0)
    _, status = os.waitpid(child, 0)

    assert os.waitstatus_to_exitcode(status) == 0
    record = RunFolder(tmp_path / "run-2").runner()
    assert record is not None
    assert (record.pid, record.mode) == (child, "inline")
    assert RunFolder(tmp_path / "run-1").runner() == parent == this_process("inline")
