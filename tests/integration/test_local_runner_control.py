"""The local runner's side of the Orchestrator port beyond start: describe, stop, redrive and
history, on the same real parts as test_local_runner (a SQLite file, the filesystem stores, real
threads, worker processes and command steps)."""

from __future__ import annotations

import os
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from adapters.local.processes_on_host import HOST
from adapters.local.supervisor import RunFolder
from application.ports.orchestration import Stopped
from domain.errors import RUNNER_LOST_ERROR, ConflictError
from domain.execution import WorkflowExecution
from domain.redrive import local_history_event_count
from domain.run import Run, RunChange, RunGuard
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import step_row_saved, write_change
from tests.integration.test_local_runner import Harness, build_harness, workflow
from tests.step_documents import python_step as shared_python_step

THIS_MODULE = __name__

pytestmark = pytest.mark.integration


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    built, database = build_harness(tmp_path)
    yield built
    gate.set()  # never leave a step waiting
    for runner in built.runners:
        for execution_id in list(runner._threads) + list(runner._processes):
            runner.stop_execution(built.store.get_execution(execution_id), "test", "teardown")
            runner.join(execution_id, timeout=30)
    database.close()


python_step = partial(shared_python_step, THIS_MODULE)  # the steps below, by this module's name


def command_step(pipeline_id: str, script: str) -> dict[str, Any]:
    return {
        "pipelineId": pipeline_id,
        "executionType": "command",
        "command": ["{python}", "-c", textwrap.dedent(script)],
        "inputFileArity": "none",
    }


def wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def _process_gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "State:\tZ" in status  # a zombie has ended; only its exit status is left


# --- python steps used by the tests ----------------------------------------------------------

calls: list[str] = []
entered = threading.Event()
gate = threading.Event()
fail_next = threading.Event()


def first(**_: Any) -> None:
    calls.append("first")


def wait_at_the_gate(**_: Any) -> None:
    calls.append("gate")
    entered.set()
    assert gate.wait(30)


def flaky(**_: Any) -> None:
    calls.append("flaky")
    if fail_next.is_set():
        fail_next.clear()
        raise RuntimeError("flaky failed")


def last(**_: Any) -> None:
    calls.append("last")


@pytest.fixture(autouse=True)
def _fresh_state() -> None:
    calls.clear()
    entered.clear()
    gate.clear()
    fail_next.clear()


# A python step in a thread cannot be stopped: stop and redrive wait the grace and a watch
# interval for its thread before they go on, and the tests open the gate only after. A detached
# worker that lingers is waited for as long when the harness stops it at teardown.
SHORT_GRACE = 0.2


def runner_pid(harness: Harness, execution_id: str) -> int:
    record = RunFolder(harness.root / "work" / "runs" / execution_id).runner()
    assert record is not None
    return record.pid


def _stored(harness: Harness, execution_id: str) -> WorkflowExecution:
    return harness.store.get_execution(execution_id)


# --- describe --------------------------------------------------------------------------------


def test_a_live_thread_run_is_running_and_a_finished_one_is_left_to_the_stored_row(
    harness: Harness,
) -> None:
    version = harness.publish(workflow("gated", python_step("gate", "wait_at_the_gate")))
    harness.launch("exec-live", version)
    runner = harness.runner(mode="thread")
    runner.start("exec-live")
    assert entered.wait(20)

    running = runner.describe_execution(_stored(harness, "exec-live"))
    gate.set()
    assert runner.join("exec-live", timeout=20)
    finished = runner.describe_execution(_stored(harness, "exec-live"))

    assert running is not None and running.status is ExecutionStatus.RUNNING
    assert finished is None
    assert harness.status_of("exec-live") is ExecutionStatus.SUCCEEDED


def test_a_run_this_runner_never_started_is_described_as_none(harness: Harness) -> None:
    version = harness.publish(workflow("idle", python_step("first", "first")))
    harness.launch("exec-idle", version)

    assert harness.runner(mode="thread").describe_execution(_stored(harness, "exec-idle")) is None


