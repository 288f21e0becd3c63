"""ReadAssetInputKeys: what VAMS's asset list shows beside each run of an asset, its
`inputAssetFileKey`: the asset's selection the run read (its first by key), "" for a run that
only wrote the asset. One row read per run, the first of the asset's rows by sort key."""

from __future__ import annotations

from collections.abc import Sequence

from application.ports.executions import ExecutionQueries, RowCollection
from domain.authorization import AssetKey
from domain.execution import ExecutionInput


class ReadAssetInputKeys:
    def __init__(self, store: ExecutionQueries) -> None:
        self._store = store

    def execute(self, asset: AssetKey, workflow_execution_ids: Sequence[str]) -> dict[str, str]:
        # an input's sort key is databaseId:assetId:inputAssetFileKey: the asset's rows follow
        # this prefix (another asset's may, too, when its id merely starts with this one's)
        prefix = f"{asset.database_id}:{asset.asset_id}:"
        keys = {}
        for run in workflow_execution_ids:
            rows = self._store.list_rows(RowCollection.INPUTS, run, prefix, 1)
            row = rows[0] if rows else None
            if isinstance(row, ExecutionInput) and row.row_key.startswith(prefix):
                keys[run] = row.selection_key or row.input_asset_file_key
            else:
                keys[run] = ""
        return keys
