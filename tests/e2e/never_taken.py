"""A run of demo/trivial launched into a home's SQLite file and leased to a runner that never
takes it: a read once its lease is over finds the runner lost (wfx.RunnerLost)."""

from __future__ import annotations

from pathlib import Path

import yaml

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from entrypoints.container import Container, build_container, create_all_tables
from tests.e2e.cli import TRIVIAL_WORKFLOW
from tests.home_settings import home_settings


def launched_and_never_taken(home: Path, lease_seconds: float) -> tuple[str, Container]:
    """The run's id, and the container that launched it (its database still open)."""
    settings = home_settings(home, lease_seconds=lease_seconds)
    container = build_container(settings, runner_mode="inline")
    create_all_tables(container)
    document = parse_workflow_document(yaml.safe_load(TRIVIAL_WORKFLOW.read_text("utf-8")))
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    container.local_runner().start = lambda *_, **__: None
    command = LaunchExecutionCommand(
        workflow_database_id="demo", workflow_id="trivial", user_id="alice"
    )
    launched = container.launch_execution().execute(command)
    return launched.execution.workflow_execution_id, container
