"""A run with a Step Functions step (lambda, batch) is refused by the local runner before any
write, saying which runner to use."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from application.ports.executions import ListScope
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.errors import InvalidInputError
from entrypoints.container import Container, build_container, create_all_tables
from tests.home_settings import home_settings


@pytest.fixture
def container(tmp_path: Path) -> Iterator[Container]:
    home = tmp_path / "home"
    settings = home_settings(home, user="tester")
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
def test_a_step_functions_step_is_refused_by_the_local_runner_before_anything_is_written(
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

    expected = (
        f"steps[0] (remote): a {step['executionType']} step runs only on Step Functions "
        "(--runner stepfunctions)"
    )
    with pytest.raises(InvalidInputError) as refused:
        container.launch_execution().execute(
            LaunchExecutionCommand(
                workflow_database_id="demo", workflow_id="on-aws", user_id="tester"
            )
        )
    assert str(refused.value) == expected
    page = container.execution_store().list_executions(ListScope.ALL, None, 10, None)
    assert page.items == ()
