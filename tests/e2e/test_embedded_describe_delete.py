"""The library API's describe and delete: a run launched through `wfx.open_application`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import wfx
from tests.e2e.cli import TRIVIAL_WORKFLOW
from wfx.responses import DeleteResponse, DescribeResponse


def test_an_embedding_backend_describes_then_deletes_a_run(tmp_path: Path) -> None:
    app = wfx.open_application({"WFX_HOME": str(tmp_path)}, runner_mode="inline")
    app.create_tables()
    version = app.publish(yaml.safe_load(TRIVIAL_WORKFLOW.read_text())).version
    launched = app.launch(
        wfx.LaunchExecutionCommand(
            workflow_database_id=version.database_id, workflow_id=version.workflow_id, user_id="b"
        )
    )
    execution_id = launched.execution.workflow_execution_id

    described = DescribeResponse.of(app.describe(execution_id)).dump()
    deleted = DeleteResponse.of(
        app.delete(wfx.DeleteExecutionCommand(workflow_execution_id=execution_id))
    )

    assert (described["name"], described["status"]) == (execution_id, "SUCCEEDED")
    assert deleted.dump()["deleted"] is True
    with pytest.raises(wfx.NotFoundError):
        app.get(execution_id)
    again = app.delete(wfx.DeleteExecutionCommand(workflow_execution_id=execution_id))
    assert again.deleted is False


def test_an_embedding_backend_reruns_a_run_that_ended(tmp_path: Path) -> None:
    app = wfx.open_application({"WFX_HOME": str(tmp_path)}, runner_mode="inline")
    app.create_tables()
    version = app.publish(yaml.safe_load(TRIVIAL_WORKFLOW.read_text())).version
    first = app.launch(
        wfx.LaunchExecutionCommand(
            workflow_database_id=version.database_id, workflow_id=version.workflow_id, user_id="b"
        )
    ).execution.workflow_execution_id

    rerun = app.rerun(wfx.RerunExecutionCommand(workflow_execution_id=first, user_id="c"))

    assert rerun.created
    assert rerun.execution.workflow_execution_id != first
    again = app.get(rerun.execution.workflow_execution_id)
    assert (again.status, again.rerun_of_execution_id) == (wfx.ExecutionStatus.SUCCEEDED, first)
    assert again.triggered_by_user_id == "c"


def test_waiting_for_a_run_that_is_not_there_raises_not_found_as_get_does(
    tmp_path: Path,
) -> None:
    app = wfx.open_application({"WFX_HOME": str(tmp_path)}, runner_mode="thread")
    app.create_tables()

    for unknown in ("0" * 32, "unknown-id"):
        with pytest.raises(wfx.NotFoundError, match=unknown):
            app.wait(unknown, timeout=5)
