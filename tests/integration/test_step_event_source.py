"""A launch records on each step row the source its pipeline registers under (VAMS's
orchestrationBusEventPrefix): `{eventSourcePrefix}.execution.{executionId}.pipeline.{stepId}`,
with the deployment's prefix. Through the whole application, on both stores."""

from __future__ import annotations

import pytest

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.registration import source_ids
from entrypoints.container import Container

WORKFLOW = {
    "databaseId": "db",
    "workflowId": "two-steps",
    "steps": [
        {
            "pipelineId": name,
            "executionType": "command",
            "command": ["{python}", "-c", "pass"],
            "inputFileArity": "none",
        }
        for name in ("first", "second")
    ],
}


def _launch(container: Container) -> str:
    document = parse_workflow_document(WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    launched = container.launch_execution().execute(
        LaunchExecutionCommand(workflow_database_id="db", workflow_id="two-steps", user_id="alice")
    )
    return launched.execution.workflow_execution_id


@pytest.mark.parametrize("prefix", ["wfx", "acme.prod"])
def test_each_step_row_names_the_source_its_pipeline_registers_under(
    inline_container: Container, prefix: str
) -> None:
    inline_container.config.event_source_prefix.from_value(prefix)
    execution_id = _launch(inline_container)

    steps = inline_container.execution_store().list_steps(execution_id)

    assert len(steps) == 2
    for step in steps:
        source = step.orchestration_bus_event_prefix
        assert source.startswith(f"{prefix}.execution.")
        assert source_ids(source) == (execution_id, step.pipeline_execution_id)
