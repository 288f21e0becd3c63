"""A detached run's worker process, found again from any process through its pid file."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

PID_FILE = "worker.pid"
_POLL_SECONDS = 0.05


def write_pid_file(run_dir: Path, pid: int) -> None:
    temporary = run_dir / f".{PID_FILE}.{os.getpid()}"
    temporary.write_text(f"{pid}\n", encoding="ascii")
    os.replace(temporary, run_dir / PID_FILE)  # a reader never sees half a number


def read_pid_file(run_dir: Path) -> int | None:
    try:
        return int((run_dir / PID_FILE).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def remove_pid_file(run_dir: Path) -> None:
    (run_dir / PID_FILE).unlink(missing_ok=True)


def is_worker_alive(pid: int, execution_id: str) -> bool:
    """True while `pid` is a live worker of this execution.

    Where /proc exists the command line must name the execution, so a pid reused by an unrelated
    process after the worker ended does not pass for the worker.
    """
    if Path("/proc/self").is_dir():
        try:
            command_line = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        if command_line:
            return execution_id.encode() in command_line
        # empty: a zombie, or a process still inside execve (right after Popen returns)
        return not _is_zombie(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True  # gone altogether
    return stat.rpartition(")")[2].split()[:1] == ["Z"]  # the state follows the (command)


def terminate_worker(
    pid: int, execution_id: str, child: subprocess.Popen[bytes] | None, grace: float
) -> None:
    """SIGTERM the worker's process group (it leads its own session, so its command steps are in
    it), then SIGKILL it if it has not ended within `grace` seconds."""
    if child is not None and child.poll() is not None:
        return
    if child is None and not is_worker_alive(pid, execution_id):
        return
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        ended = (
            child.poll() is not None
            if child is not None
            else not is_worker_alive(pid, execution_id)
        )
        if ended:
            return
        time.sleep(_POLL_SECONDS)
    _signal_group(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    if child is not None:
        child.wait(grace)


def _signal_group(pid: int, number: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(pid, number)
        else:  # no process groups (Windows): the worker alone
            os.kill(pid, number)
    except ProcessLookupError:
        pass  # it ended on its own meanwhile
