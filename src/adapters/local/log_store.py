"""Step and run logs as plain files on the local filesystem."""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from application.ports.files import StepLogTap

LOG_SUFFIX = ".log"
# Step logs in the order they were first handed out: file times are too coarse to order a fast run.
_ORDER_FILE = ".order"
_PIECE_CHARACTERS = 256 * 1024  # what a reader of a huge log holds of it at a time


def run_log_header(pipeline_execution_id: str) -> str:
    return f"===== pipeline execution {pipeline_execution_id} ====="


class FileLogStore:
    """One file per step: `<root>/<workflowExecutionId>/<pipelineExecutionId>.log`."""

    def __init__(self, root: Path) -> None:
        self._root = Path(root)
        # the reads build their paths as str: every run's end reads its logs, and
        # pathlib's joins cost more than the listing of a folder that is not there
        self._root_name = os.fspath(root)
        self._handed_out: set[tuple[str, str]] = set()

    @property
    def root(self) -> Path:
        return self._root

    def step_log_path(self, workflow_execution_id: str, pipeline_execution_id: str) -> Path:
        folder = Path(self._run_folder(workflow_execution_id))
        path = folder / f"{_checked(pipeline_execution_id)}{LOG_SUFFIX}"
        pair = (workflow_execution_id, pipeline_execution_id)
        if pair not in self._handed_out:
            folder.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                with open(folder / _ORDER_FILE, "a", encoding="utf-8") as order:
                    order.write(f"{pipeline_execution_id}\n")
            self._handed_out.add(pair)
        return path

    def step_log_ids(self, workflow_execution_id: str) -> list[str]:
        """One listing of the run's folder, so a run whose steps wrote nothing costs one failed
        system call, not an open per step."""
        folder = self._run_folder(workflow_execution_id)
        try:
            with os.scandir(folder) as entries:
                return [
                    entry.name[: -len(LOG_SUFFIX)]
                    for entry in entries
                    if entry.name.endswith(LOG_SUFFIX) and entry.is_file()
                ]
        except FileNotFoundError:
            return []

    def step_log_pieces(
        self, workflow_execution_id: str, pipeline_execution_id: str
    ) -> Iterator[str]:
        folder = self._run_folder(workflow_execution_id)
        file = _opened(f"{folder}{os.sep}{_checked(pipeline_execution_id)}{LOG_SUFFIX}")
        if file is not None:
            with file:
                yield from iter(partial(file.read, _PIECE_CHARACTERS), "")

    def run_log_pieces(
        self, workflow_execution_id: str, tap: StepLogTap | None = None
    ) -> Iterator[str]:
        """Every step log of the run, oldest first, each under a header naming its step and
        ending in a line break, a piece at a time (each step log's through `tap`)."""
        folder = self._run_folder(workflow_execution_id)
        steps = _steps_in_order(folder)
        if tap is not None:
            tap.listed(steps)
        for pipeline_execution_id in steps:
            file = _opened(f"{folder}{os.sep}{pipeline_execution_id}{LOG_SUFFIX}")
            if file is None:
                continue
            with file:
                yield f"{run_log_header(pipeline_execution_id)}\n"
                last = "\n"
                pieces = iter(partial(file.read, _PIECE_CHARACTERS), "")
                for piece in pieces if tap is None else tap(pipeline_execution_id, pieces):
                    last = piece[-1]
                    yield piece
                if last != "\n":
                    yield "\n"

    def _run_folder(self, workflow_execution_id: str) -> str:
        return f"{self._root_name}{os.sep}{_checked(workflow_execution_id)}"


def _steps_in_order(folder: str) -> list[str]:
    # listed first: a run whose steps wrote nothing has no folder, and no order file to open
    try:
        with os.scandir(folder) as entries:
            present = {
                entry.name[: -len(LOG_SUFFIX)]: entry.stat().st_mtime_ns
                for entry in entries
                if entry.name.endswith(LOG_SUFFIX) and entry.is_file()
            }
    except FileNotFoundError:
        return []
    if not present:
        return []
    # read after the listing: a log's name is in the order file before the log is written
    recorded = (_read(f"{folder}{os.sep}{_ORDER_FILE}") or "").split()
    ordered = list(dict.fromkeys(step for step in recorded if step in present))
    known = set(ordered)
    # logs written by something other than this store: after the known ones, by modification time
    unknown = sorted((mtime, step) for step, mtime in present.items() if step not in known)
    return ordered + [step for _, step in unknown]


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except FileNotFoundError:
        return None


def _opened(path: str) -> TextIO | None:
    try:
        return open(path, encoding="utf-8", errors="replace")  # the caller closes it
    except FileNotFoundError:
        return None


def _checked(identifier: str) -> str:
    # ids become path segments: refuse anything that could leave the log folder
    if not identifier or "/" in identifier or "\\" in identifier or identifier in (".", ".."):
        raise ValueError(f"log id {identifier!r}: must be a single path segment")
    return identifier
