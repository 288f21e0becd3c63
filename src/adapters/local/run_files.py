"""The files a local run leaves under WFX_HOME: `runs/<id>/` and `logs/<id>/`."""

from __future__ import annotations

from pathlib import Path

from adapters.local.removal import remove_tree


class LocalRunFiles:
    """Removes a run's folder (the runner's records and its output folder) and its step logs."""

    def __init__(self, runs: Path, logs: Path) -> None:
        self._roots = (Path(runs), Path(logs))

    def remove(self, workflow_execution_id: str) -> None:
        segment = _segment(workflow_execution_id)
        for root in self._roots:
            folder = root / segment
            if folder.is_symlink():
                folder.unlink()  # a link put in its place: the link goes, never what it names
            else:
                remove_tree(folder)


def _segment(workflow_execution_id: str) -> str:
    # the id becomes a path segment: refuse anything that could name a folder outside the root
    if workflow_execution_id in ("", ".", "..") or any(c in workflow_execution_id for c in "/\\\0"):
        raise ValueError(f"execution id {workflow_execution_id!r}: must be a single path segment")
    return workflow_execution_id
