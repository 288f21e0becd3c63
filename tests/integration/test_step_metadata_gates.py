"""Seed 000: a launch writes each step's InputMetadata rows "narrowed to that step's own
effective metadataInputs gate and to its own input entities". Launched through the whole
application on both stores (`inline_container`), read back as the details give them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.execution import ExecutionDetails
from entrypoints.container import Container

METADATA = (("author", "ann"), ("license", "cc-by"), ("scanner", "lidar-2"))


def _step(pipeline_id: str, arity: str, metadata_inputs: list[str]) -> dict[str, object]:
    return {
        "pipelineId": pipeline_id,
        "executionType": "command",
        "command": ["{python}", "-c", "pass"],
        "inputFileArity": arity,
        "metadataInputs": metadata_inputs,
    }


WORKFLOW = {
    "databaseId": "db",
    "workflowId": "gated",
    "steps": [
        _step("survey", "many", ["author", "license", "scanner"]),
        _step("licence-check", "many", ["license"]),  # narrower than the step before it
        _step("summary", "none", ["author"]),  # a gate, but no input entities of its own
    ],
}


@pytest.fixture
def details(inline_container: Container, tmp_path: Path) -> ExecutionDetails:
    container = inline_container
    document = parse_workflow_document(WORKFLOW)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    files = []
    for name in ("a.obj", "b.obj"):
        (tmp_path / name).write_text(name)
        files.append(ImportedFile(file_key=name, path=tmp_path / name))
    container.import_asset_files().execute(
        ImportAssetFilesCommand(
            database_id="db", asset_id="scans", files=tuple(files), metadata=METADATA
        )
    )
    launched = container.launch_execution().execute(
        LaunchExecutionCommand(
            workflow_database_id="db", workflow_id="gated", inputs=("db/scans",), user_id="alice"
        )
    )
    found: ExecutionDetails = container.execution_store().get_details(
        launched.execution.workflow_execution_id
    )
    return found


def _rows(details: ExecutionDetails, pipeline_id: str) -> dict[str, dict[str, str]]:
    (entry,) = [e for e in details.steps if e.step.pipeline_id == pipeline_id]
    return {row.file_path: dict(row.metadata) for row in entry.input_metadata}


def test_each_step_holds_only_the_metadata_its_own_gate_allows(details: ExecutionDetails) -> None:
    assert details.execution.status.value == "SUCCEEDED"
    assert _rows(details, "survey") == {
        "/a.obj": dict(METADATA),
        "/b.obj": dict(METADATA),
    }
    assert _rows(details, "licence-check") == {
        "/a.obj": {"license": "cc-by"},
        "/b.obj": {"license": "cc-by"},
    }


def test_a_step_with_no_input_entities_of_its_own_gets_no_metadata(
    details: ExecutionDetails,
) -> None:
    assert _rows(details, "summary") == {}
