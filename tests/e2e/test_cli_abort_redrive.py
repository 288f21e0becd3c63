"""`wfx executions abort` and `wfx executions redrive` on SQLite, as a user types them (the
abort of a detached worker on DynamoDB, moto's server, too)."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from adapters.local.supervisor import RunFolder
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.tables import TableNames
from domain.run_write import RunWrite
from tests.e2e.cli import FAKE_AWS, TERMINAL, TRIVIAL_WORKFLOW, Wfx, assert_bad_input
from tests.integration.moto_server import moto_server, requests_from

# A cold `wfx executions abort` of a detached worker's running first step (of two), on DynamoDB:
# the main row (the request is decided on it; its event counter is the write's guess, no read of
# it), the request's TransactWriteItems, the steps' Query, the running step's attempts' Query
# (read before the stop: the sub-processes the steps registered are stopped first), and, the
# worker having exited of itself (the step's SIGTERM wakes it, and it ends the run ABORTED before
# it exits), the main row read again: ended, the answer, with no end of the abort's own (its
# cost context, 2, and its refused TransactWriteItems). 16 before (12-06, s22-coldabort); 8
# before the stop said the worker was done (s23-found).
COLD_ABORT_REQUESTS = 5


def _publish_fixable(wfx: Wfx, marker: Path) -> None:
    """demo/fixable: its middle step exits 3 until `marker` exists."""
    check = f"import os, sys; sys.exit(0 if os.path.exists({str(marker)!r}) else 3)"
    document = {
        "databaseId": "demo",
        "workflowId": "fixable",
        "steps": [
            {
                "pipelineId": step,
                "executionType": "command",
                "command": [sys.executable, "-c", code],
                "inputFileArity": "none",
            }
            for step, code in (("first", "print('first ran')"), ("middle", check), ("last", "pass"))
        ],
    }
    path = wfx.home / "fixable.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def test_redriving_a_run_that_succeeded_exits_2_with_the_seed_reason(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    execution_id = wfx.run_id("demo/trivial")

    outcome = wfx("executions", "redrive", execution_id)

    assert_bad_input(outcome, "Execution is SUCCEEDED and cannot be redriven.")


def test_every_json_of_a_local_run_says_whether_it_can_be_redriven(
    wfx: Wfx, tmp_path: Path
) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    _publish_fixable(wfx, tmp_path / "never-fixed")
    ran = wfx.ok("run", "demo/trivial", "--json")
    succeeded = ran.json()["workflowExecutionId"]
    failed = wfx.run_id("demo/fixable", expect_code=1)

    listed = {
        item["workflowExecutionId"]: item
        for item in wfx.json("executions", "list", "--limit", "100")["Items"]
    }
    refused = {
        "redriveStatus": "NOT_REDRIVABLE",
        "redriveStatusReason": "Execution is SUCCEEDED and cannot be redriven.",
    }
    for shown in (
        ran.json(),
        wfx.json("executions", "show", succeeded),
        listed[succeeded],
    ):
        assert {key: shown.get(key) for key in refused} == refused, shown
    for shown in (wfx.json("executions", "show", failed), listed[failed]):
        assert shown["redriveStatus"] == "REDRIVABLE", shown
        assert "redriveStatusReason" not in shown, shown
    printed = wfx.ok("executions", "show", succeeded).stdout
    assert "redrive   NOT_REDRIVABLE: Execution is SUCCEEDED and cannot be redriven.\n" in printed
    assert "redrive   REDRIVABLE\n" in wfx.ok("executions", "show", failed).stdout


def test_aborting_a_run_that_finished_leaves_it_as_it_was(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    execution_id = wfx.run_id("demo/trivial")
    before = wfx.json("executions", "show", execution_id)

    aborted = wfx.json("executions", "abort", execution_id)

    assert aborted["executionStatus"] == "SUCCEEDED"
    assert wfx.json("executions", "show", execution_id) == before
    assert wfx.ok("executions", "abort", execution_id).stdout == f"{execution_id} SUCCEEDED\n"


def test_aborting_a_run_whose_completion_is_finishing_it_exits_2_and_leaves_it_running(
    wfx: Wfx,
) -> None:
    """The completion has marked the run finishing (its results are going into its output
    asset): the abort is refused, and no abort request is stored."""
    _publish_held(wfx)
    execution_id = wfx.run_id("demo/held")  # parked at its gate, open
    _mark_finishing(wfx, execution_id)
    before = wfx.json("executions", "show", execution_id)

    outcome = wfx("executions", "abort", execution_id)

    assert_bad_input(outcome, f"execution {execution_id} is finishing", "no longer be aborted")
    assert wfx.json("executions", "show", execution_id) == before
    assert before["executionStatus"] == "RUNNING"


def _publish_held(wfx: Wfx) -> None:
    """demo/held: one approval step, so a run parks at its gate, open, with no runner."""
    document = {
        "databaseId": "demo",
        "workflowId": "held",
        "steps": [{"pipelineId": "sign-off", "executionType": "approval", "approvers": ["carol"]}],
    }
    path = wfx.home / "held.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def test_deleting_with_force_a_run_being_finished_says_to_wait_for_its_end(wfx: Wfx) -> None:
    _publish_held(wfx)
    execution_id = wfx.run_id("demo/held")
    _mark_finishing(wfx, execution_id)
    before = wfx.json("executions", "show", execution_id)

    outcome = wfx("executions", "delete", "--force", execution_id)

    assert_bad_input(outcome, f"execution {execution_id} is finishing", "wait for it to end")
    assert "then delete it" in outcome.stderr and "aborted" not in outcome.stderr, outcome
    assert wfx.json("executions", "show", execution_id) == before


def test_show_says_a_run_is_finishing_and_its_json_carries_the_stored_mark(wfx: Wfx) -> None:
    _publish_held(wfx)
    execution_id = wfx.run_id("demo/held")
    assert "finishing" not in wfx.ok("executions", "show", execution_id).stdout
    assert "finishingDate" not in wfx.json("executions", "show", execution_id)
    _mark_finishing(wfx, execution_id)

    shown = wfx.ok("executions", "show", execution_id).stdout
    details = wfx.json("executions", "show", execution_id)

    assert re.search(
        r"\n  finishing +since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: its results are going", shown
    ), shown
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", details["finishingDate"]), details


def test_show_says_a_run_is_being_deleted_and_its_json_carries_the_stored_mark(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    execution_id = wfx.run_id("demo/trivial")
    assert "runnerLeaseOwner" not in wfx.json("executions", "show", execution_id)
    database = SqliteDatabase(wfx.home / "wfx.db")
    try:  # a delete cut short after its first write, as one killed there leaves the run
        store = SqliteExecutionStore(database, TableNames())
        change = store.get_run(execution_id).begin_delete(datetime.now(UTC))
        assert change is not None and store.commit(RunWrite.of(execution_id, change=change))
    finally:
        database.close()

    shown = wfx.ok("executions", "show", execution_id).stdout
    details = wfx.json("executions", "show", execution_id)

    assert re.search(r"\n  deleting +since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d: ", shown), shown
    assert f"wfx executions delete {execution_id}" in shown, shown
    assert details["runnerLeaseOwner"].startswith("deleting:"), details
    listed = wfx.json("executions", "list")["Items"]
    assert listed[0]["runnerLeaseOwner"] == details["runnerLeaseOwner"]


def _mark_finishing(wfx: Wfx, execution_id: str) -> None:
    """The run marked finishing, as its completion marks it before importing its results."""
    database = SqliteDatabase(wfx.home / "wfx.db")
    try:
        store = SqliteExecutionStore(database, TableNames())
        change = store.get_run(execution_id).begin_finishing(datetime.now(UTC))
        assert change is not None and store.commit(RunWrite.of(execution_id, change=change))
    finally:
        database.close()


def test_ctrl_c_of_a_run_being_finished_waits_for_its_end_and_exits_130(
    wfx: Wfx, tmp_path: Path
) -> None:
    """The abort Ctrl-C asks for is refused: the run ends as its completion ends it, and
    `wfx run` waits for that end (its runner is in this process) before it exits."""
    started, go = tmp_path / "started", tmp_path / "go"
    wfx.publish_command_step(
        "finishing",
        "import os, pathlib, time\n"
        # written whole, then named: the test reads it as soon as the name is there
        f"pathlib.Path({str(started)!r} + '.part').write_text(os.environ['WFX_EXECUTION_ID'])\n"
        f"os.replace({str(started)!r} + '.part', {str(started)!r})\n"
        "deadline = time.monotonic() + 20\n"
        f"while not pathlib.Path({str(go)!r}).exists() and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n",
    )
    run = wfx.start("run", "demo/finishing", new_session=True)
    try:
        deadline = time.monotonic() + 20
        while not started.exists() and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        execution_id = started.read_text()
        _mark_finishing(wfx, execution_id)

        os.killpg(run.pid, signal.SIGINT)  # what the terminal does on Ctrl-C

        assert run.stderr is not None
        said = run.stderr.readline()
        go.touch()
        stdout, stderr = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert (run.returncode, stdout) == (130, f"{execution_id}\n"), said + stderr
    assert said.startswith(f"SIGINT: execution {execution_id} is finishing ("), said
    assert said.endswith("it can no longer be aborted; waiting for it to end\n"), said
    assert stderr == f"SIGINT: execution {execution_id} SUCCEEDED\n"
    assert wfx.json("executions", "show", execution_id)["executionStatus"] == "SUCCEEDED"


def test_a_fixed_run_redriven_waits_for_the_run_and_reruns_only_what_failed(
    wfx: Wfx, tmp_path: Path
) -> None:
    marker = tmp_path / "fixed"
    _publish_fixable(wfx, marker)
    execution_id = wfx.run_id("demo/fixable", expect_code=1)
    first_run = wfx.json("executions", "show", execution_id)["pipelines"]
    marker.write_text("fixed\n", encoding="utf-8")

    outcome = wfx("executions", "redrive", execution_id)

    assert outcome.code == 0, str(outcome)
    assert outcome.stdout == f"{execution_id}\n"
    details = wfx.json("executions", "show", execution_id)
    assert details["executionStatus"] == "SUCCEEDED"
    assert details["redriveCount"] == 1
    assert "redriveDate" in details
    steps = details["pipelines"]
    assert [step["executionStatus"] for step in steps] == ["SUCCEEDED"] * 3
    # the step that had succeeded was not run again: its row is the one of the first run
    assert steps[0] == first_run[0]


def test_a_redrive_without_waiting_returns_and_the_run_still_ends(wfx: Wfx, tmp_path: Path) -> None:
    _publish_fixable(wfx, tmp_path / "never-fixed")
    execution_id = wfx.run_id("demo/fixable", expect_code=1)

    outcome = wfx("executions", "redrive", execution_id, "--no-wait", "--json")

    assert outcome.code == 0, str(outcome)
    assert outcome.json()["redriveCount"] == 1
    details = wfx.wait_until(execution_id, lambda d: d["executionStatus"] in TERMINAL)
    assert details["executionStatus"] == "FAILED", details
    assert details["redriveCount"] == 1


def test_redriving_an_unknown_execution_is_bad_input(wfx: Wfx) -> None:
    outcome = wfx("executions", "redrive", "no-such-run")

    assert_bad_input(outcome, "no-such-run", "not found")


@pytest.fixture(params=["sqlite", "dynamodb"])
def on_either_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Wfx]:
    """`wfx` on a SQLite file, or on DynamoDB (moto's server, a request at a time: the abort and
    the worker race on one run, as DynamoDB lets them)."""
    if request.param == "sqlite":
        yield Wfx(tmp_path / "home")
        return
    with moto_server(one_request_at_a_time=True) as endpoint:
        on_moto = Wfx(
            tmp_path / "home", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS
        )
        on_moto.ok("tables", "create")
        yield on_moto


def test_aborting_a_detached_run_stops_its_worker_and_records_it_aborted(
    on_either_store: Wfx, tmp_path: Path
) -> None:
    """The abort's SIGTERM kills the worker's step before the worker's keeper sees the request:
    the worker, told by the signal, reads the main row first and ends the run ABORTED, or the
    abort's end comes first and the worker writes nothing; either way one end, its events once
    each, numbered without a gap, and the steps' summaries written with it."""
    wfx = on_either_store
    started = tmp_path / "started"
    sleeper = f"import pathlib, time; pathlib.Path({str(started)!r}).touch(); time.sleep(60)"
    document = {
        "databaseId": "demo",
        "workflowId": "sleepy",
        "steps": [
            {
                "pipelineId": step,
                "executionType": "command",
                "command": [sys.executable, "-c", code],
                "inputFileArity": "none",
            }
            for step, code in (("sleep", sleeper), ("after", "pass"))
        ],
    }
    path = wfx.home / "sleepy.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))
    execution_id = wfx.run_id("demo/sleepy", "--no-wait")
    # the step's own mark, looked at without a `wfx executions show` a poll (on DynamoDB, a
    # dozen requests each while the detached worker starts)
    deadline = time.monotonic() + 20
    while not started.exists():
        assert time.monotonic() < deadline, "the detached run's first step did not start in 20 s"
        time.sleep(0.05)
    worker = RunFolder(wfx.home / "runs" / execution_id).runner()
    assert worker is not None and worker.running()

    endpoint = wfx.setting("WFX_DYNAMODB_ENDPOINT")
    if endpoint is None:  # SQLite
        outcome = wfx("executions", "abort", execution_id)
    else:  # the abort names the server `localhost`, the worker 127.0.0.1: its requests alone
        aborting = wfx.with_environment(
            WFX_DYNAMODB_ENDPOINT=endpoint.replace("127.0.0.1", "localhost")
        )
        with requests_from("localhost") as served:
            outcome = aborting("executions", "abort", execution_id)
        assert sum(served.values()) == COLD_ABORT_REQUESTS, served

    assert outcome.code == 0, str(outcome)
    assert not worker.running()  # gone (its /proc entry, or a zombie) when the abort returns
    assert outcome.stdout == f"{execution_id} ABORTED\n"
    details = wfx.json("executions", "show", execution_id)
    assert details["executionStatus"] == "ABORTED"
    assert details["executionError"] == ""  # seed 000: not a failure message
    statuses = [e["executionStatus"] for e in details["pipelines"]]
    assert statuses == ["ABORTED", "ABORTED"]
    again = wfx.json("executions", "show", execution_id)
    assert again == details  # the stopped worker wrote nothing afterwards
    # the text view says why it stopped, from abortCause, and shows no error line
    shown = wfx("executions", "show", execution_id).stdout
    assert "aborted" in shown and "Aborted on request" in shown, shown
    assert "wfx.Aborted" not in shown.split("Steps")[0], shown
    events = [
        json.loads(line)
        for line in wfx.ok("executions", "events", execution_id, "--json").stdout.splitlines()
    ]
    assert [e["sequenceNumber"] for e in events] == list(range(1, len(events) + 1)), events
    assert [e["eventType"] for e in events] == [
        "ExecutionLaunched",
        "StepStarted",
        "AttemptStarted",
        "AbortRequested",
        "AttemptFinished",
        "StepFinished",
        "StepFinished",
        "ExecutionAborted",
    ], events
    summaries = [log["status"] for step in details["pipelines"] for log in step["logs"]]
    assert summaries == ["ABORTED", "ABORTED"], details["pipelines"]
