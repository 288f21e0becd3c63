"""A step that prints secrets and fails with one: no stored field and no printed line holds it."""

from __future__ import annotations

import json

import pytest

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from entrypoints.container import Container
from entrypoints.vams_details import VamsExecutionDetails

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


@pytest.fixture
def container(inline_container: Container) -> Container:
    return inline_container


def test_no_stored_or_shown_field_holds_a_secret_the_step_printed(
    container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAK_SECRET", SECRET_KEY)
    monkeypatch.setenv("LEAK_KEY", ACCESS_KEY)
    monkeypatch.setenv("LEAK_PASSWORD", PASSWORD)
    # a step gets only what the operator passes on to it (as a real deployment's secrets)
    monkeypatch.setenv("WFX_STEP_ENV", "LEAK_SECRET LEAK_KEY LEAK_PASSWORD")
    document = parse_workflow_document(WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    command = LaunchExecutionCommand(
        workflow_database_id="db", workflow_id="leaky", user_id="alice"
    )
    execution_id = container.launch_execution().execute(command).execution.workflow_execution_id

    details = container.execution_store().get_details(execution_id)
    assert details.execution.status == "FAILED"
    shown = json.dumps(VamsExecutionDetails.of(details).dump())
    stored = json.dumps(
        [details.execution.model_dump(mode="json")]
        + [entry.model_dump(mode="json") for entry in details.steps]
    )
    for text in (shown, stored):
        for secret in (SECRET_KEY, ACCESS_KEY, PASSWORD):
            assert secret not in text
    assert "exit code 3" in (details.execution.execution_error or "")
    assert "[REDACTED]" in (details.execution.execution_log or "")


def test_a_secret_written_into_a_command_is_stored_redacted_and_said_so(
    container: Container,
) -> None:
    url = "postgres://admin:" + "s3cr3t-in-the-file" + "@db/x"
    step = {
        "pipelineId": "leak",
        "executionType": "command",
        "command": ["{python}", "-c", f"print({url!r})"],
        "inputFileArity": "none",
    }
    document = parse_workflow_document({**WORKFLOW, "workflowId": "inline", "steps": [step]})

    published = container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=document)
    )
    stored = container.workflow_catalog().get_version("db", "inline", published.version.version)

    assert stored.steps[0].command == (
        "{python}",
        "-c",
        "print('postgres://admin:[REDACTED]@db/x')",
    )
    (warning,) = published.warnings
    assert warning.startswith("steps[0] leak: its command holds a secret")
    assert "s3cr3t" not in warning
