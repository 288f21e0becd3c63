"""Abort and the error handler reach inside the running steps, and the sweep finishes the job.

The whole application on both stores (`inline_container`); the children are real local
processes stopped by the real LocalProcessController, plus types wfx cannot stop.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers

from adapters.local.processes import LocalProcessController
from adapters.local.supervisor import RunFolder, this_process
from adapters.sub_process_dispatch import DispatchingSubProcessController
from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.handle_execution_error import HandleExecutionErrorCommand
from application.use_cases.sweep_aborts import SweepAbortsCommand
from domain.execution import PipelineExecution
from domain.logs import RegisteredSubExecution
from domain.statuses import ExecutionStatus, StepStatus
from domain.sub_processes import StopAttempt, StopOutcome, SubExecutionStop
from tests.contract.builders import (
    a_launch,
    registered_on_step,
    step_id,
    stops_recorded_on_step,
    write_launch,
)

# Ignores the first SIGTERM (a slow shutdown), ends on the second.
STUBBORN = (
    "import signal, sys, time\n"
    "seen = []\n"
    "def on_term(*_):\n"
    "    seen.append(1)\n"
    "    if len(seen) > 1: sys.exit(0)\n"
    "signal.signal(signal.SIGTERM, on_term)\n"
    "print('ready', flush=True)\n"
    "while True: time.sleep(0.05)\n"
)


# Ignores SIGTERM; on it, writes which of the pids in argv[2]'s file are alive (not zombies).
SIBLING_WATCHER = (
    "import signal, sys, time\n"
    "def alive(pid):\n"
    "    try:\n"
    "        with open(f'/proc/{pid}/stat') as stat: state = stat.read().rsplit(') ', 1)[1][0]\n"
    "        return state not in 'ZX'\n"
    "    except OSError: return False\n"
    "def on_term(*_):\n"
    "    with open(sys.argv[2]) as listed: pids = listed.read().split()\n"
    "    with open(sys.argv[1], 'w') as out: out.write(' '.join(p for p in pids if alive(p)))\n"
    "signal.signal(signal.SIGTERM, on_term)\n"
    "print('ready', flush=True)\n"
    "while True: time.sleep(0.05)\n"
)


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


@pytest.fixture
def app(inline_container: Any) -> Any:
    runs = Path(inline_container.config.home()) / "runs"
    controller = DispatchingSubProcessController(
        {"localProcess": lambda: LocalProcessController(runs, grace_seconds=0.3)}
    )
    inline_container.sub_process_controller.override(providers.Object(controller))
    return inline_container


def sleeper(children: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(["sleep", "60"])
    children.append(process)
    return process


def stubborn(children: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    children.append(process)
    assert process.stdout is not None and process.stdout.readline().strip() == b"ready"
    return process


def local(process: subprocess.Popen[bytes]) -> RegisteredSubExecution:
    return RegisteredSubExecution.of_resource(
        resource_type="localProcess", resource_id=str(process.pid)
    )


UNKNOWN = RegisteredSubExecution.of_resource(resource_type="kubernetesJob", resource_id="pod-7")


def a_running_run(
    app: Any,
    execution_id: str,
    subs: tuple[RegisteredSubExecution, ...],
    status: ExecutionStatus = ExecutionStatus.RUNNING,
    started: timedelta = timedelta(minutes=5),
) -> str:
    """Step 0 RUNNING with `subs` registered on it, the run started `started` ago and no lease
    taken (lost to a read once a lease's length has passed); returns the step id."""
    now = datetime.now(UTC)
    records = a_launch(execution_id, start=now - started)
    running = records.steps[0].model_copy(
        update={"status": StepStatus.RUNNING, "start_date": now - started}
    )
    execution = records.execution.model_copy(update={"status": status})
    store = app.execution_store()
    write_launch(
        store,
        records.model_copy(update={"execution": execution, "steps": (running, *records.steps[1:])}),
    )
    sid = step_id(execution_id, 0)
    registered_on_step(store, execution_id, sid, subs)
    # as a local runner does: this process runs the run, so the children it started are its own
    RunFolder(Path(app.config.home()) / "runs" / execution_id).write_runner(this_process("inline"))
    return sid


def stored_step(app: Any, sid: str) -> PipelineExecution:
    step: PipelineExecution = app.execution_store().get_step(sid)
    return step


def outcomes(step: PipelineExecution) -> dict[str, tuple[StopOutcome, int]]:
    return {stop.resource_id: (stop.outcome, stop.tries) for stop in step.sub_execution_stops}


def test_an_abort_stops_the_children_records_each_and_warns_about_the_unknown_one(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    child = sleeper(children)
    sid = a_running_run(app, "run-1", (local(child), UNKNOWN))

    result = app.abort_execution().execute(AbortExecutionCommand(workflow_execution_id="run-1"))

    assert result.execution.status is ExecutionStatus.ABORTED
    assert child.wait(timeout=5) < 0  # ended by a signal
    assert result.warnings == (
        "step pipe0: kubernetesJob pod-7 was left running: wfx cannot stop kubernetesJob",
    )
    step = stored_step(app, sid)
    assert outcomes(step) == {
        str(child.pid): (StopOutcome.STOPPED, 1),
        "pod-7": (StopOutcome.UNSUPPORTED, 1),
    }
    assert step.status is StepStatus.ABORTED
    assert step.registered_sub_executions == (local(child), UNKNOWN)


def test_an_abort_stops_a_steps_children_at_once(
    app: Any, children: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    """Three children that outlive SIGTERM (killed after a 2 s grace, long enough for a slow
    machine to run their handlers): each, when its SIGTERM comes, finds the other two still
    alive. Stopped one after another, the second's SIGTERM would come after the first was
    killed."""
    runs = Path(app.config.home()) / "runs"
    controller = DispatchingSubProcessController(
        {"localProcess": lambda: LocalProcessController(runs, grace_seconds=2)}
    )
    app.sub_process_controller.override(providers.Object(controller))
    listed = tmp_path / "pids"
    for n in range(3):
        process = subprocess.Popen(
            [sys.executable, "-c", SIBLING_WATCHER, str(tmp_path / f"seen-{n}"), str(listed)],
            stdout=subprocess.PIPE,
        )
        children.append(process)
        assert process.stdout is not None and process.stdout.readline().strip() == b"ready"
    pids = [str(process.pid) for process in children]
    listed.write_text(" ".join(pids))
    sid = a_running_run(app, "run-6", tuple(local(process) for process in children))

    result = app.abort_execution().execute(AbortExecutionCommand(workflow_execution_id="run-6"))

    assert result.execution.status is ExecutionStatus.ABORTED
    assert [process.wait(timeout=5) for process in children] == [-signal.SIGKILL] * 3
    for n in range(3):
        assert (tmp_path / f"seen-{n}").read_text().split() == pids
    assert list(outcomes(stored_step(app, sid))) == pids  # recorded in the registration's order


def test_an_abort_of_a_finished_run_stops_and_records_nothing(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    child = sleeper(children)
    sid = a_running_run(app, "run-2", (local(child),), status=ExecutionStatus.SUCCEEDED)

    result = app.abort_execution().execute(AbortExecutionCommand(workflow_execution_id="run-2"))

    assert result.execution.status is ExecutionStatus.SUCCEEDED and result.warnings == ()
    assert child.poll() is None  # still running: no controller was asked
    assert stored_step(app, sid).sub_execution_stops == ()


def test_one_child_that_cannot_be_stopped_neither_blocks_the_others_nor_the_abort(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    child = sleeper(children)
    bad = RegisteredSubExecution.of_resource(resource_type="localProcess", resource_id="1")
    sid = a_running_run(app, "run-3", (bad, local(child)))

    result = app.abort_execution().execute(AbortExecutionCommand(workflow_execution_id="run-3"))

    assert result.execution.status is ExecutionStatus.ABORTED
    assert child.wait(timeout=5) < 0
    assert result.warnings == (
        "step pipe0: localProcess 1 was left running: could not stop it: refused to signal pid 1",
    )
    assert outcomes(stored_step(app, sid)) == {
        "1": (StopOutcome.COULD_NOT_STOP, 1),
        str(child.pid): (StopOutcome.STOPPED, 1),
    }


def test_the_error_handler_stops_and_records_the_children_of_a_failed_run(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    child = sleeper(children)
    sid = a_running_run(app, "run-4", (local(child),))

    result = app.handle_execution_error().execute(
        HandleExecutionErrorCommand(workflow_execution_id="run-4", error="States.TaskFailed")
    )

    assert result.status is ExecutionStatus.FAILED and result.warnings == ()
    assert child.wait(timeout=5) < 0
    assert outcomes(stored_step(app, sid)) == {str(child.pid): (StopOutcome.STOPPED, 1)}


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace_period(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    child = stubborn(children)
    sid = a_running_run(app, "run-5", (local(child),))

    result = app.abort_execution().execute(AbortExecutionCommand(workflow_execution_id="run-5"))

    assert result.warnings == ()
    assert child.wait(timeout=5) == -signal.SIGKILL
    assert outcomes(stored_step(app, sid)) == {str(child.pid): (StopOutcome.STOPPED, 1)}


def requested_before(app: Any, sid: str, child: RegisteredSubExecution) -> None:
    """An earlier abort only got as far as asking (its grace ran out before it could look)."""
    asked = SubExecutionStop.of(
        child,
        StopAttempt(outcome=StopOutcome.STOP_REQUESTED, detail="SIGTERM sent"),
        at=datetime.now(UTC),
        tries=1,
    )
    stops_recorded_on_step(app.execution_store(), sid.rsplit("-step", 1)[0], sid, (asked,))


def test_the_sweep_stops_again_a_child_whose_first_stop_was_only_requested(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    child = sleeper(children)
    sid = a_running_run(app, "run-6", (UNKNOWN,))
    app.abort_execution().execute(AbortExecutionCommand(workflow_execution_id="run-6"))
    requested_before(app, sid, local(child))

    swept = app.sweep_aborts().execute(SweepAbortsCommand(since=timedelta(hours=1)))

    assert child.wait(timeout=5) == -signal.SIGTERM
    assert swept.runs_checked == 1 and swept.remaining == 0
    assert [(c.resource_id, c.previous_outcome, c.outcome, c.tries) for c in swept.children] == [
        (str(child.pid), StopOutcome.STOP_REQUESTED, StopOutcome.STOPPED, 2)
    ]
    again = app.sweep_aborts().execute(SweepAbortsCommand(since=timedelta(hours=1)))
    assert again.children == () and again.remaining == 0
    assert outcomes(stored_step(app, sid))[str(child.pid)] == (StopOutcome.STOPPED, 2)


def test_the_sweep_reports_a_child_still_running_and_skips_runs_outside_the_window(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    """A registration of a process that is not the step's is refused at every try: it is left
    running, reported, and asked about again by the next sweep."""
    started = subprocess.run(
        ["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"],
        capture_output=True,
        text=True,
        check=True,
        start_new_session=True,
    )
    pid = int(started.stdout)
    stranger = RegisteredSubExecution.of_resource(
        resource_type="localProcess", resource_id=str(pid)
    )
    try:
        sid = a_running_run(app, "run-7", (stranger,))
        aborted = app.abort_execution().execute(
            AbortExecutionCommand(workflow_execution_id="run-7")
        )

        swept = app.sweep_aborts().execute(SweepAbortsCommand(since=timedelta(hours=1)))
        outside = app.sweep_aborts().execute(
            SweepAbortsCommand(since=timedelta(seconds=1), longest_run=timedelta(0))
        )

        assert "is not a process of step pipe0" in aborted.warnings[0]
        assert swept.remaining == 1
        assert outcomes(stored_step(app, sid))[str(pid)] == (StopOutcome.COULD_NOT_STOP, 2)
        assert outside.runs_checked == 0 and outside.children == ()
        os.kill(pid, 0)  # left alone: still there
    finally:
        os.kill(pid, signal.SIGKILL)


def test_the_sweep_reads_as_every_read_does_and_ends_a_run_whose_runner_was_lost(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    """Started five minutes ago, open, and no runner ever took its lease: lost. The sweep ends
    it FAILED (wfx.RunnerLost) and then stops what its step had registered."""
    child = sleeper(children)
    sid = a_running_run(app, "run-8", (local(child),))

    swept = app.sweep_aborts().execute(SweepAbortsCommand(since=timedelta(hours=1)))

    execution = app.execution_store().get_execution("run-8")
    assert execution.status is ExecutionStatus.FAILED
    assert (execution.execution_error or "").startswith("wfx.RunnerLost: no local runner took")
    assert stored_step(app, sid).status is StepStatus.FAILED
    assert child.wait(timeout=5) < 0  # stopped as the run was found lost
    assert outcomes(stored_step(app, sid)) == {str(child.pid): (StopOutcome.STOPPED, 1)}
    assert swept.runs_checked == 1 and swept.remaining == 0


def test_a_read_the_runner_describes_lost_stops_what_the_step_registered(
    app: Any, children: list[subprocess.Popen[bytes]]
) -> None:
    """Started a second ago, no lease taken yet (the lease's 30 s have not passed), and the
    runner recorded as this very process has no thread for it: the read past the interval asks
    the local runner, which describes it FAILED wfx.RunnerLost. That end, as the lease's, stops
    what its running step registered (the other path of a lost runner, not only the lease's)."""
    child = sleeper(children)
    sid = a_running_run(app, "run-9", (local(child),), started=timedelta(seconds=1))

    read = app.get_execution().execute(GetExecutionQuery(workflow_execution_id="run-9"))

    assert read.status is ExecutionStatus.FAILED
    assert (read.execution_error or "").startswith("wfx.RunnerLost: the local runner (wfx, pid")
    assert stored_step(app, sid).status is StepStatus.FAILED
    assert outcomes(stored_step(app, sid)) == {str(child.pid): (StopOutcome.STOPPED, 1)}
    assert child.wait(timeout=5) < 0  # stopped as the run was found lost
