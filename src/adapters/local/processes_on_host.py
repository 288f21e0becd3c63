"""What this host says about a process: is it still the one we started, who shares its group
or session, and stopping a whole group - SIGTERM, a grace period, then SIGKILL.

A process id is reused once its process has gone, so a process is named by its id *and* its
start time (`/proc/<pid>/stat` field 22): a stranger that took the id later never passes.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_POLL_SECONDS = 0.02
_PROC = Path("/proc")
HOST = socket.gethostname()


class _OwnPid:
    """This process's id, asked once and again in a forked child: os.getpid() is a system call
    each time, and a run asked it three times (its lease owner, its record, its record's link)."""

    def __init__(self) -> None:
        self.pid = os.getpid()

    def forked(self) -> None:
        self.pid = os.getpid()


_OWN_PID = _OwnPid()
os.register_at_fork(after_in_child=_OWN_PID.forked)


def own_pid() -> int:
    """os.getpid(), without the system call."""
    return _OWN_PID.pid


@dataclass(frozen=True)
class ProcessStat:
    pid: int
    state: str
    ppid: int
    pgid: int
    sid: int
    start_time: int  # clock ticks since boot


def read_stat(pid: int) -> ProcessStat | None:
    """The process as /proc shows it; None when there is none (or no /proc)."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # the command name, in parentheses, may hold spaces and parentheses itself
    fields = text.rpartition(")")[2].split()
    try:
        return ProcessStat(
            pid=pid,
            state=fields[0],
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            sid=int(fields[3]),
            start_time=int(fields[19]),
        )
    except (IndexError, ValueError):
        return None


def start_time_of(pid: int) -> int | None:
    stat = read_stat(pid)
    return None if stat is None else stat.start_time


def is_running(pid: int, start_time: int | None) -> bool:
    """True while `pid` is alive (not a zombie) and, when known, started at `start_time`."""
    stat = read_stat(pid)
    if stat is None:
        if _PROC.is_dir():
            return False
        try:  # no /proc (macOS): signal 0 is all there is
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    if stat.state in ("Z", "X"):
        return False
    return start_time is None or stat.start_time == start_time


def wait_until_gone(
    pid: int,
    start_time: int | None,
    seconds: float,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Whether the process (`pid`, started at `start_time`) has gone within `seconds`: woken by
    its exit where Linux gives a descriptor of the process (pidfd_open), else looked at every
    20 ms (`sleep` between two looks)."""
    deadline = time.monotonic() + seconds
    descriptor = _descriptor_of(pid)
    try:
        while is_running(pid, start_time):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if descriptor is None:
                sleep(min(_POLL_SECONDS, left))
            elif select.select([descriptor], [], [], left)[0]:  # readable: it has exited
                os.close(descriptor)
                descriptor = None  # what is left to wait for is /proc saying so
        return True
    finally:
        if descriptor is not None:
            os.close(descriptor)


def _descriptor_of(pid: int) -> int | None:
    open_descriptor = getattr(os, "pidfd_open", None)  # Linux 5.3 and later
    if open_descriptor is None:
        return None
    try:
        return int(open_descriptor(pid))
    except OSError:  # gone already, or a kernel without it
        return None


def members(pgid: int) -> list[ProcessStat]:
    """The live processes of a process group (zombies have ended and are left out)."""
    found = []
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        stat = read_stat(int(entry))
        if stat is not None and stat.pgid == pgid and stat.state not in ("Z", "X"):
            found.append(stat)
    return found


def in_session_or_group(pid: int, leader: int) -> bool:
    """Whether `pid` belongs to the group or the session `leader` leads (its descendants stay
    there unless they leave on purpose)."""
    stat = read_stat(pid)
    return stat is not None and leader in (stat.pgid, stat.sid)


def command_line(pid: int) -> str:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode("utf-8", errors="replace").strip()


def describe(stat: ProcessStat) -> str:
    line = command_line(stat.pid)
    return f"pid {stat.pid} ({line[:120]})" if line else f"pid {stat.pid}"


def stop_group(
    pgid: int,
    grace_seconds: float,
    alive: Callable[[], list[ProcessStat]] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> list[ProcessStat]:
    """SIGTERM every process of the group, SIGKILL what is left after the grace period; the
    processes still alive after that (a process stuck in the kernel, or one of another user).

    The group is watched, not its leader: a leader that exits on SIGTERM must not let a member
    that ignores it live on.
    """
    alive = alive or (lambda: members(pgid))
    if pgid <= 1 or pgid == os.getpgrp():
        return alive()  # never init's group, nor our own
    if not _signal_group(pgid, signal.SIGTERM):
        return []
    if _wait_until_empty(alive, grace_seconds, sleep):
        return []
    _signal_group(pgid, getattr(signal, "SIGKILL", signal.SIGTERM))
    _wait_until_empty(alive, 1.0, sleep)
    return alive()


def _signal_group(pgid: int, number: int) -> bool:
    try:
        os.killpg(pgid, number)
    except ProcessLookupError:
        return False  # nothing left in it
    except PermissionError:
        return True  # some member is another user's: watch what is left
    return True


def _wait_until_empty(
    alive: Callable[[], list[ProcessStat]], seconds: float, sleep: Callable[[float], None]
) -> bool:
    deadline = time.monotonic() + seconds
    while alive():
        if time.monotonic() >= deadline:
            return False
        sleep(_POLL_SECONDS)
    return True
