"""Nothing of a step outlives its runner, whenever the stop signals reach the step's guard.

A runner killed with `kill -9` ends thread by thread: its guard, handed to each thread still
alive in turn, gets the parent-death SIGTERM once per thread (up to four for a foreground
`wfx run` on a loaded machine), microseconds apart. The real guard runs here with a hold
injected at the point under test (the test's own wrapper loads the guard's module and wraps one
of its calls: the guard itself has no hook), the signals are sent while it holds, and /proc
shows what is left of its process group.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.local.runner import _GUARD
from tests.e2e.run_processes import command_line, is_gone

pytestmark = pytest.mark.integration

_WAIT_SECONDS = 5.0
# The guard's module, with `hook` wrapped so that it says HELD on stderr and then waits a second
# (a loaded machine's delay at that point), run as `python -I -S step_guard.py ARGS...` runs it.
_HELD = """
import importlib.util, os, sys, time
path, hook, *argv = sys.argv[1:]
spec = importlib.util.spec_from_file_location("step_guard", path)
guard = importlib.util.module_from_spec(spec)
spec.loader.exec_module(guard)
owner = os if hook == "posix_spawnp" else guard
real = getattr(owner, hook)
def held(*args, **named):
    result = real(*args, **named) if hook == "posix_spawnp" else None
    os.write(2, b"HELD\\n")
    time.sleep(1)
    return result if hook == "posix_spawnp" else real(*args, **named)
setattr(owner, hook, held)
sys.exit(guard.main(argv))
"""


def _group(leader: int) -> dict[int, str]:
    """The live processes of the process group `leader` led, but for the leader."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == leader:
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if fields[2] == str(leader) and not is_gone(int(entry)):
            found[int(entry)] = command_line(int(entry))
    return found


def _wait_for(what: str, condition: Callable[[], bool], seconds: float = _WAIT_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds:g} s: {what}"
        time.sleep(0.01)


@pytest.fixture
def guards() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The guards a test starts; whatever of their groups a failed test left is killed."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for guard in started:
        for pid in _group(guard.pid):
            os.kill(pid, signal.SIGKILL)
        if guard.poll() is None:
            guard.kill()
        guard.wait()


def _held_guard(
    guards: list[subprocess.Popen[bytes]], hook: str, stderr: Path
) -> subprocess.Popen[bytes]:
    """The guard over `sh` running `sleep 300`, released at once, held in `hook`; what it says
    goes to `stderr` (a pipe would be held open by the group it leaves)."""
    held = [sys.executable, "-I", "-S", "-c", _HELD, _GUARD, hook]
    with stderr.open("wb") as said:
        return _started(guards, held, "sleep 300 & wait", said)


def _started(
    guards: list[subprocess.Popen[bytes]], guard: list[str], script: str, stderr: Any
) -> subprocess.Popen[bytes]:
    """`guard` (its argv up to its arguments) over `sh -c SCRIPT`, its stop's grace one second,
    started in a session of its own as the runner starts it and told to go at once."""
    go_read, go_write = os.pipe()
    process = subprocess.Popen(
        [*guard, "1", "--go", str(go_read), "--", "/bin/sh", "-c", script],
        stderr=stderr,
        pass_fds=(go_read,),
        start_new_session=True,
    )
    guards.append(process)
    os.close(go_read)
    os.write(go_write, b"1")
    os.close(go_write)
    return process


def _held(stderr: Path) -> bool:
    return b"HELD\n" in stderr.read_bytes()


def _sleeping(guard: subprocess.Popen[bytes]) -> bool:
    return any(line.startswith("sleep") for line in _group(guard.pid).values())


def _assert_its_group_stopped(guard: subprocess.Popen[bytes], stderr: Path) -> None:
    guard.wait(timeout=_WAIT_SECONDS)
    said = stderr.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in said, said
    _wait_for(f"its group gone (the guard ended {guard.returncode})", lambda: not _group(guard.pid))