def test_a_worker_that_exited_without_recording_the_end_makes_the_run_failed(
    harness: Harness,
) -> None:
    version = harness.publish(workflow("crash", python_step("first", "first")))
    harness.launch("exec-crash", version)
    crashing = [sys.executable, "-c", "import sys; sys.exit(3)"]  # a worker that dies at once
    runner = harness.runner(mode="detached", detached_command=crashing)
    runner.start("exec-crash")
    assert runner.join("exec-crash", timeout=20)

    described = runner.describe_execution(_stored(harness, "exec-crash"))

    assert described is not None
    assert (described.status, described.error, described.cause) == (
        ExecutionStatus.FAILED,
        RUNNER_LOST_ERROR,
        f"the local runner (worker, pid {runner_pid(harness, 'exec-crash')}) ended with exit "
        "code 3 before the run did",
    )
    assert harness.status_of("exec-crash") is ExecutionStatus.RUNNING  # the runner writes nothing


def test_another_process_finds_a_detached_worker_through_its_pid_file(harness: Harness) -> None:
    version = harness.publish(workflow("far", python_step("first", "first")))
    harness.launch("exec-far", version)
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    launcher = harness.runner(mode="detached", detached_command=sleeper)
    launcher.start("exec-far")
    elsewhere = harness.runner(mode="detached", detached_command=sleeper)  # as `wfx executions`

    while_alive = elsewhere.describe_execution(_stored(harness, "exec-far"))
    os.kill(launcher._processes["exec-far"].pid, 9)
    assert launcher.join("exec-far", timeout=20)
    after_exit = elsewhere.describe_execution(_stored(harness, "exec-far"))

    assert while_alive is not None and while_alive.status is ExecutionStatus.RUNNING
    assert after_exit is not None
    assert (after_exit.status, after_exit.error, after_exit.cause) == (
        ExecutionStatus.FAILED,
        RUNNER_LOST_ERROR,
        f"the local runner (worker, pid {runner_pid(harness, 'exec-far')}) ended before the "
        "run did",
    )


def test_a_worker_that_recorded_the_end_of_its_run_is_left_to_the_stored_row(
    harness: Harness,
) -> None:
    version = harness.publish(workflow("done", python_step("first", "first")))
    harness.launch("exec-done", version)
    runner = harness.runner(mode="detached", detached_command=[sys.executable, "-c", "pass"])
    runner.start("exec-done")
    assert runner.join("exec-done", timeout=20)
    harness.reporter.execution_completed("exec-done", ExecutionStatus.SUCCEEDED)

    assert runner.describe_execution(_stored(harness, "exec-done")) is None


def _leased_to(harness: Harness, execution_id: str, pid: int) -> WorkflowExecution:
    """The run leased (for 30 s) to a runner of process `pid` on this host."""
    execution = _stored(harness, execution_id)
    owner = f"{HOST}:{pid}:0badcafe"  # as supervisor.lease_owner names it
    change = Run(execution=execution).take_lease(owner, datetime.now(UTC), timedelta(seconds=30))
    assert write_change(harness.store, change) is not None
    return _stored(harness, execution_id)


def test_a_worker_holding_the_lease_is_lost_as_soon_as_its_process_is_gone(
    harness: Harness,
) -> None:
    """What every read asks (lost_runner): the record and /proc, nothing stored is read."""
    version = harness.publish(workflow("held", python_step("first", "first")))
    harness.launch("exec-held", version)
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    launcher = harness.runner(mode="detached", detached_command=sleeper)
    launcher.start("exec-held")
    worker = launcher._processes["exec-held"].pid
    leased = _leased_to(harness, "exec-held", worker)
    elsewhere = harness.runner(mode="detached", detached_command=sleeper)  # as `wfx executions`

    while_alive = elsewhere.lost_runner(leased)
    os.kill(worker, 9)
    assert launcher.join("exec-held", timeout=20)
    after_exit = elsewhere.lost_runner(leased)

    assert while_alive is None
    assert after_exit is not None
    assert (after_exit.status, after_exit.error, after_exit.cause) == (
        ExecutionStatus.FAILED,
        RUNNER_LOST_ERROR,
        f"the local runner (worker, pid {worker}) ended before the run did",
    )
    assert harness.status_of("exec-held") is ExecutionStatus.RUNNING  # the runner writes nothing


