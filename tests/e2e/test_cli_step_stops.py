"""A command step stopped from outside the runner (SIGTERM to the pid its run folder records,
which is the step's guard, or to the command itself) ends FAILED saying the same thing either
way: before, the first read `exit code 143` and the second `killed by signal 15`."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.cli import Wfx
from tests.e2e.run_processes import command_line

pytestmark = pytest.mark.integration


def _step_pids(wfx: Wfx, execution_id: str) -> tuple[int, int]:
    """The guard's pid, as the run folder records it, and its command's, once both run."""
    steps = wfx.home / "runs" / execution_id / "steps"
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, "the step never started its command"
        records = list(steps.glob("*.json")) if steps.is_dir() else []
        if records:
            guard = int(json.loads(records[0].read_text(encoding="utf-8"))["pid"])
            children = Path(f"/proc/{guard}/task/{guard}/children")
            found = children.read_text(encoding="ascii").split() if children.exists() else []
            if found and "time.sleep" in command_line(int(found[0])):
                return guard, int(found[0])
        time.sleep(0.05)


@pytest.mark.parametrize("reached", ["guard", "command"])
def test_a_step_stopped_by_sigterm_says_killed_by_signal_15_whichever_process_got_it(
    wfx: Wfx, reached: str
) -> None:
    wfx.publish_command_step("sleepy", "import time; time.sleep(300)")
    execution_id = wfx.run_id("demo/sleepy", "--no-wait")
    guard, command = _step_pids(wfx, execution_id)

    os.kill(guard if reached == "guard" else command, signal.SIGTERM)

    details = wfx.wait_until(execution_id, lambda d: d["executionStatus"] != "RUNNING")
    (step,) = details["pipelines"]
    assert (details["executionStatus"], step["executionStatus"]) == ("FAILED", "FAILED"), details
    assert step["errorMessage"] == "exit code -15 (killed by signal 15)", step
