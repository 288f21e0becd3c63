"""Nothing of a step outlives the step: what its command started in the background and left
running when it ended is stopped by the step's guard, and the step's log says so. Before, such a
process ran on after the run ended (its output elsewhere), or held the run open until it ended
(its output the step's)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.cli import Wfx
from tests.e2e.run_processes import command_line, is_gone

_LEAVES = """
import pathlib, subprocess, sys
quiet = {{"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}} if {quiet} else {{}}
left = subprocess.Popen(["sleep", "300"], **quiet)
pathlib.Path({mark!r}).write_text(str(left.pid))
print("started the background sleep")
"""


@pytest.mark.parametrize("quiet", [True, False], ids=["output-elsewhere", "output-kept"])
def test_a_process_the_step_left_running_is_stopped_when_the_step_ends(
    wfx: Wfx, tmp_path: Path, quiet: bool
) -> None:
    mark = tmp_path / "left.pid"
    wfx.publish_command_step("leaves", _LEAVES.format(quiet=quiet, mark=str(mark)))

    execution_id = wfx.run_id("demo/leaves")

    left = int(mark.read_text())
    deadline = time.monotonic() + 10
    while not is_gone(left):
        assert time.monotonic() < deadline, f"still running: {left} {command_line(left)}"
        time.sleep(0.05)
    details = wfx.json("executions", "show", execution_id)
    assert details["executionStatus"] == "SUCCEEDED", details
    logs = wfx.ok("executions", "logs", execution_id, "--full").stdout
    assert "started the background sleep" in logs
    assert "the step's command ended leaving 1 process running: stopped" in logs