def test_a_record_of_a_runner_that_does_not_hold_the_lease_says_nothing(
    harness: Harness,
) -> None:
    """A redrive's or a handover's runner holds the lease before it writes its record: the
    record of the runner before it, gone, is not the lease holder's end, neither to a read
    inside the interval (lost_runner) nor past it (describe_execution, whose lost runner a read
    ends). With no lease taken, the record gone is the run's lost runner."""
    version = harness.publish(workflow("before", python_step("first", "first")))
    harness.launch("exec-before", version)
    runner = harness.runner(mode="detached", detached_command=[sys.executable, "-c", "pass"])
    runner.start("exec-before")
    assert runner.join("exec-before", timeout=20)
    unleased = _stored(harness, "exec-before")
    lost = runner.describe_execution(unleased)  # it reads the stored row: before the lease
    held_by_another = _leased_to(harness, "exec-before", os.getpid())

    assert runner.lost_runner(unleased) is None
    assert runner.lost_runner(held_by_another) is None
    assert lost is not None and lost.error == RUNNER_LOST_ERROR  # no lease: its record tells
    assert runner.describe_execution(held_by_another) is None  # the lease tells, not the record


# --- stop ------------------------------------------------------------------------------------


def test_a_stopped_thread_run_starts_no_further_step_and_ends_aborted(
    harness: Harness,
) -> None:
    version = harness.publish(
        workflow("stop", python_step("gate", "wait_at_the_gate"), python_step("last", "last"))
    )
    step_ids = harness.launch("exec-stop", version)
    runner = harness.runner(mode="thread", grace_seconds=SHORT_GRACE)
    runner.start("exec-stop")
    assert entered.wait(20)

    runner.stop_execution(_stored(harness, "exec-stop"), "wfx.Aborted", "by the test")
    gate.set()

    assert runner.join("exec-stop", timeout=20)
    assert calls == ["gate"]
    assert harness.reporter.calls == [
        ("started", step_ids[0]),
        ("finished", step_ids[0], StepStatus.ABORTED, None),  # it ran while being stopped
        ("completed", ExecutionStatus.ABORTED, None),
    ]
    assert harness.status_of("exec-stop") is ExecutionStatus.ABORTED


def test_stop_kills_the_command_step_running_in_a_thread_run(
    harness: Harness, tmp_path: Path
) -> None:
    started = tmp_path / "command-started"
    script = f"""
        import pathlib, time
        pathlib.Path({str(started)!r}).write_text("yes")
        time.sleep(60)
    """
    version = harness.publish(workflow("kill", command_step("sleep", script)))
    harness.launch("exec-kill", version)
    runner = harness.runner(mode="thread")
    runner.start("exec-kill")
    wait_until(started.exists)

    began = time.monotonic()
    runner.stop_execution(_stored(harness, "exec-kill"), "wfx.Aborted", "by the test")

    assert runner.join("exec-kill", timeout=20)
    assert time.monotonic() - began < 10  # killed, not slept out
    assert [call[0] for call in harness.reporter.calls] == ["started", "finished", "completed"]
    assert harness.status_of("exec-kill") is ExecutionStatus.ABORTED


_WORKER_WITH_A_CHILD = """
import pathlib, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
pathlib.Path(sys.argv[1]).write_text(str(child.pid))
time.sleep(60)
"""


