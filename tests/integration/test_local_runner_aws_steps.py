"""The local runner fails a Step Functions step (lambda, batch), saying where it runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import Container, build_container, create_all_tables
from entrypoints.settings import Settings


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    home = tmp_path / "home"
    settings = Settings(
        store="sqlite",
        home=home,
        sqlite_path=home / "wfx.db",
        dynamodb_endpoint=None,
        region="us-east-1",
        user="tester",
    )
    container = build_container(settings, runner_mode="inline", runner="local")
    create_all_tables(container)
    yield container
    container.sqlite_database().close()


@pytest.mark.parametrize(
    "step",
    [
        {"executionType": "lambda", "functionName": "mesh-convert"},
        {"executionType": "batch", "jobQueue": "q", "jobDefinition": "render:1"},
    ],
)
def test_a_step_functions_step_fails_on_the_local_runner_naming_the_runner_to_use(
    container: Container, step: dict[str, str]
) -> None:
    document = parse_workflow_document(
        {
            "databaseId": "demo",
            "workflowId": "on-aws",
            "steps": [{"pipelineId": "remote", "inputFileArity": "none", **step}],
        }
    )
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))

    launched = container.launch_execution().execute(
        LaunchExecutionCommand(workflow_database_id="demo", workflow_id="on-aws", user_id="tester")
    )

    execution_id = launched.execution.workflow_execution_id
    store = container.execution_store()
    (ran,) = store.list_steps(execution_id)
    expected = (
        f"remote: a {step['executionType']} step runs only on Step Functions "
        "(--runner stepfunctions)"
    )
    assert (ran.status, ran.error) == (StepStatus.FAILED, expected)
    assert store.get_execution(execution_id).status is ExecutionStatus.FAILED
