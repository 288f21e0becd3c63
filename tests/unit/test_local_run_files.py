"""LocalRunFiles: a deleted run's folders, runner record and step logs under WFX_HOME go,
nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.local.run_files import LocalRunFiles


def test_the_run_folders_record_and_step_logs_of_the_run_go_and_other_runs_stay(
    tmp_path: Path,
) -> None:
    for root in ("runs", "outputs", "logs"):
        for execution_id in ("e1", "e10"):
            (tmp_path / root / execution_id / "sub").mkdir(parents=True)
            (tmp_path / root / execution_id / "sub" / "file.txt").write_text("x")
    for execution_id in ("e1", "e10"):
        (tmp_path / "runs" / f"{execution_id}.json").write_text("{}")
    (tmp_path / "outputs" / "e1" / "sub" / "file.txt").chmod(0o444)

    LocalRunFiles(tmp_path).remove("e1")
    LocalRunFiles(tmp_path).remove("e1")  # twice: nothing left is no error

    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["e10", "e10.json"]
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == ["e10"]
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["e10"]


@pytest.mark.parametrize("root", ["runs", "outputs"])
def test_a_link_in_place_of_a_run_folder_is_removed_and_what_it_names_is_kept(
    tmp_path: Path, root: str
) -> None:
    elsewhere = tmp_path / "precious"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep")
    (tmp_path / root).mkdir()
    (tmp_path / root / "e1").symlink_to(elsewhere)

    LocalRunFiles(tmp_path).remove("e1")

    assert not (tmp_path / root / "e1").exists()
    assert (elsewhere / "keep.txt").read_text() == "keep"


def test_a_link_in_place_of_the_runner_record_goes_and_what_it_names_stays(
    tmp_path: Path,
) -> None:
    (tmp_path / "precious.json").write_text("keep")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "e1.json").symlink_to(tmp_path / "precious.json")

    LocalRunFiles(tmp_path).remove("e1")

    assert not (tmp_path / "runs" / "e1.json").is_symlink()
    assert (tmp_path / "precious.json").read_text() == "keep"


@pytest.mark.parametrize("execution_id", ["", ".", "..", "a/b", "..\\x"])
def test_an_id_that_is_not_one_path_segment_is_refused(tmp_path: Path, execution_id: str) -> None:
    with pytest.raises(ValueError, match="single path segment"):
        LocalRunFiles(tmp_path).remove(execution_id)
