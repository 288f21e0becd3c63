"""A python step in a process of its own (what a step user's python step runs in): the handler
gets what the runner gives it in-process, and a failure is the step's error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import adapters.local.python_step_host as host_module

pytestmark = pytest.mark.integration

HOST = host_module.__file__
HANDLERS = """
import json, os, pathlib

def record(input_files, output_dir, execution_id, pipeline_execution_id):
    called = [input_files, output_dir, execution_id, pipeline_execution_id, os.getcwd()]
    pathlib.Path(output_dir, "call.json").write_text(json.dumps(called))

def explode(**_):
    raise ValueError("boom")

def registers(register, **_):
    register(logs=[{"logGroupName": "/g"}])
"""


def _host(tmp_path: Path, handler: str) -> subprocess.CompletedProcess[str]:
    code = tmp_path / "code"
    code.mkdir(exist_ok=True)
    (code / "stepcode.py").write_text(HANDLERS, encoding="utf-8")
    output = tmp_path / "output"
    output.mkdir(exist_ok=True)
    listing = tmp_path / "inputs.txt"
    listing.write_text("/in/a.obj\n/in/b c.obj\n", encoding="utf-8")
    environment = {
        "WFX_INPUT_LIST": str(listing),
        "WFX_OUTPUT_DIR": str(output),
        "WFX_EXECUTION_ID": "e1",
        "WFX_PIPELINE_EXECUTION_ID": "p1",
    }
    return subprocess.run(
        [sys.executable, "-P", HOST, f"stepcode:{handler}", str(code)],
        env=environment,
        cwd=output,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_the_handler_gets_its_inputs_output_folder_and_ids(tmp_path: Path) -> None:
    ran = _host(tmp_path, "record")

    assert ran.returncode == 0, ran.stderr
    called = json.loads((tmp_path / "output" / "call.json").read_text())
    output = str(tmp_path / "output")
    assert called == [["/in/a.obj", "/in/b c.obj"], output, "e1", "p1", output]


def test_a_failing_handler_exits_1_with_its_error_last(tmp_path: Path) -> None:
    ran = _host(tmp_path, "explode")

    assert ran.returncode == 1
    assert "Traceback" in ran.stderr and ran.stderr.splitlines()[-1] == "ValueError: boom"


def test_a_handler_that_registers_is_told_it_cannot_here(tmp_path: Path) -> None:
    ran = _host(tmp_path, "registers")

    assert ran.returncode == 1
    assert ran.stderr.splitlines()[-1] == f"RuntimeError: {host_module.NO_REGISTRATION}"
