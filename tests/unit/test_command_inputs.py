"""WFX_INPUT_FILES and WFX_INPUT_LIST: the whole list, or a sentence naming the list file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.local.command_inputs import (
    MAX_INPUT_FILES_BYTES,
    InputListError,
    input_variables,
)


@pytest.fixture
def run_dir(tmp_path: Path) -> str:
    return str(tmp_path / "runs" / "run-1")


def test_paths_that_fit_are_joined_and_listed_one_per_line(run_dir: str) -> None:
    paths = ["/data/a.obj", "/data/é.obj"]

    variables = input_variables(paths, run_dir, "step-1")

    assert variables["WFX_INPUT_FILES"] == os.pathsep.join(paths)
    listed = Path(variables["WFX_INPUT_LIST"])
    assert listed == Path(run_dir) / "inputs" / "step-1.txt"
    assert listed.read_bytes() == "/data/a.obj\n/data/é.obj\n".encode()


def test_paths_just_over_the_limit_are_never_cut_short(run_dir: str) -> None:
    path = "/" + "p" * 99
    paths = [path] * (MAX_INPUT_FILES_BYTES // (len(path) + 1) + 1)

    variables = input_variables(paths, run_dir, "step-1")

    assert variables["WFX_INPUT_FILES"] == (
        f"too many inputs for WFX_INPUT_FILES ({len(paths)} paths), read them from WFX_INPUT_LIST"
    )
    assert Path(variables["WFX_INPUT_LIST"]).read_text().splitlines() == paths


def test_a_path_holding_the_separator_sends_the_reader_to_the_list(run_dir: str) -> None:
    paths = [f"/data/a{os.pathsep}b.obj", "/data/c.obj"]

    variables = input_variables(paths, run_dir, "step-1")

    assert os.pathsep not in variables["WFX_INPUT_FILES"]
    assert "WFX_INPUT_LIST" in variables["WFX_INPUT_FILES"]
    assert Path(variables["WFX_INPUT_LIST"]).read_text().splitlines() == paths


def test_a_path_with_a_newline_fails_the_step_instead_of_splitting_in_two(run_dir: str) -> None:
    with pytest.raises(InputListError, match="newline"):
        input_variables(["/data/a\nb.obj"], run_dir, "step-1")


def test_a_retried_step_gets_its_list_rewritten_whole(run_dir: str) -> None:
    input_variables(["/data/a.obj", "/data/b.obj"], run_dir, "step-1")

    variables = input_variables(["/data/c.obj"], run_dir, "step-1")

    assert Path(variables["WFX_INPUT_LIST"]).read_text() == "/data/c.obj\n"
    assert os.listdir(Path(variables["WFX_INPUT_LIST"]).parent) == ["step-1.txt"]
