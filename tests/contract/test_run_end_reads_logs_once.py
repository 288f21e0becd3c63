"""A run's end reads each step log once, and lists them once, on every store: the run log it
stores and each step's summary (its log's tail, or none) come from the same pass, on the last
step's finish (the local runner), on an end-state completion, and when a refused write is
decided again."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.local.log_store import FileLogStore, run_log_header
from adapters.local.object_store import FilesystemObjectStore
from adapters.sqlite.catalogs import SqliteAssetCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.system import SystemClock
from adapters.tables import TableNames
from application.ports.files import StepLogTap
from application.use_cases.complete_execution import (
    CompleteExecution,
    CompleteExecutionCommand,
    FinishLastStepCommand,
)
from domain.redaction import redact
from domain.run import first_start, plain_finish
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import a_launch, at, step_id, write_launch

FIRST, SECOND = step_id("e1", 0), step_id("e1", 1)
# longer than a summary's tail (4,000 characters) and than a piece the log store reads
_LOGS = {
    FIRST: "".join(f"first {n:06d} {'é' * 40}\n" for n in range(8_000)),
    SECOND: "".join(f"second {n:06d}\n" for n in range(30_000)) + "no line break",
}


class _CountingLogs:
    """The log store, counting the characters of step logs it gave out, however asked."""

    def __init__(self, logs: FileLogStore) -> None:
        self._logs = logs
        self.characters = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logs, name)

    def step_log_pieces(self, workflow_execution_id: str, step: str) -> Iterator[str]:
        return self._counted(step, self._logs.step_log_pieces(workflow_execution_id, step))

    def run_log_pieces(
        self, workflow_execution_id: str, tap: StepLogTap | None = None
    ) -> Iterator[str]:
        return self._logs.run_log_pieces(workflow_execution_id, _CountedTap(self, tap))

    def _counted(self, _: str, pieces: Iterator[str]) -> Iterator[str]:
        for piece in pieces:
            self.characters += len(piece)
            yield piece


class _CountedTap:
    """The run's end's tap, seeing the pieces after they are counted."""

    def __init__(self, logs: _CountingLogs, tap: StepLogTap | None) -> None:
        self._logs, self._tap = logs, tap

    def __call__(self, pipeline_execution_id: str, pieces: Iterator[str]) -> Iterator[str]:
        pieces = self._logs._counted(pipeline_execution_id, pieces)
        return pieces if self._tap is None else self._tap(pipeline_execution_id, pieces)

    def listed(self, pipeline_execution_ids: Collection[str]) -> None:
        if self._tap is not None:
            self._tap.listed(pipeline_execution_ids)


def _second_step_running(
    execution_store: Any, tmp_path: Path, logs: dict[str, str]
) -> FileLogStore:
    """Run e1's first step ended, its second running, each step in `logs` having written its
    log."""
    write_launch(execution_store, a_launch("e1", steps=2))
    moves = (first_start("e1", FIRST, at(1)),)
    assert execution_store.commit(RunWrite.of("e1", moves=moves))
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(2), 1)
    assert execution_store.commit(
        RunWrite.of("e1", moves=(finish, first_start("e1", SECOND, at(2))))
    )
    store = FileLogStore(tmp_path / "logs")
    for step, text in logs.items():
        store.step_log_path("e1", step).write_text(text, encoding="utf-8")
    return store


@pytest.fixture
def logs(execution_store: Any, tmp_path: Path) -> _CountingLogs:
    """Run e1's first step ended, its second running, each having written its log."""
    return _CountingLogs(_second_step_running(execution_store, tmp_path, _LOGS))


def _completion(store: Any, logs: Any, tmp_path: Path) -> CompleteExecution:
    objects = FilesystemObjectStore(tmp_path / "objects")
    assets = SqliteAssetCatalog(SqliteDatabase(None), TableNames())
    return CompleteExecution(store, objects, assets, logs, SystemClock())  # type: ignore[arg-type]


def _stored_as_read_whole(store: Any, tmp_path: Path) -> None:
    """The run log and each summary are what the whole logs make of them."""
    whole = "".join(
        f"{run_log_header(step)}\n{text}" + ("" if text.endswith("\n") else "\n")
        for step, text in _LOGS.items()
    )
    execution = store.get_execution("e1")
    key = execution.execution_log_object_key
    assert key is not None
    stored = FilesystemObjectStore(tmp_path / "objects").read_bytes(key)
    assert stored == redact(whole).encode("utf-8")
    summaries = {
        log.pipeline_execution_id: log.message
        for step in store.get_details("e1").steps
        for log in step.outputs.logs
    }
    assert summaries == {
        step: redact(f"pipe{index}: SUCCEEDED\n{text[-4000:]}")
        for index, (step, text) in enumerate(_LOGS.items())
    }


def test_the_last_step_s_finish_reads_each_step_log_once(
    execution_store: Any, logs: _CountingLogs, tmp_path: Path
) -> None:
    completion = _completion(execution_store, logs, tmp_path)
    command = FinishLastStepCommand(
        workflow_execution_id="e1", pipeline_execution_id=SECOND, attempt=1
    )
    finished = completion.finish_last_step(command)
    assert finished.execution.status is ExecutionStatus.SUCCEEDED
    assert logs.characters == sum(map(len, _LOGS.values()))
    _stored_as_read_whole(execution_store, tmp_path)


def test_an_end_state_completion_reads_each_step_log_once(
    execution_store: Any, logs: _CountingLogs, tmp_path: Path
) -> None:
    finish = plain_finish("e1", SECOND, StepStatus.SUCCEEDED, None, at(3), 1)
    assert execution_store.commit(RunWrite.of("e1", moves=(finish,)))
    completion = _completion(execution_store, logs, tmp_path)
    command = CompleteExecutionCommand(workflow_execution_id="e1", status="SUCCEEDED")
    assert completion.execute(command).status is ExecutionStatus.SUCCEEDED
    assert logs.characters == sum(map(len, _LOGS.values()))
    _stored_as_read_whole(execution_store, tmp_path)


@pytest.mark.parametrize("written", [{}, {SECOND: "the second's only line\n"}])
def test_a_run_s_end_lists_its_log_folder_once(
    execution_store: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: dict[str, str]
) -> None:
    # no step wrote a log (the folder is not there), or one did: the listing the run log is
    # read from says which steps have none, for their summaries
    store = _second_step_running(execution_store, tmp_path, written)
    listed: list[str] = []
    scandir = os.scandir

    def listing(path: str) -> Any:
        listed.append(path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", listing)
    completion = _completion(execution_store, store, tmp_path)
    command = FinishLastStepCommand(
        workflow_execution_id="e1", pipeline_execution_id=SECOND, attempt=1
    )
    assert completion.finish_last_step(command).execution.status is ExecutionStatus.SUCCEEDED
    assert [path for path in listed if path.startswith(str(tmp_path / "logs"))] == [
        str(tmp_path / "logs" / "e1")
    ]
    summaries = {
        log.pipeline_execution_id: log.message
        for step in execution_store.get_details("e1").steps
        for log in step.outputs.logs
    }
    tails = {step: f"\n{text}" for step, text in written.items()}
    assert summaries == {
        step: f"pipe{index}: SUCCEEDED{tails.get(step, '')}"
        for index, step in enumerate((FIRST, SECOND))
    }