def test_stop_from_another_process_ends_a_detached_worker_and_its_command_steps(
    harness: Harness, tmp_path: Path
) -> None:
    version = harness.publish(workflow("group", python_step("first", "first")))
    harness.launch("exec-group", version)
    child_pid_file = tmp_path / "child.pid"
    worker = [sys.executable, "-c", _WORKER_WITH_A_CHILD, str(child_pid_file)]
    launcher = harness.runner(mode="detached", detached_command=worker)
    launcher.start("exec-group")
    wait_until(lambda: child_pid_file.exists() and child_pid_file.read_text() != "")
    child_pid = int(child_pid_file.read_text())
    # this worker took the run (as a worker does first) and never watches for the abort: it is
    # stopped with its group after the grace
    assert harness.reporter.take_lease("exec-group", "the worker") is not None
    elsewhere = harness.runner(
        mode="detached", detached_command=worker, grace_seconds=0.5, watch_seconds=0.05
    )

    stopped = elsewhere.stop_execution(_stored(harness, "exec-group"), "wfx.Aborted", "by the test")

    # killed, not done of itself: the caller is not told to look for an end it never wrote
    assert not stopped.runner_done
    assert launcher.join("exec-group", timeout=20)
    assert launcher._processes == {}
    wait_until(lambda: _process_gone(child_pid))
    assert harness.status_of("exec-group") is ExecutionStatus.RUNNING


def test_a_detached_worker_that_has_not_taken_its_run_is_stopped_at_once(
    harness: Harness,
) -> None:
    """It starts no step once the abort is recorded, and all it would do is end the run: not
    waited for, though a grace and a watch interval longer than the test's bound allow it."""
    version = harness.publish(workflow("early", python_step("first", "first")))
    harness.launch("exec-early", version)
    starting = [sys.executable, "-c", "import time; time.sleep(600)"]  # a worker still starting
    launcher = harness.runner(mode="detached", detached_command=starting)
    launcher.start("exec-early")
    pid = runner_pid(harness, "exec-early")
    elsewhere = harness.runner(
        mode="detached", detached_command=starting, grace_seconds=600, watch_seconds=600
    )
    stored = _stored(harness, "exec-early")
    assert stored.runner_lease is None
    stop = threading.Thread(
        target=elsewhere.stop_execution, args=(stored, "wfx.Aborted", "by the test"), daemon=True
    )

    stop.start()
    stop.join(60)

    assert not stop.is_alive()  # returned, not waiting out 600 s of grace
    assert launcher.join("exec-early", timeout=20)
    assert _process_gone(pid)
    assert harness.status_of("exec-early") is ExecutionStatus.RUNNING  # the stop writes nothing


def test_stopping_a_run_that_is_not_running_changes_nothing(harness: Harness) -> None:
    version = harness.publish(workflow("idle", python_step("first", "first")))
    harness.launch("exec-idle", version)
    runner = harness.runner()

    stopped = runner.stop_execution(_stored(harness, "exec-idle"), "wfx.Aborted", "nothing to stop")

    assert stopped == Stopped()  # no runner anywhere: nothing left alive, none done
    assert harness.reporter.calls == []
    assert harness.status_of("exec-idle") is ExecutionStatus.RUNNING


# --- redrive ---------------------------------------------------------------------------------


def _reopen(harness: Harness, execution_id: str) -> WorkflowExecution:
    """What RedriveExecution does before it calls the runner: the run is open again."""
    failed = _stored(harness, execution_id)
    change, reset = harness.store.get_run(execution_id).redrive(datetime.now(UTC))
    assert write_change(harness.store, change)
    for step in reset:
        assert step_row_saved(
            harness.store,
            step,
            expected=frozenset({harness.step(step.pipeline_execution_id).status}),
        )
    reopened = _stored(harness, execution_id)
    running = reopened._evolve(status=ExecutionStatus.RUNNING)
    guard = RunGuard(statuses=frozenset({reopened.status}))
    assert write_change(harness.store, RunChange(reopened, running, guard))
    assert failed.is_terminal
    return running


