"""`wfx executions logs ID --follow` on a real detached run: lines while the run goes on, an exit
when it ends, and a quiet exit 130 on Ctrl-C."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time

from tests.e2e.cli import TERMINAL, Wfx, assert_bad_input

# Three numbered lines, then three more once the test has made the file GO (so the run is still
# going when the follow shows the first ones, however slow a loaded machine is).
_SLOW_PRINTER = (
    "import os, time\n"
    "deadline = time.time() + 60  # a failed test never makes GO: the step ends anyway\n"
    "for number in range(6):\n"
    "    if number == 3:\n"
    "        while not os.path.exists({go!r}) and time.time() < deadline:\n"
    "            time.sleep(0.05)\n"
    "    print(f'tick {{number}}', flush=True)\n"
    "    time.sleep(0.2)\n"
)


def _lines_as_they_come(process: subprocess.Popen[str]) -> queue.Queue[tuple[float, str]]:
    """Each stdout line with the moment it was read; an empty line once stdout closed."""
    arrived: queue.Queue[tuple[float, str]] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            arrived.put((time.monotonic(), line.rstrip("\n")))
        arrived.put((time.monotonic(), ""))

    threading.Thread(target=pump, daemon=True).start()
    return arrived


def _status(wfx: Wfx, execution_id: str) -> str:
    return str(wfx.json("executions", "show", execution_id)["executionStatus"])


def test_follow_prints_lines_while_the_run_goes_on_and_exits_when_it_ends(wfx: Wfx) -> None:
    go = wfx.home / "GO"
    wfx.publish_command_step("ticking", _SLOW_PRINTER.format(go=str(go)))
    execution_id = wfx.run_id("demo/ticking", "--no-wait")
    follower = wfx.start("executions", "logs", execution_id, "--follow")
    arrived = _lines_as_they_come(follower)

    try:
        first_tick = ""
        while "tick" not in first_tick:
            _, first_tick = arrived.get(timeout=30)
            assert first_tick or follower.poll() is None, "stdout closed before any tick"
        status_at_first_tick = _status(wfx, execution_id)
        go.touch()
        code = follower.wait(timeout=60)
    finally:
        if follower.poll() is None:
            follower.kill()
    rest = []
    while not arrived.empty():
        rest.append(arrived.get()[1])

    assert status_at_first_tick not in TERMINAL
    assert code == 0, follower.stderr.read() if follower.stderr else ""
    printed = [first_tick, *rest]
    assert [line for line in printed if line.startswith("tick")] == [f"tick {n}" for n in range(6)]
    assert _status(wfx, execution_id) == "SUCCEEDED"


def test_ctrl_c_ends_a_follow_quietly_with_exit_130(wfx: Wfx) -> None:
    wfx.publish_command_step(
        "sleepy", "import time\nprint('waiting', flush=True)\ntime.sleep(60)\n"
    )
    execution_id = wfx.run_id("demo/sleepy", "--no-wait")
    follower = wfx.start("executions", "logs", execution_id, "--follow", new_session=True)
    arrived = _lines_as_they_come(follower)
    try:
        line = ""
        while line != "waiting":
            _, line = arrived.get(timeout=30)
        os.killpg(follower.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        code = follower.wait(timeout=30)
        stderr = follower.stderr.read() if follower.stderr else ""
    finally:
        if follower.poll() is None:
            follower.kill()
        wfx("executions", "abort", execution_id)

    assert code == 130
    assert "Traceback" not in stderr and stderr.strip() == ""


def test_follow_with_a_next_token_is_refused(wfx: Wfx) -> None:
    wfx.publish_command_step("quick", "print('done')")
    execution_id = wfx.run_id("demo/quick")

    outcome = wfx(
        "executions",
        "logs",
        execution_id,
        "--follow",
        "--log-id",
        "0123456789abcdef",
        "--next-token",
        "5",
    )

    assert_bad_input(outcome, "--next-token", "--follow")
