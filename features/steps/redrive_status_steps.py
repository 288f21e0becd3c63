"""Whether a run can be redriven, as each read shows it (redriveStatus, redriveStatusReason)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pytest_bdd import given, parsers, then, when

from adapters.run_records import build_execution_record
from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.list_executions import ListExecutionsQuery
from entrypoints.container import Container
from features.steps.launch_steps import launch
from features.steps.observer import ObservingReporter
from features.steps.reading import details_of
from features.steps.stepfunctions_steps import StepFunctions
from features.steps.world import World

# What each ending runs: the workflow, and the step at whose start alice aborts (if she does).
_ENDINGS: dict[str, tuple[str, str | None]] = {
    "succeeds": ("features/three-steps", None),
    "fails": ("features/fails-midway", None),
    "is aborted": ("features/three-steps", "transform"),
}

Shown = dict[str, dict[str, Any]]  # read -> the execution as `--json` prints it


def every_read(container: Container, execution_id: str) -> Shown:
    """The run through each read use case, as the CLI's --json shows it (the row's record)."""
    single = container.get_execution().execute(
        GetExecutionQuery(workflow_execution_id=execution_id)
    )
    listed = [
        execution
        for execution in container.list_executions().execute(ListExecutionsQuery(limit=100)).items
        if execution.workflow_execution_id == execution_id
    ]
    assert len(listed) == 1, listed
    return {
        "GetExecution": build_execution_record(single),
        "GetExecutionDetails": build_execution_record(
            details_of(container, execution_id).execution
        ),
        "ListExecutions": build_execution_record(listed[0]),
    }


@pytest.fixture
def shown_while_running() -> list[Shown]:
    return []


@when(parsers.re(r"alice runs a local workflow that (?P<ending>succeeds|fails|is aborted)"))
def _(container: Container, world: World, observer: ObservingReporter, ending: str) -> None:
    workflow, abort_at = _ENDINGS[ending]

    def abort(execution_id: str) -> None:
        container.abort_execution().execute(
            AbortExecutionCommand(workflow_execution_id=execution_id)
        )

    if abort_at is not None:
        observer.once_started[abort_at] = abort
    launch(container, world, "alice", workflow, "scans/bunny", None, None, None, None, None)


@given(parsers.parse('every read of the execution is noted once the step "{name}" starts'))
def _(
    container: Container, observer: ObservingReporter, shown_while_running: list[Shown], name: str
) -> None:
    observer.once_started[name] = lambda execution_id: shown_while_running.append(
        every_read(container, execution_id)
    )


def _assert_shown(shown: Shown, status: str, reason: str) -> None:
    for read, record in shown.items():
        assert record.get("redriveStatus") == status, (read, record)
        # DescribeExecution gives no reason for a run that can be redriven: nor does a read
        assert record.get("redriveStatusReason") == (reason or None), (read, record)


@then(
    parsers.re(
        r'every read shows the redrive status "(?P<status>[A-Z_]+)"'
        r'(?: with the reason "(?P<reason>[^"]*)")?$'
    )
)
def _(container: Container, world: World, status: str, reason: str | None) -> None:
    _assert_shown(every_read(container, world.execution_id), status, reason or "")


@then(
    parsers.re(
        r'every read noted while it ran showed the redrive status "(?P<status>[A-Z_]+)"'
        r' with the reason "(?P<reason>[^"]*)"$'
    )
)
def _(shown_while_running: list[Shown], status: str, reason: str) -> None:
    assert len(shown_while_running) == 1, shown_while_running
    _assert_shown(shown_while_running[0], status, reason)


@given(
    parsers.parse(
        'Step Functions describes an ended execution as "{status}" with the reason "{reason}"'
    )
)
def _(stepfunctions: StepFunctions, status: str, reason: str) -> None:
    """moto's DescribeExecution answers no redriveStatus or redriveStatusReason: what Step
    Functions would add is put into moto's answer, so a read can only show it by having it
    from DescribeExecution (the local rules would call a freshly stopped run REDRIVABLE)."""

    def add(parsed: dict[str, Any], **_: Any) -> None:
        if parsed.get("status") not in (None, "RUNNING"):
            parsed["redriveStatus"], parsed["redriveStatusReason"] = status, reason

    stepfunctions.client.meta.events.register(
        "after-call.sfn.DescribeExecution", add, unique_id="features-redrive-status"
    )


def _cli_json(storage: str, tmp_path: Path, *arguments: str) -> Any:
    """`wfx ... --json` in-process, on the scenario's store (a container of its own)."""
    from tests.cli_in_process import invoke_wfx

    environment = {
        "WFX_STORE": storage,
        "WFX_HOME": str(tmp_path / "home"),
        "WFX_DB": str(tmp_path / "wfx.db"),
        "WFX_USER": "alice",
    }
    outcome = invoke_wfx([*arguments, "--json"], env=environment)
    assert outcome.exit_code == 0, outcome.output
    return json.loads(outcome.stdout)


def _http_json(container: Container, path: str) -> Any:
    from entrypoints.http.app import create_app
    from entrypoints.http.identity import verified_by

    token = container.token_issuer().issue("alice", timedelta(minutes=5), ("admin",))
    app = create_app(container, verified_by(container.token_verifier()))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get(path, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _listed(page: dict[str, Any], execution_id: str) -> dict[str, Any]:
    (found,) = [e for e in page["Items"] if e["workflowExecutionId"] == execution_id]
    return dict(found)


@then(
    parsers.parse(
        'the command line and HTTP show and list give the redrive status "{status}" with the '
        'reason "{reason}"'
    )
)
def _(
    container: Container, storage: str, tmp_path: Path, world: World, status: str, reason: str
) -> None:
    execution_id = world.execution_id
    shown = {
        "wfx executions show": _cli_json(storage, tmp_path, "executions", "show", execution_id),
        "wfx executions list": _listed(
            _cli_json(storage, tmp_path, "executions", "list"), execution_id
        ),
        "GET one execution": _http_json(container, f"/workflows/executions/{execution_id}")[
            "message"
        ],
        "GET the executions": _listed(
            _http_json(container, "/workflows/executions")["message"], execution_id
        ),
    }
    for read, execution in shown.items():
        said = (execution.get("redriveStatus"), execution.get("redriveStatusReason"))
        assert said == (status, reason), (read, execution)
