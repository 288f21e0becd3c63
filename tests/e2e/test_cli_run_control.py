"""Ctrl-C, SIGTERM and `kill -9` of a local run, as they happen to users (issue 8).

One workflow, two shell steps. The first, on its first attempt, starts `sleep 300 &`, registers
it as a `localProcess` and waits for it; on a later attempt it ends at once. The second writes
an output file. Every invocation of either appends `<step> start|end <pid> <epoch seconds>` to
a trace file outside WFX_HOME, one O_APPEND write a line.

Each test stops the run one way - Ctrl-C to the foreground `wfx run`'s process group, SIGTERM
to it alone, `kill -9` of it, `kill -9` of a detached worker - and then checks what a user
would: how the run ended, that no process of it is left (by /proc: every step process has
WFX_EXECUTION_ID in its environment, a worker the id on its command line), that a redrive
succeeds, and, from the trace, that two copies of the first step never ran at the same time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.local.supervisor import RunFolder
from tests.e2e.cli import GUID, Outcome, Wfx
from tests.e2e.run_processes import (
    command_line,
    kill_what_is_left,
    wait_until_nothing_is_left,
)

pytestmark = pytest.mark.integration

Starter = Callable[["Stage"], subprocess.Popen[str]]

FIRST = (
    "trace=$1 marker=$2 python=$3\n"
    'printf "first start %s %s\\n" "$$" "$(date +%s.%N)" >> "$trace"\n'
    'if mkdir "$marker" 2>/dev/null; then\n'
    "    sleep 300 &\n"
    "    child=$!\n"
    '    "$python" -m entrypoints.cli.main pipelines register \\\n'
    '        --sub-execution-type localProcess --sub-execution-id "$child" > /dev/null \\\n'
    '        || { kill "$child"; exit 3; }\n'
    '    wait "$child"\n'
    "fi\n"
    'printf "first end %s %s\\n" "$$" "$(date +%s.%N)" >> "$trace"\n'
)
SECOND = (
    "trace=$1\n"
    'printf "second start %s %s\\n" "$$" "$(date +%s.%N)" >> "$trace"\n'
    'echo "made by $WFX_PIPELINE_EXECUTION_ID" > "$WFX_OUTPUT_DIR/result.txt"\n'
    'printf "second end %s %s\\n" "$$" "$(date +%s.%N)" >> "$trace"\n'
)


@dataclass(frozen=True)
class Stage:
    """The workflow's home, and the files beside it that its steps write."""

    wfx: Wfx
    trace: Path


@pytest.fixture
def stage(wfx: Wfx, tmp_path: Path) -> Stage:
    return signals_stage(wfx, tmp_path)


def signals_stage(wfx: Wfx, tmp_path: Path) -> Stage:
    """demo/signals published in a home whose runner stops a step within one second."""
    # its first step registers the child it starts: it writes to the store itself
    quick = wfx.with_environment(WFX_STOP_GRACE_SECONDS="1").passing_store_to_steps()
    trace, marker = tmp_path / "trace.log", tmp_path / "first-attempt-made"
    first = ["/bin/sh", "-c", FIRST, "first", str(trace), str(marker), sys.executable]
    document = {
        "databaseId": "demo",
        "workflowId": "signals",
        "steps": [
            {
                "pipelineId": "first",
                "executionType": "command",
                "command": first,
                "inputFileArity": "none",
            },
            {
                "pipelineId": "second",
                "executionType": "command",
                "command": ["/bin/sh", "-c", SECOND, "second", str(trace)],
                "inputFileArity": "none",
            },
        ],
    }
    path = quick.home / "signals.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    quick.ok("workflows", "publish", str(path))
    return Stage(quick, trace)


@pytest.fixture(autouse=True)
def _nothing_outlives_the_test(wfx: Wfx) -> Iterator[None]:
    yield
    kill_what_is_left(wfx.home)


@pytest.fixture
def foreground() -> Iterator[Starter]:
    """Starts `wfx run demo/signals` in a session of its own, as a terminal starts it."""
    started: list[subprocess.Popen[str]] = []

    def start(stage: Stage) -> subprocess.Popen[str]:
        started.append(stage.wfx.start("run", "demo/signals", new_session=True))
        return started[-1]

    yield start
    for process in started:
        if process.poll() is None:  # the test failed before it signalled it
            process.kill()
        process.communicate()


# --- the four ways a run is stopped ---------------------------------------------------------------


