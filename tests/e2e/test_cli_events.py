"""`wfx executions events` of a real local run with a retry: every transition is in the log,
numbered 1..N, and the steps' statuses and attempts recomputed from it are what `show` says."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from domain.event_replay import replay
from domain.events import ExecutionEvent
from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx

# fails on its first attempt, succeeds on its second (the marker file remembers)
FLAKY = (
    "import pathlib, sys; marker = pathlib.Path(sys.argv[1]); "
    "sys.exit(0) if marker.exists() else (marker.write_text('x'), sys.exit(3))"
)


def _publish_three_steps_with_a_retry(wfx: Wfx, marker: Path) -> None:
    ok = [sys.executable, "-c", "print('ok')"]
    document: dict[str, Any] = {
        "databaseId": "demo",
        "workflowId": "flaky",
        "steps": [
            {"pipelineId": "first", "executionType": "command", "command": ok},
            {
                "pipelineId": "flaky",
                "executionType": "command",
                "command": [sys.executable, "-c", FLAKY, str(marker)],
                "retry": {"maxAttempts": 2, "intervalSeconds": 1, "backoffRate": 1.0},
            },
            {"pipelineId": "last", "executionType": "command", "command": ok},
        ],
    }
    for step in document["steps"]:
        step["inputFileArity"] = "none"
    path = wfx.home / "flaky.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def _events(wfx: Wfx, *args: str) -> list[ExecutionEvent]:
    outcome = wfx.ok("executions", "events", *args, "--json")
    rows = [json.loads(line) for line in outcome.stdout.splitlines() if line.strip()]
    return [
        TypeAdapter(ExecutionEvent).validate_python(
            {
                "workflow_execution_id": args[0],
                "sequence_number": row["sequenceNumber"],
                "event_type": row["eventType"],
                "occurred_at": row["occurredAt"],
                "pipeline_execution_id": row.get("pipelineExecutionId"),
                "attempt": row.get("attempt"),
                "status": row.get("status"),
                "error": row.get("error"),
            }
        )
        for row in rows
    ]


def test_a_run_with_a_retry_is_recomputed_from_its_events(wfx: Wfx, tmp_path: Path) -> None:
    _publish_three_steps_with_a_retry(wfx, tmp_path / "marker")
    execution_id = wfx.run_id("demo/flaky")
    shown = wfx.json("executions", "show", execution_id)

    events = _events(wfx, execution_id)
    replayed = replay(events)  # refuses a gap or a repeat

    assert replayed.status == shown["executionStatus"] == "SUCCEEDED"
    steps = {entry["pipelineExecutionId"]: entry for entry in shown["pipelines"]}
    assert replayed.step_statuses == {sid: entry["executionStatus"] for sid, entry in steps.items()}
    assert replayed.attempts == {
        sid: [(a["attempt"], a["status"]) for a in entry["attempts"]]
        for sid, entry in steps.items()
    }
    flaky = next(sid for sid, entry in steps.items() if entry["pipelineId"] == "flaky")
    assert replayed.attempts[flaky] == [(1, "FAILED"), (2, "SUCCEEDED")]
    kinds = [e.event_type.value for e in events]
    assert kinds[0] == "ExecutionLaunched" and kinds[-1] == "ExecutionCompleted"
    assert kinds.count("AttemptRetried") == 1 and kinds.count("StepFinished") == 3

    # --after: the rest only; --follow on an ended run prints what is left and returns
    assert [e.sequence_number for e in _events(wfx, execution_id, "--after", "3")] == list(
        range(4, len(events) + 1)
    )
    followed = wfx.ok("executions", "events", execution_id, "--follow")
    assert len(followed.stdout.splitlines()) == len(events)
    assert "ExecutionCompleted" in followed.stdout.splitlines()[-1]


def test_events_are_listed_by_number_and_their_times_never_go_back(wfx: Wfx) -> None:
    """The run's end is not stamped before its steps' ends: the main row keeps VAMS's whole
    seconds, the event log the moment itself, as a step's events do."""
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    execution_id = wfx.run_id("demo/trivial")

    events = _events(wfx, execution_id)
    assert [e.sequence_number for e in events] == list(range(1, len(events) + 1))
    assert events[-1].event_type.value == "ExecutionCompleted"
    moments = [e.occurred_at for e in events]
    assert moments == sorted(moments), [(e.event_type.value, e.occurred_at) for e in events]

    printed = wfx.ok("executions", "events", execution_id).stdout.splitlines()
    assert [int(line.split()[0]) for line in printed] == list(range(1, len(events) + 1))
    assert [line.split()[1] for line in printed] == [
        moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ") for moment in moments
    ]
    # the main row stays as VAMS writes it: whole seconds
    stop = wfx.json("executions", "show", execution_id)["executionStopDate"]
    assert stop.endswith("Z") and "." not in stop, stop


def test_the_events_of_an_unknown_run_are_refused(wfx: Wfx) -> None:
    outcome = wfx("executions", "events", "no-such-run")
    assert outcome.code != 0
    assert "no-such-run" in outcome.stderr
