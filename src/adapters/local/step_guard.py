"""The first process of every command step: it runs the command and makes sure nothing of the
step outlives the runner that started it.

Started as `python -I -S step_guard.py GRACE_SECONDS [--as UID:GID] [--go FD] [--parent PID] --
COMMAND...` in a session and process group of its own (the runner passes start_new_session), it
asks Linux for SIGTERM when its parent dies (PR_SET_PDEATHSIG), and runs nothing if its parent,
the runner whose pid `--parent` gives, is already gone by then (Python's start is slow enough
for the runner to say go and be killed first); with `--go`, it waits for the runner's byte on
FD (sent once the runner has recorded the guard's pid, so any process on the host can stop the
group: a runner killed before it recorded the step leaves no command running), then spawns the
command in its group (as that user and group, with no other group, when `--as` names one: the
guard stays the runner's user, so it can always stop the group), and on SIGTERM, SIGINT or
SIGHUP - an abort, or the runner killed with `kill -9` - stops the whole group: SIGTERM, then
SIGKILL after the grace period. Its exit status is the command's; stopped, it ends by the
signal that ended the command (the stop's own when the command ended cleanly or never ran), so
the runner says "killed by signal 15" of every stopped step, whichever process the stop reached.

Standard library only, and no wfx import: it must start in a few milliseconds (-I -S).
"""

from __future__ import annotations

import os
import signal
import sys
import time

_PR_SET_PDEATHSIG = 1
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# What subprocess's restore_signals gives a child: Python itself ignores these two.
_DEFAULT_IN_CHILD = (signal.SIGPIPE, getattr(signal, "SIGXFSZ", signal.SIGPIPE))
_POLL_SECONDS = 0.02


class _StopRequestedError(Exception):
    """Raised by the signal handler, so that a wait for the command is interrupted at once."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


_stopping = False


def _on_stop(number: int, frame: object) -> None:
    # Only the first stop counts: the group's own SIGTERM hits us too, and a runner killed with
    # -9 dies thread by thread, each death sending the parent-death signal again. Noted here,
    # not in the stop itself, so that none of them can break off the stop half-way.
    global _stopping
    if not _stopping:
        _stopping = True
        raise _StopRequestedError(number)


def _die_with_parent(parent: int) -> bool:
    """Whether `parent` is still this guard's parent once its death would stop the guard."""
    if not sys.platform.startswith("linux"):
        return True
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    return os.getppid() == parent  # else it died before the request was in place


def _others_in_group() -> list[int]:
    """The live members of this guard's group, but itself (Linux's /proc; elsewhere none)."""
    group, me = os.getpgrp(), os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 2 and fields[2] == str(group) and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def _stop_group(grace_seconds: float, child: int) -> int | None:
    """The group stopped; the command's wait status, when it was reaped meanwhile."""
    group = os.getpgrp()
    os.killpg(group, signal.SIGTERM)  # we are in it: our handler ignores it
    status = None
    deadline = time.monotonic() + grace_seconds
    while time.monotonic() < deadline:
        if status is None:  # reaped once: a second wait finds no child
            status = _reap(child)
        if not _others_in_group():
            return status
        time.sleep(_POLL_SECONDS)
    os.killpg(group, signal.SIGKILL)  # the group, this guard with it
    return status


