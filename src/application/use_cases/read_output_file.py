"""One output file of a step, at the version the run recorded, for a viewer to preview or a
caller to download: as a local file to stream, never as bytes in memory (a step's file may be
larger than the service's memory)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import StepRunStore
from application.ports.files import ObjectStore
from domain.errors import OutputFileNotFoundError, PipelineExecutionNotFoundError
from domain.execution import OutputFile


class OutputFileQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    pipeline_execution_id: str = Field(min_length=1)
    relative_file_path: str = Field(min_length=1)


class OutputFileBody(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    file: OutputFile
    path: Path  # a local file holding that version: the object store's own, or its copy


class ReadOutputFile:
    """A recorded output file, as a local file (the step's latest version of that path)."""

    def __init__(self, store: StepRunStore, objects: ObjectStore) -> None:
        self._store, self._objects = store, objects

    def execute(self, query: OutputFileQuery) -> OutputFileBody:
        step = self._store.get_step(query.pipeline_execution_id)
        if step.workflow_execution_id != query.workflow_execution_id:
            # a step of another run is not reachable through this one's (authorized) id
            raise PipelineExecutionNotFoundError(
                query.pipeline_execution_id, query.workflow_execution_id
            )
        where = f"{query.pipeline_execution_id}/{query.relative_file_path}"
        row = next(
            (
                row
                for row in self._store.list_output_files([step.pipeline_execution_id])
                if row.relative_file_path == query.relative_file_path
            ),
            None,
        )
        if row is None:
            raise OutputFileNotFoundError(f"output file {where} not found")
        try:
            path = self._objects.local_path(
                step.output_files_path + row.relative_file_path, row.version_id
            )
        except (FileNotFoundError, ValueError) as error:
            raise OutputFileNotFoundError(
                f"output file {where}: version {row.version_id} is no longer stored"
            ) from error
        return OutputFileBody(file=row, path=path)
