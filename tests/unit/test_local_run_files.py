"""LocalRunFiles: a deleted run's folder and step logs under WFX_HOME go, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.local.run_files import LocalRunFiles


def test_the_run_folder_and_the_step_logs_of_the_run_go_and_other_runs_stay(
    tmp_path: Path,
) -> None:
    runs, logs = tmp_path / "runs", tmp_path / "logs"
    for root in (runs, logs):
        for execution_id in ("e1", "e10"):
            (root / execution_id / "output").mkdir(parents=True)
            (root / execution_id / "output" / "file.txt").write_text("x")
    (runs / "e1" / "output" / "file.txt").chmod(0o444)

    LocalRunFiles(runs, logs).remove("e1")
    LocalRunFiles(runs, logs).remove("e1")  # twice: nothing left is no error

    assert sorted(p.name for p in runs.iterdir()) == ["e10"]
    assert sorted(p.name for p in logs.iterdir()) == ["e10"]


def test_a_link_in_place_of_the_run_folder_is_removed_and_what_it_names_is_kept(
    tmp_path: Path,
) -> None:
    elsewhere = tmp_path / "precious"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "e1").symlink_to(elsewhere)

    LocalRunFiles(tmp_path / "runs", tmp_path / "logs").remove("e1")

    assert not (tmp_path / "runs" / "e1").exists()
    assert (elsewhere / "keep.txt").read_text() == "keep"


@pytest.mark.parametrize("execution_id", ["", ".", "..", "a/b", "..\\x"])
def test_an_id_that_is_not_one_path_segment_is_refused(tmp_path: Path, execution_id: str) -> None:
    with pytest.raises(ValueError, match="single path segment"):
        LocalRunFiles(tmp_path / "runs", tmp_path / "logs").remove(execution_id)