def _stop_what_is_left(grace_seconds: float) -> None:
    """The command ended; what it started in its group and left running (`cmd &` with its output
    elsewhere) is stopped as an abort stops it: nothing of a step outlives the step. SIGTERM, then
    SIGKILL after the grace, sent to each member, since the guard is in the group too."""
    if os.getpgrp() != os.getpid():  # not started as the runner starts it: not its group
        return
    left = _others_in_group()
    if not left:
        return
    counted = "1 process" if len(left) == 1 else f"{len(left)} processes"
    print(f"wfx: the step's command ended leaving {counted} running: stopped", file=sys.stderr)
    _signal_each(left, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    while (left := _others_in_group()) and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
    _signal_each(left, signal.SIGKILL)


def _signal_each(pids: list[int], number: signal.Signals) -> None:
    for pid in pids:
        try:  # noqa: SIM105 - contextlib would add collections and functools to every start
            os.kill(pid, number)
        except ProcessLookupError:
            pass  # it ended meanwhile


def _reap(child: int) -> int | None:
    try:
        pid, status = os.waitpid(child, os.WNOHANG)
    except ChildProcessError:
        return None
    return status if pid == child else None


def _spawn_as(command: list[str], uid: int, gid: int, mask: set[int | signal.Signals]) -> int:
    """fork, drop to the user, exec: posix_spawn cannot change the user."""
    # execvpe's search of PATH imports it: once the user, the child may not read our Python
    import warnings  # noqa: F401

    child = os.fork()
    if child:
        return child
    try:
        for number in (*_STOP_SIGNALS, *_DEFAULT_IN_CHILD):
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a stop that came meanwhile ends it
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        # the guard's environment is the step's already (command_environment): passed on whole
        os.execvpe(command[0], command, os.environ)
    except OSError as error:
        os.write(2, f"cannot run {command[0]}: {error.strerror or error}\n".encode())
        os._exit(127 if isinstance(error, FileNotFoundError) else 126)
    finally:  # whatever else went wrong, the child never goes on as a second guard
        os._exit(126)


_USAGE = "usage: step_guard.py GRACE_SECONDS [--as UID:GID] [--go FD] [--parent PID] -- COMMAND..."


def _go_given(fd: int) -> bool:
    """Whether the runner said go (one byte) rather than closing the pipe unsaid."""
    with os.fdopen(fd, "rb", buffering=0) as go:
        return bool(go.read(1))


def _take_stop_signals() -> None:
    # a runner started with them blocked (a launcher's thread that held them) passes that on:
    # held, the stop and the parent-death signal would never reach the guard, nor the command
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    for number in _STOP_SIGNALS:
        signal.signal(number, _on_stop)


def main(argv: list[str]) -> int:
    user: tuple[int, int] | None = None
    go: int | None = None
    parent = os.getppid()
    grace_seconds, *argv = argv or [""]
    while argv[:1] in (["--as"], ["--go"], ["--parent"]) and len(argv) > 1:
        if argv[0] == "--as":
            uid, _, gid = argv[1].partition(":")
            user = (int(uid), int(gid))
        elif argv[0] == "--go":
            go = int(argv[1])
        else:
            parent = int(argv[1])
        argv = argv[2:]
    separator, *command = argv or [""]
    if separator != "--" or not command:
        print(_USAGE, file=sys.stderr)
        return 2
    _take_stop_signals()
    try:
        if not _die_with_parent(parent):
            print("wfx: the runner ended before the step started: not run", file=sys.stderr)
            return 125
        if go is not None and not _go_given(go):
            print("wfx: the runner ended before it recorded the step: not run", file=sys.stderr)
            return 125
        # held until the command's pid is known: a stop raised while the spawn returns would
        # leave the command running with no one to stop it
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    except _StopRequestedError as stop:  # stopped (or the runner gone) before the command ran
        return _die_by(stop.number)
    try:
        if user is None:  # the step's environment, as the guard got it, passed on whole
            child = os.posix_spawnp(
                command[0], command, os.environ, setsigdef=_DEFAULT_IN_CHILD, setsigmask=mask
            )
        else:
            child = _spawn_as(command, *user, mask)
    except OSError as error:
        print(f"cannot run {command[0]}: {error.strerror or error}", file=sys.stderr)
        return 127 if isinstance(error, FileNotFoundError) else 126
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a stop held meanwhile is raised here
        while True:
            try:
                pid, status = os.waitpid(child, 0)
            except ChildProcessError:
                return 0
            if pid == child:
                _stop_what_is_left(float(grace_seconds))
                return _exit_code(status)
    except _StopRequestedError as stop:
        reaped = _stop_group(float(grace_seconds), child)
        if reaped is None:
            reaped = _reap(child)
        if reaped is None or (os.WIFEXITED(reaped) and os.WEXITSTATUS(reaped) == 0):
            # its end unknown, or clean: a stopped step did not succeed, and says how it ended
            return _die_by(stop.number)
        return _exit_code(reaped)


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        # end the same way, so that the runner sees "killed by signal N" as it would have
        return _die_by(os.WTERMSIG(status))
    return os.waitstatus_to_exitcode(status)


def _die_by(number: int) -> int:
    """End this guard by the signal `number`; 128 + number (a shell's code for it) should the
    signal not end it."""
    for stop in _STOP_SIGNALS:
        signal.signal(stop, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
    os.kill(os.getpid(), number)
    return 128 + number


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
