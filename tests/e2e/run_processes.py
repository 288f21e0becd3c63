"""What /proc says about a local run's processes: those left of a run, and whether a pid is gone.

Every step process of a run has WFX_EXECUTION_ID in its environment, a detached worker the run's
id on its command line. Shared by the e2e tests that stop runners (kill -9, signals).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path

GONE_WITHIN_SECONDS = 10.0  # grace (1 s) + SIGKILL + the guard's polling, with room for CI load


def wait_until_nothing_is_left(
    execution_id: str, known: Mapping[str, int] | None = None, seconds: float = GONE_WITHIN_SECONDS
) -> float:
    """The moment (epoch seconds) no live process of the run is left, nor any of the `known`
    pids (by the name a failure gives them: the registered `sleep`, a killed worker).

    A process that is exiting has released its memory, so /proc shows it with no environment and
    no command line before it turns zombie: `processes_of_run` cannot tell it is the run's. A
    pid the test knows is watched by pid until it is gone."""
    deadline = time.monotonic() + seconds
    while True:
        left = [f"pid {pid} ({line})" for pid, line in processes_of_run(execution_id).items()]
        left += [f"{name}, pid {pid}" for name, pid in (known or {}).items() if not is_gone(pid)]
        if not left:
            return time.time()
        assert time.monotonic() < deadline, f"still running after {seconds:g} s: {left}"
        time.sleep(0.05)


def kill_what_is_left(home: Path) -> None:
    """A test that failed halfway may leave a run's processes behind: they are killed."""
    runs = home / "runs"
    for name in os.listdir(runs) if runs.is_dir() else ():
        execution_id = name.removesuffix(".json")  # a run's record, or its folder
        for pid in processes_of_run(execution_id):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def processes_of_run(execution_id: str) -> dict[int, str]:
    """The command line of each live process with the run's id in its environment or on its
    command line, by pid."""
    variable = f"WFX_EXECUTION_ID={execution_id}".encode()
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environment = Path("/proc", entry, "environ").read_bytes().split(b"\0")
            command = Path("/proc", entry, "cmdline").read_bytes()
        except OSError:  # gone meanwhile, or another user's
            continue
        pid = int(entry)
        if (variable in environment or execution_id.encode() in command) and not is_gone(pid):
            found[pid] = command_line(pid)
    return found


def is_gone(pid: int) -> bool:
    """No such process, or one that has exited and only waits to be reaped."""
    try:
        stat = Path("/proc", str(pid), "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def command_line(pid: int) -> str:
    """Its first 100 characters, on one line (a step's `sh -c` script is long)."""
    try:
        raw = Path("/proc", str(pid), "cmdline").read_bytes()
    except OSError:
        return ""
    return " ".join(raw.replace(b"\0", b" ").decode("utf-8", "replace").split())[:100]
