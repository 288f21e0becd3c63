"""The Lambda handlers a deployed state machine calls, given the events Step Functions sends.

Each event is the Payload of the generated Task (application/state_machines.py) with its paths
resolved, as `lambda:invoke` delivers it. The handler module is imported afresh (a cold start)
with a SQLite store in a temporary WFX_HOME.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from application.ports.executions import ExecutionStore
from domain.errors import ExecutionNotFoundError, InvalidInputError
from domain.run import RunIsStoppingError
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import create_all_tables
from tests.contract.builders import a_launch, step_id, write_change, write_launch

EXECUTION_ID = "exec-1"
FIRST, LAST = step_id(EXECUTION_ID, 0), step_id(EXECUTION_ID, 1)


@pytest.fixture
def handlers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    for name in ("WFX_STORE", "WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WFX_HOME", str(tmp_path / "home"))
    module = importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))
    create_all_tables(module.container)
    write_launch(module.container.execution_store(), a_launch(EXECUTION_ID, steps=2))
    yield module
    module.container.sqlite_database().close()


def _store(handlers: ModuleType) -> ExecutionStore:
    store: ExecutionStore = handlers.container.execution_store()
    return store


def _track(handlers: ModuleType, action: str, step: str, **extra: Any) -> dict[str, Any]:
    event = {"action": action, "workflowExecutionId": EXECUTION_ID, "pipelineExecutionId": step}
    result: dict[str, Any] = handlers.track_step(event | extra, None)
    return result


def test_the_handlers_take_a_run_from_its_first_step_to_its_completion(
    handlers: ModuleType,
) -> None:
    assert _track(handlers, "start", FIRST) == {
        "workflowExecutionId": EXECUTION_ID,
        "pipelineExecutionId": FIRST,
        "status": "RUNNING",
    }
    assert _track(handlers, "finish", FIRST, status="SUCCEEDED")["status"] == "SUCCEEDED"
    _track(handlers, "start", LAST)
    _track(handlers, "finish", LAST, status="SUCCEEDED")

    completed = handlers.complete_execution(
        {"workflowExecutionId": EXECUTION_ID, "status": "SUCCEEDED"}, None
    )

    assert completed == {"workflowExecutionId": EXECUTION_ID, "status": "SUCCEEDED"}
    store = _store(handlers)
    execution = store.get_execution(EXECUTION_ID)
    assert execution.status is ExecutionStatus.SUCCEEDED
    assert execution.execution_stop_date is not None
    steps = {step.pipeline_execution_id: step for step in store.list_steps(EXECUTION_ID)}
    assert {s.status for s in steps.values()} == {StepStatus.SUCCEEDED}
    assert all(s.start_date and s.stop_date for s in steps.values())


def test_a_start_delivered_twice_changes_nothing_the_second_time(handlers: ModuleType) -> None:
    _track(handlers, "start", FIRST)
    started = _store(handlers).get_step(FIRST)

    assert _track(handlers, "start", FIRST)["status"] == "RUNNING"
    assert _store(handlers).get_step(FIRST) == started


def test_a_step_finished_as_failed_keeps_its_error(handlers: ModuleType) -> None:
    _track(handlers, "start", FIRST)

    _track(handlers, "finish", FIRST, status="FAILED", error="MeshError: not a mesh")

    step = _store(handlers).get_step(FIRST)
    assert (step.status, step.error) == (StepStatus.FAILED, "MeshError: not a mesh")


@pytest.mark.parametrize(
    ("caught", "recorded"),
    [
        ({"Error": "MeshError", "Cause": "not a mesh"}, "MeshError: not a mesh"),
        ({"Error": "States.Timeout", "Cause": None}, "States.Timeout"),
    ],
)
def test_a_retry_closes_the_failed_attempt_with_the_caught_error_and_opens_the_next(
    handlers: ModuleType, caught: dict[str, Any], recorded: str
) -> None:
    _track(handlers, "start", FIRST)

    result = _track(handlers, "retry", FIRST, error=caught)

    assert result == {
        "workflowExecutionId": EXECUTION_ID,
        "pipelineExecutionId": FIRST,
        "attempt": 2,
    }
    attempts = _store(handlers).list_attempts([FIRST])
    assert [(a.attempt, a.status, a.error) for a in attempts] == [
        (1, StepStatus.FAILED, recorded),
        (2, StepStatus.RUNNING, None),
    ]
    assert _store(handlers).get_step(FIRST).status is StepStatus.RUNNING


def test_a_retry_of_a_finished_step_reopens_nothing(handlers: ModuleType) -> None:
    _track(handlers, "start", FIRST)
    _track(handlers, "finish", FIRST, status="SUCCEEDED")

    assert _track(handlers, "retry", FIRST, error={"Error": "Late"})["attempt"] is None
    assert [a.attempt for a in _store(handlers).list_attempts([FIRST])] == [1]
    assert _store(handlers).get_step(FIRST).status is StepStatus.SUCCEEDED


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        ({"action": "finish"}, "a finish event needs the step's terminal status"),
        ({"action": "start", "status": "SUCCEEDED"}, "a start event takes no status"),
        ({"action": "finish", "status": "RUNNING"}, "status"),
        ({"action": "retry", "status": "FAILED"}, "a retry event takes no status"),
        ({"action": "pause"}, "action"),
        ({"action": "start", "stepName": "x"}, "stepName"),
    ],
)
def test_a_malformed_tracking_event_is_refused_and_writes_nothing(
    handlers: ModuleType, event: dict[str, Any], problem: str
) -> None:
    ids = {"workflowExecutionId": EXECUTION_ID, "pipelineExecutionId": FIRST}
    with pytest.raises(InvalidInputError, match=problem):
        handlers.track_step(ids | event, None)
    assert _store(handlers).get_step(FIRST).status is StepStatus.NEW


def test_a_step_of_another_execution_is_not_found(handlers: ModuleType) -> None:
    """The error escapes: the state machine's Catch sends the run to HandleExecutionError. The
    run named is not there, and that is what is said (DynamoDB's adapter says the same)."""
    event = {"action": "start", "workflowExecutionId": "exec-2", "pipelineExecutionId": FIRST}
    with pytest.raises(ExecutionNotFoundError, match="execution exec-2 not found"):
        handlers.track_step(event, None)


def test_a_completion_without_a_terminal_status_is_refused(handlers: ModuleType) -> None:
    with pytest.raises(InvalidInputError, match="status"):
        handlers.complete_execution(
            {"workflowExecutionId": EXECUTION_ID, "status": "RUNNING"}, None
        )
    assert _store(handlers).get_execution(EXECUTION_ID).status is ExecutionStatus.RUNNING


# -- an abort under way: the handlers never turn it into SUCCEEDED or FAILED ------------------


def _request_abort(handlers: ModuleType) -> None:
    """What AbortExecution writes first; its stop of the state machine is still to come."""
    store = _store(handlers)
    change = store.get_run(EXECUTION_ID).request_abort(
        store.get_execution(EXECUTION_ID).execution_start_date, "alice aborted it"
    )
    assert change is not None and write_change(store, change) is not None


def test_a_task_that_succeeds_after_the_abort_request_is_recorded_aborted(
    handlers: ModuleType,
) -> None:
    """A `.sync` task whose child the abort stopped may still come back successful."""
    _track(handlers, "start", FIRST)
    _request_abort(handlers)

    finished = _track(handlers, "finish", FIRST, status="SUCCEEDED")

    assert finished["status"] == "ABORTED"
    step = _store(handlers).get_step(FIRST)
    assert step.error == "wfx.Aborted: alice aborted it"


def test_the_next_step_does_not_start_once_an_abort_is_requested(handlers: ModuleType) -> None:
    _track(handlers, "start", FIRST)
    _track(handlers, "finish", FIRST, status="SUCCEEDED")
    _request_abort(handlers)

    with pytest.raises(RunIsStoppingError, match="is being aborted: step pipe1 may not start"):
        _track(handlers, "start", LAST)  # it escapes: the state machine's Catch takes it

    assert _store(handlers).get_step(LAST).status is StepStatus.NEW
    assert _store(handlers).list_attempts([LAST]) == []


def test_a_task_failing_because_its_child_was_stopped_ends_the_run_aborted_not_failed(
    handlers: ModuleType,
) -> None:
    _track(handlers, "start", FIRST)
    _request_abort(handlers)

    result = handlers.handle_execution_error(
        {
            "workflowExecutionId": EXECUTION_ID,
            "error": {"Error": "States.TaskFailed", "Cause": "the child was stopped"},
        },
        None,
    )

    assert result["status"] == "ABORTED"
    store = _store(handlers)
    execution = store.get_execution(EXECUTION_ID)
    assert (execution.status, execution.execution_error, execution.abort_cause) == (
        ExecutionStatus.ABORTED,
        None,  # seed 000: an abort is no failure message
        "alice aborted it",
    )
    assert [s.status for s in store.list_steps(EXECUTION_ID)] == [
        StepStatus.ABORTED,
        StepStatus.ABORTED,
    ]


def test_a_completion_after_the_abort_request_does_not_write_succeeded(
    handlers: ModuleType,
) -> None:
    for step in (FIRST, LAST):
        _track(handlers, "start", step)
        _track(handlers, "finish", step, status="SUCCEEDED")
    _request_abort(handlers)

    completed = handlers.complete_execution(
        {"workflowExecutionId": EXECUTION_ID, "status": "SUCCEEDED"}, None
    )

    assert completed["status"] == "ABORTED"


# -- a refused event: its error is the Lambda's errorMessage, logged and stored as the run's cause


SECRET = "db password=hunter2-s3cr3t"


@pytest.mark.parametrize(
    ("handler", "event", "field"),
    [
        ("track_step", {"action": "start", "error": SECRET}, "status"),
        ("track_step", {"action": "finish", "status": "SUCCEEDED", "note": SECRET}, "note"),
        ("track_step", {"action": "finish", "status": SECRET}, "status"),
        ("complete_execution", {"status": "SUCCEEDED", "error": {"text": SECRET}}, "error"),
        ("handle_execution_error", {"error": SECRET}, "error"),
    ],
    ids=["start-with-error", "extra-field", "unknown-status", "error-an-object", "error-a-string"],
)
def test_a_refused_event_names_its_field_and_quotes_nothing_it_carries(
    handlers: ModuleType, handler: str, event: dict[str, Any], field: str
) -> None:
    ids = {"workflowExecutionId": EXECUTION_ID, "pipelineExecutionId": FIRST}
    if handler != "track_step":
        del ids["pipelineExecutionId"]
    with pytest.raises(InvalidInputError) as refused:
        getattr(handlers, handler)(ids | event, None)
    text = str(refused.value)
    assert field in text
    assert "hunter2" not in text and "\n" not in text, text
    assert _store(handlers).get_step(FIRST).status is StepStatus.NEW
    assert _store(handlers).get_execution(EXECUTION_ID).status is ExecutionStatus.RUNNING


@pytest.mark.parametrize("event", [None, [1], "start"], ids=["null", "a-list", "a-string"])
def test_an_event_that_is_no_object_is_refused_by_name(handlers: ModuleType, event: Any) -> None:
    with pytest.raises(InvalidInputError, match="track_step event: should be an object"):
        handlers.track_step(event, None)


LONG_ID = "x" * 1_000_000


@pytest.mark.parametrize(
    ("handler", "event", "field"),
    [
        ("track_step", {"action": "start", "workflowExecutionId": LONG_ID}, "workflowExecutionId"),
        ("track_step", {"action": "start", "pipelineExecutionId": LONG_ID}, "pipelineExecutionId"),
        ("track_step", {"action": "retry", "pipelineExecutionId": LONG_ID}, "pipelineExecutionId"),
        (
            "track_step",
            {"action": "gate", "pipelineExecutionId": LONG_ID, "taskToken": "token-1"},
            "pipelineExecutionId",
        ),
        (
            "complete_execution",
            {"workflowExecutionId": LONG_ID, "status": "SUCCEEDED"},
            "workflowExecutionId",
        ),
        ("handle_execution_error", {"workflowExecutionId": LONG_ID}, "workflowExecutionId"),
    ],
    ids=["start-run", "start-step", "retry-step", "gate-step", "complete", "error-handler"],
)
def test_an_id_longer_than_any_id_is_refused_by_name_without_being_quoted(
    handlers: ModuleType, handler: str, event: dict[str, Any], field: str
) -> None:
    """The error is the Lambda's errorMessage, logged and stored as the task's cause: an id of
    a megabyte is not repeated in it (an HTTP route bounds the same ids at 256 characters)."""
    ids = {"workflowExecutionId": EXECUTION_ID, "pipelineExecutionId": FIRST}
    if handler != "track_step":
        del ids["pipelineExecutionId"]
    with pytest.raises(InvalidInputError) as refused:
        getattr(handlers, handler)(ids | event, None)
    text = str(refused.value)
    assert field in text and "256" in text, text
    assert len(text) < 300, len(text)
    assert _store(handlers).get_step(FIRST).status is StepStatus.NEW
    assert _store(handlers).get_execution(EXECUTION_ID).status is ExecutionStatus.RUNNING