def _flaky_workflow(harness: Harness) -> tuple[Any, list[str]]:
    version = harness.publish(
        workflow(
            "flaky",
            python_step("first", "first"),
            python_step("flaky", "flaky"),
            python_step("last", "last"),
        )
    )
    step_ids = harness.launch("exec-redrive", version)
    fail_next.set()
    return version, step_ids


def test_a_redrive_continues_from_the_failed_step_without_rerunning_the_succeeded_ones(
    harness: Harness,
) -> None:
    _, step_ids = _flaky_workflow(harness)
    runner = harness.runner()
    runner.start("exec-redrive")
    assert harness.status_of("exec-redrive") is ExecutionStatus.FAILED
    harness.reporter.calls.clear()
    before = datetime.now(UTC)

    redriven_at = runner.redrive_execution(_reopen(harness, "exec-redrive"), "token-1")

    assert before <= redriven_at <= datetime.now(UTC)
    assert calls == ["first", "flaky", "flaky", "last"]
    assert harness.reporter.calls == [
        ("started", step_ids[1]),
        ("finished", step_ids[1], StepStatus.SUCCEEDED, None),
        ("started", step_ids[2]),
        ("finished", step_ids[2], StepStatus.SUCCEEDED, None),
        ("completed", ExecutionStatus.SUCCEEDED, None),
    ]
    assert harness.status_of("exec-redrive") is ExecutionStatus.SUCCEEDED


def test_a_thread_redrive_returns_at_once_and_runs_in_the_background(harness: Harness) -> None:
    version = harness.publish(
        workflow("later", python_step("gate", "wait_at_the_gate"), python_step("last", "last"))
    )
    harness.launch("exec-later", version, statuses={0: StepStatus.FAILED})
    harness.reporter.execution_completed("exec-later", ExecutionStatus.FAILED, "step 1 failed")
    runner = harness.runner(mode="thread")

    runner.redrive_execution(_reopen(harness, "exec-later"), "token-1")

    assert entered.wait(20)  # redrive_execution returned while the step still waits
    assert harness.status_of("exec-later") is ExecutionStatus.RUNNING
    gate.set()
    assert runner.join("exec-later", timeout=20)
    assert calls == ["gate", "last"]
    assert harness.status_of("exec-later") is ExecutionStatus.SUCCEEDED


def test_a_run_still_going_is_not_redriven(harness: Harness) -> None:
    version = harness.publish(workflow("busy", python_step("gate", "wait_at_the_gate")))
    harness.launch("exec-busy", version)
    runner = harness.runner(mode="thread", grace_seconds=SHORT_GRACE)
    runner.start("exec-busy")
    assert entered.wait(20)

    with pytest.raises(ConflictError, match="still running"):
        runner.redrive_execution(_stored(harness, "exec-busy"), "token-1")

    gate.set()
    assert runner.join("exec-busy", timeout=20)
    assert calls == ["gate"]


def _ended_run_whose_worker_lingers(harness: Harness, execution_id: str, seconds: float) -> int:
    """A detached worker that has recorded its run's end and is still closing its files."""
    version = harness.publish(workflow(execution_id, python_step("first", "first")))
    harness.launch(execution_id, version)
    lingering = [sys.executable, "-c", f"import time; time.sleep({seconds})"]
    launcher = harness.runner(
        mode="detached", detached_command=lingering, grace_seconds=SHORT_GRACE
    )
    launcher.start(execution_id)
    harness.reporter.execution_completed(execution_id, ExecutionStatus.FAILED)
    return runner_pid(harness, execution_id)


def test_a_redrive_just_after_the_end_waits_for_the_worker_to_exit(harness: Harness) -> None:
    pid = _ended_run_whose_worker_lingers(harness, "exec-closing", seconds=1.0)
    elsewhere = harness.runner(mode="detached", detached_command=[sys.executable, "-c", "pass"])

    elsewhere.redrive_execution(_stored(harness, "exec-closing"), "token-1")

    assert _process_gone(pid)
    assert runner_pid(harness, "exec-closing") != pid  # the redrive's own worker


