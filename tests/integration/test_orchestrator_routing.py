"""Calls about a run go to the orchestrator that started it, whatever the runner setting is now.

Step Functions is moto in-process: a run started there stays RUNNING (moto's default mode).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from dependency_injector import providers

from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.errors import ConflictError
from domain.statuses import ExecutionStatus
from entrypoints.container import Container, build_container, create_all_tables
from tests.home_settings import home_settings

LAMBDA_WORKFLOW = {
    "databaseId": "demo",
    "workflowId": "remote",
    "steps": [
        {
            "pipelineId": "convert",
            "executionType": "lambda",
            "functionName": "convert",
            "inputFileArity": "none",
        }
    ],
}
LOCAL_WORKFLOW = {
    "databaseId": "demo",
    "workflowId": "local",
    "steps": [
        {
            "pipelineId": "noop",
            "executionType": "python",
            "handler": "wfx_examples.trivial.steps:noop",
            "inputFileArity": "none",
        }
    ],
}


def _container(home: Path, runner: str) -> Container:
    settings = home_settings(home)
    return build_container(settings, runner_mode="inline", runner=runner)


@pytest.fixture
def home(tmp_path: Path, moto_dynamodb_client: Any) -> Iterator[Path]:
    """A SQLite home with one run on Step Functions (moto) and one finished local run."""
    on_aws = _container(tmp_path, "stepfunctions")
    create_all_tables(on_aws)
    for document in (LAMBDA_WORKFLOW, LOCAL_WORKFLOW):
        on_aws.publish_workflow_version().execute(
            PublishWorkflowVersionCommand(document=parse_workflow_document(document))
        )
    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    machine = sfn.create_state_machine(
        name="wfx-demo-remote-v1",
        definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
        roleArn="arn:aws:iam::123456789012:role/wfx",
    )
    on_aws.workflow_catalog().record_deployment("demo", "remote", 1, machine["stateMachineArn"])
    yield tmp_path


def _launch(container: Container, workflow_id: str) -> str:
    command = LaunchExecutionCommand(
        workflow_database_id="demo", workflow_id=workflow_id, user_id="alice"
    )
    return container.launch_execution().execute(command).execution.workflow_execution_id


def test_a_local_setup_still_asks_step_functions_about_a_run_that_went_there(home: Path) -> None:
    remote_id = _launch(_container(home, "stepfunctions"), "remote")

    local = _container(home, "local")
    row = local.execution_store().get_execution(remote_id)
    described = local.orchestrator().describe_execution(row)

    assert row.orchestrator == "stepfunctions" and row.execution_arn is not None
    assert described is not None and described.status is ExecutionStatus.RUNNING


def test_a_step_functions_setup_asks_the_local_runner_about_a_local_run(home: Path) -> None:
    local_id = _launch(_container(home, "local"), "local")

    on_aws = _container(home, "stepfunctions")
    row = on_aws.execution_store().get_execution(local_id)
    # The local runner knows nothing live about a finished run; Step Functions would be asked
    # for an execution it never had.
    assert row.status is ExecutionStatus.SUCCEEDED
    assert on_aws.orchestrator().describe_execution(row) is None


def test_a_run_on_an_orchestrator_this_wfx_cannot_reach_is_refused(home: Path) -> None:
    local = _container(home, "local")
    local_id = _launch(local, "local")
    row = (
        local.execution_store().get_execution(local_id).model_copy(update={"orchestrator": "argo"})
    )
    with pytest.raises(ConflictError, match="'argo'"):
        local.orchestrator().describe_execution(row)


class _Clock:
    """A clock the test moves (the Clock port)."""

    def __init__(self) -> None:
        self.moment = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self.moment


def test_a_local_setup_reconciles_a_step_functions_run_stopped_out_of_band(home: Path) -> None:
    clock = _Clock()
    on_aws = _container(home, "stepfunctions")
    on_aws.clock.override(providers.Object(clock))
    remote_id = _launch(on_aws, "remote")
    arn = on_aws.execution_store().get_execution(remote_id).execution_arn

    local = _container(home, "local")
    local.clock.override(providers.Object(clock))
    read = local.get_execution()
    first = read.execute(GetExecutionQuery(workflow_execution_id=remote_id))  # asks, stamps
    assert first.status is ExecutionStatus.RUNNING and first.last_sfn_sync_check_date is not None
    boto3.client("stepfunctions", region_name="us-east-1").stop_execution(executionArn=arn)
    clock.moment += timedelta(seconds=10)
    assert read.execute(GetExecutionQuery(workflow_execution_id=remote_id)).status == "RUNNING"
    clock.moment += timedelta(seconds=31)
    reconciled = read.execute(GetExecutionQuery(workflow_execution_id=remote_id))
    assert reconciled.status is ExecutionStatus.ABORTED
    assert local.execution_store().get_execution(remote_id).execution_stop_date is not None
