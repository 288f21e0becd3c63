"""The error handler Lambda, given the event the generated catch sends: the run's id, and at
`$.error` what the Catch caught (`{"Error": ..., "Cause": ...}`). Cold start on SQLite."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from application.ports.executions import ExecutionStore
from domain.errors import InvalidInputError
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import create_all_tables
from tests.contract.builders import a_launch, step_id, write_launch

EXECUTION_ID = "exec-9"


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


def test_the_caught_error_fails_the_run_and_its_running_step(handlers: ModuleType) -> None:
    handlers.track_step(
        {
            "action": "start",
            "workflowExecutionId": EXECUTION_ID,
            "pipelineExecutionId": step_id(EXECUTION_ID, 0),
        },
        None,
    )
    event = {
        "workflowExecutionId": EXECUTION_ID,
        "error": {"Error": "Lambda.Unknown", "Cause": "The function timed out."},
    }

    answer = handlers.handle_execution_error(event, None)

    assert answer == {"workflowExecutionId": EXECUTION_ID, "status": "FAILED", "warnings": []}
    execution = _store(handlers).get_execution(EXECUTION_ID)
    assert execution.status is ExecutionStatus.FAILED
    assert execution.execution_error == "Lambda.Unknown: The function timed out."
    steps = {s.step_index: s for s in _store(handlers).list_steps(EXECUTION_ID)}
    assert (steps[0].status, steps[1].status) == (StepStatus.FAILED, StepStatus.NEW)


def test_a_second_delivery_of_the_error_changes_nothing(handlers: ModuleType) -> None:
    event = {"workflowExecutionId": EXECUTION_ID, "error": {"Error": "States.Timeout"}}
    handlers.handle_execution_error(event, None)
    before = _store(handlers).get_execution(EXECUTION_ID)

    again = handlers.handle_execution_error(
        {"workflowExecutionId": EXECUTION_ID, "error": {"Error": "Other", "Cause": "late"}}, None
    )

    assert again["status"] == "FAILED"
    assert _store(handlers).get_execution(EXECUTION_ID) == before
    assert before.execution_error == "States.Timeout"


def test_an_event_without_the_execution_id_is_refused(handlers: ModuleType) -> None:
    with pytest.raises(InvalidInputError, match="workflowExecutionId: required"):
        handlers.handle_execution_error({"error": {"Error": "E"}}, None)
