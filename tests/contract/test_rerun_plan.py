"""What a rerun launches, read from rows exactly as VAMS 2.6 writes them (no wfx `inputSelections`:
the selections come from VAMS's input rows, one per selection, keys bucket-relative with one
leading `/`), on every store; a run that has not ended is refused."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from adapters.system import SystemClock
from application.use_cases.get_execution import GetExecution
from application.use_cases.rerun_execution import (
    RerunExecution,
    RerunExecutionCommand,
)
from domain.errors import ExecutionBeingDeletedError, RerunNotAllowedError
from domain.run_write import RunWrite
from tests import vams_items as vams
from tests.contract.conftest import BACKENDS
from tests.contract.test_vams_rows import _store_with


def _rerun(store: Any) -> RerunExecution:
    # plan() never launches: the launch use case is not reached
    return RerunExecution(GetExecution(store, clock=SystemClock()), store, launch=None)  # type: ignore[arg-type]


@pytest.fixture(params=BACKENDS)
def finished(request: pytest.FixtureRequest) -> Any:
    return _store_with(request, vams.vams_run("FAILED", ("SUCCEEDED", "FAILED", "NEW")))


@pytest.fixture(params=BACKENDS)
def running(request: pytest.FixtureRequest) -> Any:
    return _store_with(request, vams.vams_run("RUNNING", ("SUCCEEDED", "RUNNING", "NEW")))


def test_a_vams_run_is_rerun_with_its_selections_and_output_asset(finished: Any) -> None:
    command = RerunExecutionCommand(
        workflow_execution_id=vams.EXECUTION_ID, execution_group_id="retry-1", user_id="bob"
    )

    launch = _rerun(finished).plan(command)

    database, asset = vams.INPUT_ASSET
    assert (launch.workflow_database_id, launch.workflow_id) == vams.WORKFLOW
    assert launch.workflow_version is None  # the latest, as VAMS runs a workflow as it is now
    assert launch.inputs == (f"{database}/{asset}/bunny.obj", f"{database}/{asset}/meshes/")
    assert launch.output == "/".join(vams.OUTPUT_ASSET)
    assert launch.execution_group_id == "retry-1"  # the caller's, not the run's `nightly`
    assert (launch.trigger, launch.user_id) == ("manual", "bob")
    assert launch.rerun_of_execution_id == vams.EXECUTION_ID


def test_a_run_that_has_not_ended_is_not_rerun(running: Any) -> None:
    command = RerunExecutionCommand(workflow_execution_id=vams.EXECUTION_ID, user_id="bob")

    with pytest.raises(RerunNotAllowedError, match="is RUNNING: only an execution that has ended"):
        _rerun(running).plan(command)


def test_a_run_being_deleted_is_not_rerun(finished: Any) -> None:
    """Its delete began (and was cut short): the rows a rerun rebuilds from may be half gone."""
    run = finished.get_run(vams.EXECUTION_ID)
    change = run.begin_delete(datetime(2026, 12, 5, tzinfo=UTC))
    assert change is not None and finished.commit(RunWrite.of(vams.EXECUTION_ID, change=change))
    command = RerunExecutionCommand(workflow_execution_id=vams.EXECUTION_ID, user_id="bob")

    with pytest.raises(ExecutionBeingDeletedError, match="is being deleted"):
        _rerun(finished).plan(command)