def test_a_worker_that_does_not_exit_after_the_end_is_not_redriven_over(
    harness: Harness,
) -> None:
    pid = _ended_run_whose_worker_lingers(harness, "exec-stuck", seconds=60)
    never_started = [sys.executable, "-c", "raise SystemExit(9)"]
    elsewhere = harness.runner(mode="detached", detached_command=never_started, grace_seconds=0.5)

    with pytest.raises(ConflictError, match="still running on the local runner"):
        elsewhere.redrive_execution(_stored(harness, "exec-stuck"), "token-1")
    assert not _process_gone(pid)
    assert runner_pid(harness, "exec-stuck") == pid


def test_a_stopped_run_can_be_redriven_from_the_step_it_stopped_in(harness: Harness) -> None:
    version = harness.publish(
        workflow("again", python_step("gate", "wait_at_the_gate"), python_step("last", "last"))
    )
    harness.launch("exec-again", version)
    runner = harness.runner(mode="thread")
    runner.start("exec-again")
    assert entered.wait(20)
    stopping = threading.Thread(
        target=runner.stop_execution,
        args=(_stored(harness, "exec-again"), "wfx.Aborted", "by the test"),
    )
    stopping.start()
    gate.set()  # the stopped run ends once its step returns
    stopping.join(20)
    assert harness.status_of("exec-again") is ExecutionStatus.ABORTED

    runner.redrive_execution(_reopen(harness, "exec-again"), "token-1")

    assert runner.join("exec-again", timeout=20)
    assert calls == ["gate", "gate", "last"]
    assert harness.status_of("exec-again") is ExecutionStatus.SUCCEEDED


# --- history ---------------------------------------------------------------------------------


def test_the_history_is_the_steps_starts_and_ends_in_chain_order(harness: Harness) -> None:
    _, step_ids = _flaky_workflow(harness)
    runner = harness.runner()
    runner.start("exec-redrive")

    page = runner.history_page(_stored(harness, "exec-redrive"))

    rows = {step_id: harness.step(step_id) for step_id in step_ids}
    assert page.next_token is None
    assert [(e["type"], e["pipelineExecutionId"]) for e in page.events] == [
        ("StepStarted", step_ids[0]),
        ("StepSucceeded", step_ids[0]),
        ("StepStarted", step_ids[1]),
        ("StepFailed", step_ids[1]),
    ]
    assert [e["timestamp"] for e in page.events] == [
        rows[step_ids[0]].start_date,
        rows[step_ids[0]].stop_date,
        rows[step_ids[1]].start_date,
        rows[step_ids[1]].stop_date,
    ]
    assert page.events[3]["error"] == "RuntimeError: flaky failed"


# --- runs of another orchestrator --------------------------------------------------------------


def test_a_run_started_on_step_functions_is_neither_stopped_nor_redriven_here(
    harness: Harness,
) -> None:
    version = harness.publish(workflow("aws", python_step("first", "first")))
    harness.launch("exec-aws", version)
    on_aws = _stored(harness, "exec-aws").model_copy(update={"orchestrator": "stepfunctions"})
    runner = harness.runner()

    with pytest.raises(ConflictError, match=r"runs on the stepfunctions runner.*WFX_RUNNER"):
        runner.stop_execution(on_aws, "wfx.Aborted", "by the test")
    with pytest.raises(ConflictError, match="runs on the stepfunctions runner"):
        runner.redrive_execution(on_aws, "token-1")

    assert calls == []
    assert harness.reporter.calls == []


def test_a_read_counts_the_same_history_from_the_step_rows(harness: Harness) -> None:
    """What GetExecutionDetails counts for redriveStatus is what a redrive pages through."""
    _, step_ids = _flaky_workflow(harness)
    runner = harness.runner()
    runner.start("exec-redrive")

    page = runner.history_page(_stored(harness, "exec-redrive"))

    steps = [harness.step(step_id) for step_id in step_ids]
    assert local_history_event_count(steps) == len(page.events) == 4
