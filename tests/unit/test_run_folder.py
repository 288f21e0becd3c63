"""A run's process records on disk: the first in a new folder written in place, later ones by a
rename, so a reader finds a whole record or none, and no scratch file is left behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.local.supervisor import ProcessRecord, RunFolder, this_process


def test_the_runner_record_of_a_new_run_folder_reads_back_and_leaves_no_scratch_file(
    tmp_path: Path,
) -> None:
    folder = RunFolder(tmp_path / "runs" / "run-1")

    folder.write_runner(this_process("inline", "owner-1"))

    assert folder.runner() == this_process("inline", "owner-1")
    assert os.listdir(folder.path) == ["runner.json"]


def test_a_later_record_replaces_the_first_whole(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run-1")
    folder.write_runner(this_process("inline", "owner-1"))

    folder.write_runner(this_process("thread", "owner-2"))

    assert folder.runner() == this_process("thread", "owner-2")
    assert os.listdir(folder.path) == ["runner.json"]


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
