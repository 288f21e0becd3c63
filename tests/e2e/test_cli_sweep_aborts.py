"""`wfx executions abort`, `executions show` and `maintenance sweep-aborts` on SQLite, as typed.

The run's rows are written through the real SQLite store into the CLI's own database; its step
registered a real local process that shrugs off SIGTERM (the abort kills it after the grace
period), or a process that is not the step's at all (refused, and reported by every sweep).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from adapters.local.supervisor import RunFolder, child_process
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import TableNames
from domain.logs import RegisteredSubExecution
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, registered_on_step, step_id, write_launch
from tests.e2e.cli import Wfx, assert_bad_input

STUBBORN = (
    "import signal, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "while True: time.sleep(0.05)\n"
)


@pytest.fixture
def stubborn() -> Iterator[subprocess.Popen[bytes]]:
    """A step's command, in a session of its own as the runner starts one, ignoring SIGTERM."""
    process = subprocess.Popen(
        [sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE, start_new_session=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == b"ready"
    yield process
    process.kill()
    process.wait()


@pytest.fixture
def quick(wfx: Wfx) -> Wfx:
    return wfx.with_environment(WFX_STOP_GRACE_SECONDS="0.5")


def _a_running_run(wfx: Wfx, child_pid: int, session: int | None = None) -> None:
    """run-1 RUNNING, its first step RUNNING with a local process and an unknown child; the
    runner's record of the step's command names `session`."""
    wfx.ok("tables", "create")
    database = SqliteDatabase(wfx.home / "wfx.db")
    try:
        store = SqliteExecutionStore(database, TableNames())
        now = datetime.now(UTC)
        records = a_launch("run-1", start=now - timedelta(minutes=2))
        running = records.steps[0].model_copy(
            update={"status": StepStatus.RUNNING, "start_date": now - timedelta(minutes=1)}
        )
        write_launch(store, records.model_copy(update={"steps": (running, *records.steps[1:])}))
        subs = (
            RegisteredSubExecution.of_resource(
                resource_type="localProcess", resource_id=str(child_pid)
            ),
            RegisteredSubExecution.of_resource(resource_type="kubernetesJob", resource_id="pod-7"),
        )
        registered_on_step(store, "run-1", step_id("run-1", 0), subs)
    finally:
        database.close()
    if session is not None:
        folder = RunFolder(wfx.home / "runs" / "run-1")
        folder.write_step(step_id("run-1", 0), child_process(session, "command", 1))


def test_abort_kills_a_child_that_ignores_sigterm_and_show_lists_each_outcome(
    quick: Wfx, stubborn: subprocess.Popen[bytes]
) -> None:
    _a_running_run(quick, stubborn.pid, session=stubborn.pid)

    aborted = quick("executions", "abort", "run-1")
    shown = quick.ok("executions", "show", "run-1")
    swept = quick("maintenance", "sweep-aborts", "--since", "1h", "--json")
    stops = quick.json("executions", "show", "run-1")["pipelines"][0]["subExecutionStops"]

    assert aborted.code == 0 and aborted.stdout.strip() == "run-1 ABORTED", str(aborted)
    assert (
        "warning: step pipe0: kubernetesJob pod-7 was left running: wfx cannot stop kubernetesJob"
        in aborted.stderr_lines
    ), str(aborted)
    assert stubborn.wait(timeout=5) == -signal.SIGKILL
    assert "Sub-process stops" in shown.stdout, str(shown)
    assert f"localProcess {stubborn.pid}  stopped" in shown.stdout, str(shown)
    assert "kubernetesJob pod-7  unsupported" in shown.stdout, str(shown)
    assert swept.code == 0 and swept.json()["remaining"] == 0, str(swept)
    assert [(s["resourceType"], s["outcome"], s["tries"]) for s in stops] == [
        ("localProcess", "stopped", 1),
        ("kubernetesJob", "unsupported", 1),
    ]


def test_a_sweep_that_leaves_a_child_running_exits_1(quick: Wfx) -> None:
    """The registered pid is not the step's (no record names its session): it is never
    signalled, and every sweep says it is still not confirmed."""
    stranger = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        _a_running_run(quick, stranger.pid)
        aborted = quick("executions", "abort", "run-1")

        swept = quick("maintenance", "sweep-aborts", "--since", "24h")

        assert "is not a process of step pipe0" in aborted.stderr, str(aborted)
        assert swept.code == 1, str(swept)
        assert "1 still not confirmed" in swept.stdout, str(swept)
        assert stranger.poll() is None
        os.kill(stranger.pid, 0)
    finally:
        stranger.kill()
        stranger.wait()


def test_a_since_that_is_not_a_duration_is_refused_naming_the_option(wfx: Wfx) -> None:
    assert_bad_input(wfx("maintenance", "sweep-aborts", "--since", "yesterday"), "--since")


def test_abort_json_carries_what_was_left_running_next_to_the_row(
    quick: Wfx, stubborn: subprocess.Popen[bytes]
) -> None:
    _a_running_run(quick, stubborn.pid, session=stubborn.pid)

    aborted = quick("executions", "abort", "run-1", "--json")

    assert aborted.code == 0, str(aborted)
    document = aborted.json()
    assert document["executionStatus"] == "ABORTED"
    assert document["abortWarnings"] == [
        "step pipe0: kubernetesJob pod-7 was left running: wfx cannot stop kubernetesJob"
    ]