def test_a_stop_signal_during_the_stop_does_not_end_the_guard_before_its_group(
    guards: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    stderr = tmp_path / "guard.err"
    guard = _held_guard(guards, "_stop_group", stderr)
    _wait_for("the sleep in the guard's group", lambda: _sleeping(guard))

    os.kill(guard.pid, signal.SIGTERM)  # the first thread's death
    _wait_for("the guard in its stop", lambda: _held(stderr))
    os.kill(guard.pid, signal.SIGTERM)  # the next one's

    _assert_its_group_stopped(guard, stderr)


def test_a_stop_signal_while_the_command_is_spawned_stops_it(
    guards: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    stderr = tmp_path / "guard.err"
    guard = _held_guard(guards, "posix_spawnp", stderr)
    _wait_for("the guard in its spawn", lambda: _held(stderr))

    os.kill(guard.pid, signal.SIGTERM)  # the command runs; its pid is not the guard's yet

    _assert_its_group_stopped(guard, stderr)


# A runner that starts the guard, says go at once and dies, all before the guard has asked for
# its parent-death signal (the guard is held until then: Python's start is slower than that on
# a loaded machine). The guard's pid is its one line of output.
_SHORT_LIVED_RUNNER = """
import os, subprocess, sys
guard, marker, stderr = sys.argv[1:]
go_read, go_write = os.pipe()
command = ["/bin/sh", "-c", 'echo ran > "$1"; sleep 300', "step", marker]
held = "import os, runpy, sys, time\\n" \\
    "runner = int(sys.argv[sys.argv.index('--parent') + 1])\\n" \\
    "while os.getppid() == runner: time.sleep(0.005)\\n" \\
    "sys.argv = sys.argv[1:]\\n" \\
    "runpy.run_path(sys.argv[0], run_name='__main__')\\n"
argv = [sys.executable, "-I", "-S", "-c", held, guard, "1", "--go", str(go_read)]
argv += ["--parent", str(os.getpid()), "--", *command]
with open(stderr, "wb") as said:
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=said, pass_fds=(go_read,), start_new_session=True
    )
os.write(go_write, b"1")
print(process.pid)
"""


def test_a_runner_dead_before_the_guard_watched_it_leaves_no_command_running(
    tmp_path: Path,
) -> None:
    marker, stderr = tmp_path / "ran", tmp_path / "guard.err"
    runner = subprocess.run(
        [sys.executable, "-c", _SHORT_LIVED_RUNNER, _GUARD, str(marker), str(stderr)],
        capture_output=True,
        text=True,
        timeout=_WAIT_SECONDS,
        check=True,
    )
    guard = int(runner.stdout)
    try:
        _wait_for("the guard ended", lambda: is_gone(guard))
        said = stderr.read_text(encoding="utf-8", errors="replace")
        assert "the runner ended before the step started: not run" in said, said
        assert not marker.exists()
        assert _group(guard) == {}
    finally:
        for pid in _group(guard):
            os.kill(pid, signal.SIGKILL)


def _guard_over(guards: list[subprocess.Popen[bytes]], script: str) -> subprocess.Popen[bytes]:
    """The real guard over `sh -c SCRIPT`, once the sleep it starts runs."""
    guard = _started(guards, [sys.executable, "-I", "-S", _GUARD], script, subprocess.DEVNULL)
    _wait_for("the sleep in the guard's group", lambda: _sleeping(guard))
    return guard


def _shell(guard: subprocess.Popen[bytes]) -> int:
    (pid,) = [pid for pid, line in _group(guard.pid).items() if line.startswith("/bin/sh")]
    return pid


@pytest.mark.parametrize("reached", ["guard", "command", "group"])
def test_a_stopped_step_ends_killed_by_the_signal_whichever_process_the_stop_reached(
    guards: list[subprocess.Popen[bytes]], reached: str
) -> None:
    # before, a SIGTERM to the guard (a stop through the step's recorded pid, the runner's
    # death) ended it 143, where the same SIGTERM to the command ended it killed by signal 15:
    # the runner said "exit code 143" of one stop and "killed by signal 15" of the other
    guard = _guard_over(guards, "sleep 300 & wait")
    # a group's pid negated: kill(2) signals the whole group
    target = {"guard": guard.pid, "command": _shell(guard), "group": -guard.pid}[reached]

    os.kill(target, signal.SIGTERM)

    assert guard.wait(timeout=_WAIT_SECONDS) == -signal.SIGTERM
    _wait_for("its group gone", lambda: not _group(guard.pid))


@pytest.mark.parametrize(("trap", "ended"), [("exit 3", 3), ("exit 0", -signal.SIGTERM)])
def test_a_command_that_ends_itself_on_the_stop_says_its_code_unless_it_claims_success(
    guards: list[subprocess.Popen[bytes]], trap: str, ended: int
) -> None:
    # a stopped step did not succeed: a clean exit on the stop reads as the stop's signal
    guard = _guard_over(guards, f"trap '{trap}' TERM; sleep 300 & wait")

    os.kill(guard.pid, signal.SIGTERM)

    assert guard.wait(timeout=_WAIT_SECONDS) == ended


# The guard as a runner started with the stop signals blocked starts it: exec keeps the mask.
_BLOCKED = """
import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


def _blocked_signals(pid: int) -> int:
    status = Path("/proc", str(pid), "status").read_text(encoding="ascii")
    (line,) = [line for line in status.splitlines() if line.startswith("SigBlk:")]
    return int(line.split()[1], 16)


def test_a_guard_started_with_the_stop_signals_blocked_still_stops_its_group(
    guards: list[subprocess.Popen[bytes]],
) -> None:
    # before, the guard kept them blocked and gave the command the same mask: the parent-death
    # SIGTERM of a runner killed with -9 stayed pending, and the step ran on without it
    blocked = [sys.executable, "-I", "-S", "-c", _BLOCKED, "-I", "-S", _GUARD]
    guard = _started(guards, blocked, "sleep 300 & wait", subprocess.DEVNULL)
    _wait_for("the sleep in the guard's group", lambda: _sleeping(guard))
    stops = sum(1 << (number - 1) for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP))
    for pid in (guard.pid, *_group(guard.pid)):
        assert _blocked_signals(pid) & stops == 0, command_line(pid)

    os.kill(guard.pid, signal.SIGTERM)

    assert guard.wait(timeout=_WAIT_SECONDS) == -signal.SIGTERM
    _wait_for("its group gone", lambda: not _group(guard.pid))
