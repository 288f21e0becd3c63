"""A launch writes VAMS's inputs table as VAMS 2.6 does, one row per selection, and keeps each
file it resolved, at its version, in wfx's own table: what the run's steps read, and what its
details show. On each store, through the real launch and the inline runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wfx_examples
import yaml

from adapters.tables import ResourceKeys
from application.ports.executions import AssetDirection
from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from tests.integration.stored_items import stored_items

MESH = Path(wfx_examples.__file__).parent / "mesh"
ROOT = "/assets/demo/scans/"


def test_a_folder_and_a_file_selected_are_two_rows_and_three_resolved_files(
    inline_container: Any,
) -> None:
    container = inline_container
    document = parse_workflow_document(yaml.safe_load((MESH / "workflow.yaml").read_text()))
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    mesh = MESH / "assets" / "icosphere.obj"
    imported = container.import_asset_files().execute(
        ImportAssetFilesCommand(
            database_id="demo",
            asset_id="scans",
            files=tuple(
                ImportedFile(file_key=key, path=mesh)
                for key in ("parts/a.obj", "parts/b.obj", "c.obj")
            ),
        )
    )
    versions = {f.file_key: f.version_id for f in imported}
    command = LaunchExecutionCommand(
        workflow_database_id="demo",
        workflow_id="mesh-report",
        inputs=("demo/scans/parts/", "demo/scans/c.obj"),
        output="demo/reports",
        user_id="alice",
    )
    run = container.launch_execution().execute(command).execution
    store = container.execution_store()
    assert store.get_execution(run.workflow_execution_id).status.value == "SUCCEEDED"

    selections = stored_items(container, ResourceKeys.WORKFLOW_EXECUTION_INPUTS)
    assert {
        (row["databaseId:assetId:inputAssetFileKey"], row["versionId"]) for row in selections
    } == {(f"demo:scans:{ROOT}parts/", ""), (f"demo:scans:{ROOT}c.obj", versions["c.obj"])}
    details = store.get_details(run.workflow_execution_id)
    assert {
        (row.input_asset_file_key, row.version_id, row.selection_key) for row in details.inputs
    } == {
        ("parts/a.obj", versions["parts/a.obj"], f"{ROOT}parts/"),
        ("parts/b.obj", versions["parts/b.obj"], f"{ROOT}parts/"),
        ("c.obj", versions["c.obj"], f"{ROOT}c.obj"),
    }
    # the run is found by its input asset through VAMS's index, once
    refs = store.asset_execution_refs("demo:scans", AssetDirection.INPUT, None, 10)
    assert [ref.workflow_execution_id for ref in refs] == [run.workflow_execution_id]
