"""`wfx executions abort`, `executions show` and `maintenance sweep-aborts` on SQLite, as typed.

The run's rows are written through the real SQLite store into the CLI's own database; its step
registered a real local process that shrugs off the first SIGTERM, so the abort can only request
the stop and the sweep has to finish it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import TableNames
from domain.logs import RegisteredSubExecution
from domain.registration import merge_sub_executions
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, step_id
from tests.e2e.cli import Wfx, assert_bad_input

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


@pytest.fixture
def stubborn() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    assert process.stdout is not None and process.stdout.readline().strip() == b"ready"
    yield process
    process.kill()
    process.wait()


def _a_running_run(wfx: Wfx, child_pid: int) -> None:
    """run-1 RUNNING, its first step RUNNING with a local process and an unknown child."""
    wfx.ok("tables", "create")
    database = SqliteDatabase(wfx.home / "wfx.db")
    try:
        store = SqliteExecutionStore(database, TableNames())
        now = datetime.now(UTC)
        records = a_launch("run-1", start=now - timedelta(minutes=2))
        running = records.steps[0].model_copy(
            update={"status": StepStatus.RUNNING, "start_date": now - timedelta(minutes=1)}
        )
        store.add_launch(records.model_copy(update={"steps": (running, *records.steps[1:])}))
        subs = (
            RegisteredSubExecution(resource_type="localProcess", resource_id=str(child_pid)),
            RegisteredSubExecution(resource_type="kubernetesJob", resource_id="pod-7"),
        )
        store.register_on_step(
            "run-1", step_id("run-1", 0), lambda step: (merge_sub_executions((), subs), ())
        )
    finally:
        database.close()


def test_abort_warns_show_lists_the_outcomes_and_the_sweep_finishes_the_stop(
    wfx: Wfx, stubborn: subprocess.Popen[bytes]
) -> None:
    _a_running_run(wfx, stubborn.pid)

    aborted = wfx("executions", "abort", "run-1")
    shown = wfx.ok("executions", "show", "run-1")
    swept = wfx("maintenance", "sweep-aborts", "--since", "1h", "--json")
    again = wfx("maintenance", "sweep-aborts", "--since", "1h")
    stops = wfx.json("executions", "show", "run-1")["pipelineExecutions"][0]["pipelineExecution"][
        "subExecutionStops"
    ]

    assert aborted.code == 0 and aborted.stdout.strip() == "run-1 ABORTED", str(aborted)
    assert (
        "warning: step pipe0: kubernetesJob pod-7 was left running: wfx cannot stop kubernetesJob"
        in aborted.stderr_lines
    ), str(aborted)
    assert "Sub-process stops" in shown.stdout, str(shown)
    assert f"localProcess {stubborn.pid}  stopRequested" in shown.stdout, str(shown)
    assert "kubernetesJob pod-7  unsupported" in shown.stdout, str(shown)
    assert swept.code == 0, str(swept)
    assert stubborn.wait(timeout=5) == 0
    report = swept.json()
    assert (report["runsChecked"], report["remaining"]) == (1, 0)
    assert [
        (c["resourceId"], c["previousOutcome"], c["outcome"], c["tries"])
        for c in report["children"]
    ] == [(str(stubborn.pid), "stopRequested", "stopped", 2)]
    assert again.code == 0 and "0 unconfirmed" in again.stdout, str(again)
    assert [(s["resourceType"], s["outcome"], s["tries"]) for s in stops] == [
        ("localProcess", "stopped", 2),
        ("kubernetesJob", "unsupported", 1),
    ]


def test_a_sweep_that_leaves_a_child_running_exits_1(wfx: Wfx) -> None:
    ignoring = subprocess.Popen(
        [sys.executable, "-c", STUBBORN.replace("len(seen) > 1", "False")],
        stdout=subprocess.PIPE,
    )
    try:
        assert ignoring.stdout is not None and ignoring.stdout.readline().strip() == b"ready"
        _a_running_run(wfx, ignoring.pid)
        wfx("executions", "abort", "run-1")

        swept = wfx("maintenance", "sweep-aborts", "--since", "24h")

        assert swept.code == 1, str(swept)
        assert "1 still not confirmed" in swept.stdout, str(swept)
        assert ignoring.poll() is None
    finally:
        ignoring.kill()
        ignoring.wait()


def test_a_since_that_is_not_a_duration_is_refused_naming_the_option(wfx: Wfx) -> None:
    assert_bad_input(wfx("maintenance", "sweep-aborts", "--since", "yesterday"), "--since")


def test_abort_json_carries_what_was_left_running_next_to_the_row(
    wfx: Wfx, stubborn: subprocess.Popen[bytes]
) -> None:
    _a_running_run(wfx, stubborn.pid)

    aborted = wfx("executions", "abort", "run-1", "--json")

    assert aborted.code == 0, str(aborted)
    document = aborted.json()
    assert document["executionStatus"] == "ABORTED"
    assert document["abortWarnings"] == [
        "step pipe0: kubernetesJob pod-7 was left running: wfx cannot stop kubernetesJob"
    ]
