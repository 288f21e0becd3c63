"""A step that prints secrets and fails with one: no stored field and no printed line holds it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from entrypoints.cli.render import details_json
from entrypoints.container import Container, build_container, create_all_tables
from entrypoints.settings import Settings

SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
PASSWORD = "hunter2-correct-horse"
# The secrets come from the environment, as they would in a real step: the command is clean.
LEAKY = (
    "import os, sys; e = os.environ; "
    "print('aws_secret_access_key=' + e['LEAK_SECRET']); "
    "sys.stderr.write('login failed for ' + e['LEAK_KEY'] + ' password=' + e['LEAK_PASSWORD']); "
    "sys.exit(3)"
)
WORKFLOW = {
    "databaseId": "db",
    "workflowId": "leaky",
    "steps": [
        {
            "pipelineId": "leak",
            "executionType": "command",
            "command": ["{python}", "-c", LEAKY],
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


def test_no_stored_or_shown_field_holds_a_secret_the_step_printed(
    container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAK_SECRET", SECRET_KEY)
    monkeypatch.setenv("LEAK_KEY", ACCESS_KEY)
    monkeypatch.setenv("LEAK_PASSWORD", PASSWORD)
    document = parse_workflow_document(WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(
        workflow_database_id="db", workflow_id="leaky", user_id="alice"
    )
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    details = container.execution_store().get_details(execution_id)
    assert details.execution.status == "FAILED"
    shown = json.dumps(details_json(details))
    stored = json.dumps(
        [details.execution.model_dump(mode="json")]
        + [entry.model_dump(mode="json") for entry in details.steps]
    )
    for text in (shown, stored):
        for secret in (SECRET_KEY, ACCESS_KEY, PASSWORD):
            assert secret not in text
    assert "exit code 3" in (details.execution.execution_error or "")
    assert "[REDACTED]" in (details.execution.execution_log or "")
