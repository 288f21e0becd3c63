"""A second `wfx run --client-token T` that finds the run already launched by another process
waits for it as the first does, and exits by the run's end: the same id, the same exit code."""

from __future__ import annotations

import time
from typing import Any

from tests.e2e.cli import Wfx

EXIT_FAILED_RUN = 1


def _running(step: dict[str, Any]) -> bool:
    return bool(step["executionStatus"] == "RUNNING")


def test_a_replayed_launch_waits_for_the_run_and_exits_by_its_end(wfx: Wfx) -> None:
    release = wfx.home / "release"
    wfx.publish_command_step(
        "held",
        f"import os, sys, time\nwhile not os.path.exists({str(release)!r}): time.sleep(0.1)\n"
        "sys.exit(3)",
    )
    run = ("run", "demo/held", "--client-token", "nightly-1")
    first = wfx.start(*run)
    deadline = time.monotonic() + 60
    while not wfx.listed_ids() and time.monotonic() < deadline:
        time.sleep(0.2)
    (execution_id,) = wfx.listed_ids()
    # its step running: the first process's runner holds it, and nothing is left to start
    details = wfx.wait_until(execution_id, lambda run: any(map(_running, run["pipelines"])))
    assert any(map(_running, details["pipelines"]))

    replayed = wfx.start(*run, "--json")
    time.sleep(3)
    assert replayed.poll() is None, replayed.communicate()  # waiting, as the first is
    release.touch()

    first_out, _ = first.communicate(timeout=60)
    replayed_out, replayed_err = replayed.communicate(timeout=60)
    assert first.returncode == EXIT_FAILED_RUN
    assert first_out.strip() == execution_id
    assert replayed.returncode == EXIT_FAILED_RUN, replayed_err
    assert '"executionStatus": "FAILED"' in replayed_out
    assert execution_id in replayed_out
    assert wfx.listed_ids() == [execution_id]
