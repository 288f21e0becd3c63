"""ImportExecutions: write archived runs into the configured store, never over what is there."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from application.ports.migration import (
    ArchivedRun,
    KeptRun,
    RejectedRun,
    RunArchive,
    RunRefusedError,
)


class ImportExecutionsResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    runs: int = 0  # runs read whole from the archive and imported
    items_written: int = 0
    items_unchanged: int = 0  # already stored, equal: a second import writes nothing
    conflicts: tuple[str | KeptRun, ...] = ()  # already stored, different: kept as stored
    rejected: tuple[RejectedRun, ...] = ()


class ImportExecutions:
    """Import each well-formed run of an archive; a rejected run is reported, none of it written."""

    def __init__(self, archive: RunArchive) -> None:
        self._archive = archive

    def execute(self, runs: Iterable[ArchivedRun | RejectedRun]) -> ImportExecutionsResult:
        count = written = unchanged = 0
        conflicts: list[str | KeptRun] = []
        rejected: list[RejectedRun] = []
        for run in runs:
            if isinstance(run, RejectedRun):
                rejected.append(run)
                continue
            try:
                imported = self._archive.import_run(run)
            except RunRefusedError as refused:
                rejected.append(
                    RejectedRun(run.workflow_execution_id, refused.line, refused.message)
                )
                continue
            count += 1
            written += imported.written
            unchanged += imported.unchanged
            conflicts += imported.conflicts
        return ImportExecutionsResult(
            runs=count,
            items_written=written,
            items_unchanged=unchanged,
            conflicts=tuple(conflicts),
            rejected=tuple(rejected),
        )
