"""ExportExecutions: every run of the store, with all its items, as store-neutral archives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import AwareDatetime, BaseModel, ConfigDict

from application.ports.migration import ArchivedItem, ArchivedRun, ListedRuns, RunArchive
from domain.errors import ExecutionNotFoundError


class ExportExecutionsCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    since: AwareDatetime | None = None  # runs started at or after it; None: every run


@dataclass
class ExportedRuns:
    """The runs to export: their ids walked a page at a time and each run read one at a time,
    memory bounded by a page and a run, not by the store."""

    _listed: ListedRuns
    _archive: RunArchive
    total: int | None = None  # once counted
    _seen: set[str] = field(default_factory=set)

    def count(self) -> int:
        """How many runs the export holds (kept as `total`): one more read of the run list, for
        a progress bar. It may miss a run that came or went after the count (see RunArchive)."""
        if self.total is None:
            self.total = self._listed.count()
        return self.total

    def __iter__(self) -> Iterator[ArchivedRun]:
        for run_id in self._listed.ids:
            try:
                run = self._archive.export_run(run_id)
            except ExecutionNotFoundError:
                continue  # deleted since it was listed: there is nothing left to move
            # a definition or an asset's files are named by many runs: carried once, with the
            # first (an import writes them before that run's main row, so before any of them)
            yield ArchivedRun(
                run.workflow_execution_id,
                tuple(item for item in run.items if self._first_time(item)),
                run.bodies,
            )

    def _first_time(self, archived: ArchivedItem) -> bool:
        if not archived.shared:
            return True
        identity = f"{archived.table} {json.dumps(archived.item, sort_keys=True)}"
        if identity in self._seen:
            return False
        self._seen.add(identity)
        return True


class ExportExecutions:
    """Read every run of the configured store, for `wfx export`."""

    def __init__(self, archive: RunArchive) -> None:
        self._archive = archive

    def execute(self, command: ExportExecutionsCommand) -> ExportedRuns:
        since: datetime | None = command.since
        return ExportedRuns(self._archive.list_runs(since), self._archive)
