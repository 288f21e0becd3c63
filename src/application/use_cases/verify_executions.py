"""VerifyExecutions: compare archived runs with the configured store, item by item."""

from __future__ import annotations

from collections.abc import Iterable

from application.ports.migration import ArchivedRun, RejectedRun, RunArchive


class VerifyExecutions:
    """Every item and body of the archive (the source) against the stored one; the differences."""

    def __init__(self, archive: RunArchive) -> None:
        self._archive = archive

    def execute(self, runs: Iterable[ArchivedRun | RejectedRun]) -> list[str]:
        differences: list[str] = []
        for run in runs:
            if isinstance(run, RejectedRun):
                differences.append(f"line {run.line}: run {run.workflow_execution_id} not imported")
                continue
            differences += self._archive.differences(run)
        return differences