def test_ctrl_c_of_a_foreground_run_aborts_it_and_a_redrive_finishes_it(
    stage: Stage, foreground: Starter
) -> None:
    run = foreground(stage)
    execution_id, sleeper = _wait_for_the_registered_child(stage.wfx)

    os.killpg(run.pid, signal.SIGINT)  # what the terminal does on Ctrl-C

    _assert_aborted_by(run, "SIGINT", 130, execution_id)
    gone_at = wait_until_nothing_is_left(execution_id, {"the registered sleep": sleeper})
    _assert_ended(stage.wfx, execution_id, "ABORTED", "wfx.Aborted")
    _assert_a_redrive_succeeds_one_copy_at_a_time(stage, execution_id, gone_at)


def test_sigterm_to_a_foreground_run_aborts_it_and_a_redrive_finishes_it(
    stage: Stage, foreground: Starter
) -> None:
    run = foreground(stage)
    execution_id, sleeper = _wait_for_the_registered_child(stage.wfx)

    run.send_signal(signal.SIGTERM)  # to `wfx run` alone, as `kill PID` does

    _assert_aborted_by(run, "SIGTERM", 143, execution_id)
    gone_at = wait_until_nothing_is_left(execution_id, {"the registered sleep": sleeper})
    _assert_ended(stage.wfx, execution_id, "ABORTED", "wfx.Aborted")
    _assert_a_redrive_succeeds_one_copy_at_a_time(stage, execution_id, gone_at)


def test_kill_9_of_a_foreground_run_stops_its_step_and_the_run_ends_runner_lost(
    stage: Stage, foreground: Starter
) -> None:
    """The first read after the runner is gone finds it so (its record and /proc), with the
    lease (30 s) and the interval between checks (30 s) far from over."""
    run = foreground(stage)
    execution_id, sleeper = _wait_for_the_registered_child(stage.wfx)

    run.kill()
    _, stderr = run.communicate(timeout=5)

    assert run.returncode == -signal.SIGKILL
    _assert_no_traceback("wfx run", stderr)
    _assert_ended(stage.wfx, execution_id, "FAILED", "wfx.RunnerLost: the local runner (wfx in")
    _assert_summaries_of_the_lost_run(stage.wfx, execution_id)
    # nothing wrote an abort: the step's guard saw its parent die and stopped its group
    gone_at = wait_until_nothing_is_left(execution_id, {"the registered sleep": sleeper})
    _assert_a_redrive_succeeds_one_copy_at_a_time(stage, execution_id, gone_at)


def test_kill_9_of_a_detached_worker_stops_its_step_and_the_run_ends_runner_lost(
    stage: Stage,
) -> None:
    execution_id, gone_at = kill_9_of_a_detached_worker(stage.wfx)
    _assert_a_redrive_succeeds_one_copy_at_a_time(stage, execution_id, gone_at)


def kill_9_of_a_detached_worker(wfx: Wfx) -> tuple[str, float]:
    """`wfx run --no-wait` of demo/signals, its worker killed with -9 once its step runs: the
    first read after the worker is gone ends the run (also on DynamoDB, by
    test_cli_runner_lost_on_moto_server). The run's id, and when nothing of it was left."""
    launched = wfx("run", "demo/signals", "--no-wait")
    assert launched.code == 0 and GUID.match(launched.stdout.strip()), str(launched)
    execution_id = launched.stdout.strip()
    _, sleeper = _wait_for_the_registered_child(wfx)
    worker = RunFolder(wfx.home / "runs" / execution_id).runner()
    assert worker is not None and worker.mode == "detached", worker
    assert "internal-run-worker" in command_line(worker.pid), command_line(worker.pid)

    os.kill(worker.pid, signal.SIGKILL)

    gone_at = wait_until_nothing_is_left(
        execution_id, {"the registered sleep": sleeper, "the killed worker": worker.pid}
    )
    _assert_no_traceback("the worker", _runner_log(wfx, execution_id))
    # the lease (30 s) and the interval (30 s) far from over: the worker's record tells
    _assert_ended(wfx, execution_id, "FAILED", "wfx.RunnerLost: the local runner (worker, pid")
    _assert_summaries_of_the_lost_run(wfx, execution_id)
    return execution_id, gone_at


# --- what each test checks ------------------------------------------------------------------------


def _wait_for_the_registered_child(wfx: Wfx, seconds: float = 60) -> tuple[str, int]:
    """The run's id once its first step is RUNNING with its `sleep` registered, and that pid
    (the home holds this one run)."""
    deadline = time.monotonic() + seconds
    while not (listed := wfx.listed_ids()):
        assert time.monotonic() < deadline, "the run was never launched"
        time.sleep(0.1)
    (execution_id,) = listed
    details = wfx.wait_until(execution_id, lambda d: _sleeper(d) is not None, seconds=seconds)
    sleeper = _sleeper(details)
    assert sleeper is not None, (details["executionStatus"], _steps(details)[0])
    return execution_id, sleeper


