"""The step guard runs its command only once the runner says go: a runner killed between
starting a command step and recording its process (so that any process on the host can stop
the group) leaves no command running, as a real guard process shows."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.local.runner import _GUARD

pytestmark = pytest.mark.integration


def _guarded(marker: Path) -> tuple[subprocess.Popen[bytes], int]:
    """The guard over a command that leaves `marker`, and the pipe's end that releases it."""
    go_read, go_write = os.pipe()
    command = ["/bin/sh", "-c", 'echo ran > "$1"', "step", str(marker)]
    guard = subprocess.Popen(
        [sys.executable, "-I", "-S", _GUARD, "1", "--go", str(go_read), "--", *command],
        stderr=subprocess.PIPE,
        pass_fds=(go_read,),
        start_new_session=True,
    )
    os.close(go_read)
    return guard, go_write


def test_the_command_starts_only_when_the_runner_says_go(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    guard, go = _guarded(marker)
    try:
        time.sleep(0.5)  # the guard is up long before this; its command must not be
        assert guard.poll() is None
        assert not marker.exists()
        os.write(go, b"1")
    finally:
        os.close(go)
    assert guard.wait(timeout=30) == 0
    assert marker.read_text() == "ran\n"


def test_a_runner_gone_before_it_said_go_leaves_nothing_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    guard, go = _guarded(marker)
    os.close(go)  # what the runner's death does to its end of the pipe

    assert guard.wait(timeout=30) == 125
    assert not marker.exists()
    assert guard.stderr is not None
    assert b"not run" in guard.stderr.read()
