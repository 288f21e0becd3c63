"""Removing a folder tree, where only what is gone already is no error."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any


def remove_tree(folder: Path) -> None:
    """`shutil.rmtree`, where only what is gone already is no error: a file left behind is."""

    def gone_already(function: Any, path: str, error: Any) -> None:
        raised = error[1] if isinstance(error, tuple) else error
        if not isinstance(raised, FileNotFoundError):
            raise raised

    shutil.rmtree(folder, onerror=gone_already)
