"""Reads the Then steps share: one run's details, one of its steps, an asset's current files."""

from __future__ import annotations

from application.ports.files import AssetCatalog
from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from domain.assets import AssetFile, AssetRef
from domain.execution import ExecutionDetails, StepDetails
from entrypoints.container import Container


def details_of(container: Container, workflow_execution_id: str) -> ExecutionDetails:
    query = GetExecutionDetailsQuery(workflow_execution_id=workflow_execution_id)
    return container.get_execution_details().execute(query)


def step_named(details: ExecutionDetails, pipeline_id: str) -> StepDetails:
    found = [entry for entry in details.steps if entry.step.pipeline_id == pipeline_id]
    names = [entry.step.pipeline_id for entry in details.steps]
    assert len(found) == 1, f"expected one step {pipeline_id!r}, the run has {names}"
    return found[0]


def current_file(container: Container, reference: str) -> AssetFile:
    ref = AssetRef.parse(reference, "file")
    catalog: AssetCatalog = container.asset_catalog()
    files = catalog.list_files(ref.database_id, ref.asset_id)
    found = [f for f in files if f.file_key == ref.file_key]
    assert found, f"{reference} is not in the asset catalog: {[f.file_key for f in files]}"
    return found[0]
