"""ReadOutputTargets: where each listed run writes, as VAMS's list rows say it
(`outputLocationType`, `outputDatabaseId`, `outputAssetId`).

The output target is on the run's configuration row, which authorization reads for every page
anyway (the asset a run writes is one it is authorized on), so the same cached facts answer it:
a page already checked costs no second query.
"""

from __future__ import annotations

from collections.abc import Sequence

from application.authorization import AccessFactsCache
from application.ports.executions import ExecutionQueries
from domain.authorization import AssetKey


class ReadOutputTargets:
    def __init__(self, store: ExecutionQueries, facts: AccessFactsCache) -> None:
        self._store, self._facts = store, facts

    def execute(self, workflow_execution_ids: Sequence[str]) -> dict[str, AssetKey | None]:
        """The asset each run writes, None for a results-only run; a run with no main row is
        absent."""
        found = self._facts.get(self._store, workflow_execution_ids)
        return {run: facts.written_asset for run, (facts, _) in found.items()}
