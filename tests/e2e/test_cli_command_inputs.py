"""A command step's inputs: WFX_INPUT_LIST always, WFX_INPUT_FILES when it can hold them all."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.cli import Wfx

MANY = 20_000
# The command reports what it was given, as JSON on its stdout (the step log).
REPORT = """
import hashlib, json, os
listed = open(os.environ["WFX_INPUT_LIST"], encoding="utf-8").read()
paths = listed.splitlines()
names = "\\n".join(sorted(os.path.basename(p) for p in paths))
print(json.dumps({
    "list": os.environ["WFX_INPUT_LIST"],
    "files": os.environ["WFX_INPUT_FILES"],
    "count": len(paths),
    "distinct": len(set(paths)),
    "terminated": listed == "" or listed.endswith("\\n"),
    "all_files": all(os.path.isabs(p) and os.path.isfile(p) for p in paths),
    "names": hashlib.sha256(names.encode()).hexdigest(),
    "paths": paths[:3],
}))
"""


def _publish_report(wfx: Wfx, arity: str) -> None:
    step = {
        "pipelineId": "report",
        "executionType": "command",
        "command": [sys.executable, "-c", REPORT],
        "inputFileArity": arity,
    }
    document = {"databaseId": "demo", "workflowId": f"report-{arity}", "steps": [step]}
    path = wfx.home / f"report-{arity}.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def _report(wfx: Wfx, execution_id: str) -> dict[str, Any]:
    log = wfx.ok("executions", "logs", execution_id).stdout
    [line] = [line for line in log.splitlines() if line.startswith("{")]
    return dict(json.loads(line))


def _names_digest(names: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()


@pytest.fixture
def in_memory(tmp_path: Path) -> Iterator[Path]:
    """A folder on tmpfs where the machine has one (else tmp_path): importing and running over
    20 000 files makes some 60 000 folders and files, which took an ext4 disk under the suite's
    load 60 s; what the test checks is the step's inputs, not the disk."""
    shared_memory = Path("/dev/shm")
    if not (shared_memory.is_dir() and os.access(shared_memory, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="wfx-many-inputs-", dir=shared_memory))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_step_over_20000_inputs_reads_every_path_from_its_input_list(in_memory: Path) -> None:
    wfx = Wfx(in_memory / "home")
    folder = in_memory / "many"
    folder.mkdir()
    names = [f"f{index:05d}.txt" for index in range(MANY)]
    for name in names:
        (folder / name).write_bytes(b"x")
    wfx.ok("assets", "import", "demo", "many", str(folder))
    _publish_report(wfx, "many")

    execution_id = wfx.run_id("demo/report-many", "--input", "demo/many")

    report = _report(wfx, execution_id)
    assert report["count"] == report["distinct"] == MANY
    assert report["all_files"] and report["terminated"]
    assert report["names"] == _names_digest(names)
    # too long for the environment: a sentence naming the list, never a partial list
    assert "WFX_INPUT_LIST" in report["files"] and os.pathsep not in report["files"]
    run_folder = wfx.home / "runs" / execution_id
    assert Path(report["list"]).parent.parent == run_folder  # the run's folder, not its outputs


def test_a_few_inputs_come_in_both_forms_and_the_list_is_no_output(
    wfx: Wfx, tmp_path: Path
) -> None:
    for name in ("a.obj", "b.obj"):
        (tmp_path / name).write_text(name)
    wfx.ok("assets", "import", "demo", "pair", str(tmp_path / "a.obj"), str(tmp_path / "b.obj"))
    _publish_report(wfx, "many")

    execution_id = wfx.run_id("demo/report-many", "--input", "demo/pair")

    report = _report(wfx, execution_id)
    assert report["count"] == 2 and report["all_files"]
    assert report["files"].split(os.pathsep) == report["paths"]
    details = wfx.json("executions", "show", execution_id)
    assert details["outputs"]["files"] == []


def test_a_step_without_inputs_gets_an_empty_variable_and_an_empty_list(wfx: Wfx) -> None:
    _publish_report(wfx, "none")

    execution_id = wfx.run_id("demo/report-none")

    report = _report(wfx, execution_id)
    assert report["files"] == ""
    assert report["count"] == 0 and Path(report["list"]).read_bytes() == b""