def _sleeper(details: dict[str, Any]) -> int | None:
    first = _steps(details)[0]
    if first["executionStatus"] != "RUNNING":
        return None
    pids = [
        int(sub["resourceName"])
        for sub in first["registeredSubExecutions"]
        if sub["resourceType"] == "localProcess"
    ]
    return pids[0] if pids else None


def _assert_aborted_by(
    process: subprocess.Popen[str], name: str, code: int, execution_id: str
) -> None:
    stdout, stderr = process.communicate(timeout=20)
    assert process.returncode == code, f"exit {process.returncode}\n{stdout}\n{stderr}"
    assert stdout == f"{execution_id}\n", stdout
    assert f"{name}: execution {execution_id} ABORTED" in stderr.splitlines(), stderr
    _assert_no_traceback("wfx run", stderr)


def _assert_ended(wfx: Wfx, execution_id: str, status: str, error: str) -> None:
    """The run and its first step ended `status`, the step's error starting with `error`, and
    the run's too but for an abort (seed 000: no executionError for it); the second step never
    started. Read once: its runner has ended it (an abort), or has gone (a kill -9), which the
    first read after finds out."""
    details = wfx.json("executions", "show", execution_id)
    assert details["executionStatus"] == status, details
    if status == "ABORTED":
        assert details["executionError"] == "", details
    else:
        assert details["executionError"].startswith(error), details
    first, second = _steps(details)
    assert first["executionStatus"] == status, first
    assert first["errorMessage"].startswith(error), first
    assert second["executionStartDate"] == "", second


def _assert_summaries_of_the_lost_run(wfx: Wfx, execution_id: str) -> None:
    """The lost runner's end (the read's) wrote the steps' summary logs in its one write, as
    every run's end does: each step's, saying the status the end left it in; nobody else writes
    them (the runner is gone)."""
    details = wfx.json("executions", "show", execution_id)
    steps = _steps(details)
    said = [[log["status"] for log in step["logs"]] for step in steps]
    assert said == [[step["executionStatus"]] for step in steps], said
    assert said[0] == ["FAILED"], said


def _assert_a_redrive_succeeds_one_copy_at_a_time(
    stage: Stage, execution_id: str, gone_at: float
) -> None:
    redriven = stage.wfx("executions", "redrive", execution_id)

    assert redriven.code == 0, str(redriven)
    assert redriven.stdout == f"{execution_id}\n", str(redriven)
    _assert_no_traceback("wfx executions redrive", redriven)
    details = stage.wfx.json("executions", "show", execution_id)
    assert details["executionStatus"] == "SUCCEEDED", details
    assert [step["executionStatus"] for step in _steps(details)] == ["SUCCEEDED", "SUCCEEDED"]
    outputs = {f["relativeFilePath"] for f in details["outputs"]["files"]}
    assert "result.txt" in outputs, outputs
    wait_until_nothing_is_left(execution_id)
    _assert_one_copy_at_a_time(stage.trace.read_text(encoding="utf-8"), gone_at)


def _assert_one_copy_at_a_time(trace: str, gone_at: float) -> None:
    """The first step ran twice, the second once, each invocation after the one before ended.
    An invocation without an `end` was killed (an abort that stops the registered `sleep`
    first lets the shell write its `end`): it had ended by `gone_at`, when /proc showed nothing
    of the run, so that is when its interval ends."""
    starts: dict[str, tuple[str, float]] = {}
    ends: dict[str, float] = {}
    for line in trace.splitlines():
        step, event, pid, at = line.split()
        if event == "start":
            starts[pid] = (step, float(at))
        else:
            ends[pid] = float(at)
    for pid, (step, started) in starts.items():
        assert pid in ends or started < gone_at, f"{step} (pid {pid}) never ended:\n{trace}"
    invocations = sorted(
        (started, ends.get(pid, gone_at), step) for pid, (step, started) in starts.items()
    )
    assert [step for _, _, step in invocations] == ["first", "first", "second"], trace
    for (_, ended, _), (started, _, step) in pairwise(invocations):
        assert ended <= started, f"{step} started before the invocation before it ended:\n{trace}"


# --- helpers --------------------------------------------------------------------------------------


def _steps(details: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(details["pipelines"], key=lambda row: int(row["stepIndex"]))


def _runner_log(wfx: Wfx, execution_id: str) -> str:
    path = wfx.home / "runs" / execution_id / "runner.log"
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def _assert_no_traceback(what: str, said: str | Outcome) -> None:
    text = said.stderr if isinstance(said, Outcome) else said
    assert "Traceback" not in text, f"{what} printed a traceback:\n{text}"
