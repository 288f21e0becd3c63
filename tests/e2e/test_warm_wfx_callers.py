"""The warm wfx (tests/e2e/wfx_zygote.py) forks each `wfx` itself and waits for it: a caller
that asks nothing, one that hangs up, or one that leaves before its wfx ends leaves the zygote
answering the next call, and every wfx it forked is reaped."""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.e2e import warm_wfx
from tests.e2e.cli import Wfx


def _zygote(wfx: Wfx) -> warm_wfx._Zygote:
    zygote = warm_wfx.warm_wfx(wfx._environment, to_start=True)
    if zygote is None:
        pytest.skip("no warm wfx here (WFX_TEST_COLD_START, or a Popen it does not know)")
    return zygote


def _children(pid: int) -> dict[int, str]:
    """The zygote's children, each with its state (Z: ended, not reaped)."""
    children = {}
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # not a process, or gone meanwhile
            continue
        if int(fields[1]) == pid:
            children[int(entry.name)] = fields[0]
    return children


def test_callers_that_ask_nothing_or_leave_early_hold_up_no_call_and_leave_no_zombie(
    tmp_path: Path,
) -> None:
    wfx = Wfx(tmp_path / "home")
    zygote = _zygote(wfx)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(zygote.path)  # and never asks
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as hung_up:
        hung_up.connect(zygote.path)
    left = wfx.start("executions", "list")  # its caller gone before it ends
    left._answers.close()  # type: ignore[attr-defined]
    os.kill(left.pid, signal.SIGKILL)
    try:
        outcome = wfx("executions", "list", "--json")
        assert outcome.code == 0, str(outcome)
        assert outcome.json()["Items"] == []
    finally:
        silent.close()
    deadline = time.monotonic() + 30
    while "Z" in _children(zygote._process.pid).values():
        assert time.monotonic() < deadline, _children(zygote._process.pid)
        time.sleep(0.05)
