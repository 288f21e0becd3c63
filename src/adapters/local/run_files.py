"""The files a local run leaves under WFX_HOME: `runs/<id>/`, `runs/<id>.json`, `outputs/<id>/`
and `logs/<id>/`."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from adapters.local.removal import remove_tree

_FOLDERS = ("runs", "outputs", "logs")  # each holds one folder a run, named by its id
RUNNER_RECORD = "runs/{}.json"  # beside the run's folder (adapters/local/supervisor.py)


class LocalRunFiles:
    """Removes a run's folders (the runner's records, its output folder, its step logs) and
    its runner record."""

    def __init__(self, home: Path) -> None:
        self._home = Path(home)

    def remove(self, workflow_execution_id: str) -> None:
        segment = _segment(workflow_execution_id)
        for root in _FOLDERS:
            folder = self._home / root / segment
            if folder.is_symlink():
                folder.unlink()  # a link put in its place: the link goes, never what it names
            else:
                remove_tree(folder)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._home / RUNNER_RECORD.format(segment))  # a link itself, if one


def _segment(workflow_execution_id: str) -> str:
    # the id becomes a path segment: refuse anything that could name a folder outside the root
    if workflow_execution_id in ("", ".", "..") or any(c in workflow_execution_id for c in "/\\\0"):
        raise ValueError(f"execution id {workflow_execution_id!r}: must be a single path segment")
    return workflow_execution_id
