"""A run's completion racing an abort request (a real object store and catalog; SQLite file and
DynamoDB on moto).

The completion marks the run finishing (its main row, guarded on no abort requested) before it
imports the end-state step's results into the output asset, and an abort request is written only
while no such mark is there: of the two, the first write wins. An abort requested first leaves
no result in the output asset and the run ends ABORTED; one requested after the mark is refused
(RunIsFinishingError, a conflict) and the run ends SUCCEEDED with its results.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from application.ports.executions import ExecutionStore
from application.ports.files import AssetCatalog
from application.run_writes import end_run
from application.use_cases.abort_execution import AbortExecution, AbortExecutionCommand
from application.use_cases.complete_execution import CompleteExecution, CompleteExecutionCommand
from domain.execution import WorkflowExecution
from domain.run import Run, RunIsFinishingError
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import a_launch, write_launch

RUN = "completing"
NOW = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
BACKENDS = pytest.mark.parametrize("backend", ["sqlite_file", "dynamodb"])


class _Clock:
    def now(self) -> datetime:
        return NOW


class _AbortRequestedAfterTheRead:
    """The store, through which an abort from another process is requested right after the
    completion's read of the run."""

    def __init__(self, store: ExecutionStore) -> None:
        self._store, self._done = store, False
        self.main_row_reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution:
        self.main_row_reads += 1
        return self._store.get_execution(workflow_execution_id)

    def get_run(self, *args: Any, **kwargs: Any) -> Run:
        run = self._store.get_run(*args, **kwargs)
        if not self._done:
            self._done = True
            change = run.request_abort(NOW, "alice aborted it")
            assert change is not None
            assert self._store.commit(RunWrite.of(RUN, change=change))
        return run


class _FinishingAfterTheRead:
    """The store, through which a completion marks the run finishing right after the abort's
    read of the run."""

    def __init__(self, store: ExecutionStore) -> None:
        self._store, self._done = store, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution:
        execution = self._store.get_execution(workflow_execution_id)
        if not self._done:
            self._done = True
            _mark_finishing(self._store)
        return execution


def _mark_finishing(store: ExecutionStore) -> None:
    change = store.get_run(RUN).begin_finishing(NOW)
    assert change is not None
    assert store.commit(RunWrite.of(RUN, change=change))


def _stores(backend: str, request: pytest.FixtureRequest) -> tuple[ExecutionStore, AssetCatalog]:
    store: ExecutionStore = request.getfixturevalue(f"{backend}_execution_store")
    catalog: AssetCatalog = request.getfixturevalue(f"{backend}_asset_catalog")
    return store, catalog


def _running_with_a_result(
    store: ExecutionStore, objects: FilesystemObjectStore, output_asset: str | None
) -> None:
    records = a_launch(RUN, steps=1, output_asset=output_asset)
    (step,) = records.steps
    running = step.model_copy(update={"status": StepStatus.RUNNING, "start_date": NOW})
    write_launch(store, records.model_copy(update={"steps": (running,)}))
    objects.put_bytes(f"{step.output_files_path}report.txt", b"the run's result")


def _completion(
    store: ExecutionStore, objects: FilesystemObjectStore, catalog: AssetCatalog, logs: Path
) -> CompleteExecution:
    return CompleteExecution(store, objects, catalog, FileLogStore(logs), _Clock())


def _succeeded() -> CompleteExecutionCommand:
    return CompleteExecutionCommand(workflow_execution_id=RUN, status=ExecutionStatus.SUCCEEDED)


@BACKENDS
def test_a_run_aborted_while_it_completes_leaves_no_result_in_the_output_asset(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    store, catalog = _stores(backend, request)
    objects = FilesystemObjectStore(tmp_path / "objects")
    _running_with_a_result(store, objects, "db1:results")
    aborting = _AbortRequestedAfterTheRead(store)
    complete = _completion(aborting, objects, catalog, tmp_path / "logs")

    ended = complete.execute(_succeeded())

    assert ended.status is ExecutionStatus.ABORTED
    # the finishing mark's refusal says the main row (abort requested): no read of it after
    assert aborting.main_row_reads == 0
    assert catalog.list_files("db1", "results") == []
    assert objects.list_latest("assets/") == []
    assert store.get_execution(RUN).finishing_date is None


@BACKENDS
def test_an_abort_requested_once_the_completion_is_finishing_is_refused_by_its_write(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The abort reads the run before the mark and decides to write its request: the write's
    guard refuses it, and on the run read again the abort answers that it is finishing."""
    store, catalog = _stores(backend, request)
    objects = FilesystemObjectStore(tmp_path / "objects")
    _running_with_a_result(store, objects, "db1:results")
    unused: Any = None  # refused at its request, the abort stops nothing and logs nothing
    abort = AbortExecution(_FinishingAfterTheRead(store), unused, unused, unused, objects, _Clock())

    with pytest.raises(RunIsFinishingError, match=f"execution {RUN} is finishing"):
        abort.execute(AbortExecutionCommand(workflow_execution_id=RUN))

    assert store.get_execution(RUN).abort_requested_date is None
    ended = _completion(store, objects, catalog, tmp_path / "logs").execute(_succeeded())
    assert ended.status is ExecutionStatus.SUCCEEDED
    assert [f.file_key for f in catalog.list_files("db1", "results")] == ["report.txt"]


@BACKENDS
def test_a_completion_tried_again_after_its_mark_imports_the_results_and_succeeds(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """A first try marked the run finishing and died before its import (the callback retried)."""
    store, catalog = _stores(backend, request)
    objects = FilesystemObjectStore(tmp_path / "objects")
    _running_with_a_result(store, objects, "db1:results")
    _mark_finishing(store)

    ended = _completion(store, objects, catalog, tmp_path / "logs").execute(_succeeded())

    assert ended.status is ExecutionStatus.SUCCEEDED
    assert [f.file_key for f in catalog.list_files("db1", "results")] == ["report.txt"]
    assert store.get_execution(RUN).finishing_date == NOW


@BACKENDS
def test_a_run_with_no_output_asset_completes_with_no_finishing_mark(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    store, catalog = _stores(backend, request)
    objects = FilesystemObjectStore(tmp_path / "objects")
    _running_with_a_result(store, objects, None)

    ended = _completion(store, objects, catalog, tmp_path / "logs").execute(_succeeded())

    assert ended.status is ExecutionStatus.SUCCEEDED
    assert store.get_execution(RUN).finishing_date is None


@BACKENDS
def test_a_finishing_run_whose_runner_died_ends_runner_lost_and_a_redrive_makes_it_abortable(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The completion marked the run and died with its runner: the mark does not keep the run
    open (its lease runs out, a read ends it FAILED), and a redrive clears the mark."""
    store, _ = _stores(backend, request)
    _running_with_a_result(store, FilesystemObjectStore(tmp_path / "objects"), "db1:results")
    _mark_finishing(store)
    grace = timedelta(seconds=30)

    lost = end_run(store, RUN, lambda run: run.lose_runner(NOW, grace, "", None))

    assert lost.status is ExecutionStatus.FAILED
    assert lost.execution_error is not None and lost.execution_error.startswith("wfx.RunnerLost")
    change, _ = store.get_run(RUN).redrive(NOW)
    assert store.commit(RunWrite.of(RUN, change=change))
    assert store.get_execution(RUN).finishing_date is None
    abort = store.get_run(RUN).request_abort(NOW, "alice aborted it")
    assert abort is not None and store.commit(RunWrite.of(RUN, change=abort))
