"""A run log too big for a DynamoDB item: the row keeps the tail, the object store the whole log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers

from adapters.records import build_execution_record
from application.use_cases.complete_execution import MAX_STORED_LOG_BYTES
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from entrypoints.container import Container, build_container, create_all_tables
from entrypoints.settings import Settings

LOUD_WORKFLOW: dict[str, Any] = {
    "databaseId": "db",
    "workflowId": "loud",
    "steps": [
        {
            "pipelineId": "chatty",
            "executionType": "command",
            # 300,000 characters, then a last line that must survive in the row's tail
            "command": ["{python}", "-c", "print('x' * 300_000); print('the end')"],
            "inputFileArity": "none",
        }
    ],
}


@pytest.fixture(params=["sqlite", "dynamodb"])
def container(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Container]:
    settings = Settings(
        store=request.param,
        home=tmp_path,
        sqlite_path=tmp_path / "wfx.db",
        dynamodb_endpoint=None,
        region="us-east-1",
        user="alice",
    )
    container = build_container(settings, runner_mode="inline")
    if request.param == "dynamodb":
        client: Any = request.getfixturevalue("moto_dynamodb_client")
        container.dynamodb_client.override(providers.Object(client))
    create_all_tables(container)
    yield container


def test_the_row_keeps_the_tail_and_the_object_store_the_whole_log(container: Container) -> None:
    document = parse_workflow_document(LOUD_WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(workflow_database_id="db", workflow_id="loud", user_id="alice")
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    stored = container.execution_store().get_execution(execution_id)
    assert stored.status == "SUCCEEDED"
    assert stored.execution_log is not None
    assert len(stored.execution_log.encode()) <= MAX_STORED_LOG_BYTES
    assert stored.execution_log.rstrip().endswith("the end")
    assert build_execution_record(stored)["executionLogTruncated"] is True

    key = stored.execution_log_object_key
    assert key is not None and not key.startswith(f"executions/{execution_id}/output/")
    objects = container.object_store()
    (latest,) = objects.list_latest(key)
    whole = objects.local_path(key, latest.version_id).read_text()
    assert whole.count("x") >= 300_000 and whole.endswith(stored.execution_log)


def test_a_small_log_is_kept_whole_on_the_row(container: Container) -> None:
    step = {**LOUD_WORKFLOW["steps"][0], "command": ["{python}", "-c", "print('hi')"]}
    quiet = {**LOUD_WORKFLOW, "workflowId": "quiet", "steps": [step]}
    document = parse_workflow_document(quiet)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(
        workflow_database_id="db", workflow_id="quiet", user_id="alice"
    )
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    stored = container.execution_store().get_execution(execution_id)
    assert stored.execution_log is not None and "hi" in stored.execution_log
    assert stored.execution_log_object_key is None
    assert "executionLogTruncated" not in build_execution_record(stored)
