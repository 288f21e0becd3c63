"""Nothing of a step outlives the step: what its command started in the background and left
running when it ended is stopped by the step's guard, and the step's log says so. Before, such a
process ran on after the run ended (its output elsewhere), or held the run open until it ended
(its output the step's)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.local.runner import _GUARD
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


def test_a_guard_that_leads_no_group_of_its_own_stops_nothing_of_it(tmp_path: Path) -> None:
    """Started as the runner never starts it (in its caller's group), the guard must not take
    its caller's group for the step's: a shell's other job there lives on."""
    script = (
        f"sleep 30 >/dev/null 2>&1 & echo $! > {tmp_path / 'sibling.pid'}; "
        f"{sys.executable} -I -S {_GUARD} 1 -- /bin/true"
    )
    shell = subprocess.run(
        ["sh", "-c", script], start_new_session=True, capture_output=True, text=True, timeout=30
    )
    sibling = int((tmp_path / "sibling.pid").read_text())
    try:
        assert shell.returncode == 0, shell.stderr
        assert "stopped" not in shell.stderr
        assert not is_gone(sibling), "the guard stopped its caller's job"
    finally:
        os.kill(sibling, signal.SIGKILL)
