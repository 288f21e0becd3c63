"""DeleteExecution on every store: after it, no row of the run in any table (every table read
past the adapter, see test_execution_store_delete.RawTables), no object under its prefix, no
local file of it; other runs keep all of theirs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from adapters.local.object_store import FilesystemObjectStore
from adapters.local.run_files import LocalRunFiles
from adapters.system import SystemClock
from application.use_cases.abort_execution import AbortExecution
from application.use_cases.delete_execution import DeleteExecution, DeleteExecutionCommand
from domain.errors import ExecutionStillRunningError
from domain.execution import execution_log_key, execution_output_prefix, step_auxiliary_prefix
from domain.run import RunChange, RunGuard
from domain.statuses import ExecutionStatus
from tests.contract.builders import write_change
from tests.contract.conftest import BACKENDS
from tests.contract.test_execution_store_delete import (
    DOOMED,
    KEPT,
    RawTables,
    _a_run_in_every_table,
)


@pytest.fixture(params=BACKENDS)
def raw(request: pytest.FixtureRequest) -> RawTables:
    return RawTables(request.param, request)


class _NoAbort:
    """What a delete of an ended run must never call."""

    def execute(self, command: Any) -> Any:
        raise AssertionError(f"aborted {command}")


def _end(raw: RawTables, execution_id: str) -> None:
    stored = raw.store.get_execution(execution_id)
    ended = stored.complete(
        ExecutionStatus.FAILED, at=stored.execution_start_date, log="", error="x"
    )

    assert write_change(raw.store, RunChange(stored, ended, RunGuard())) is not None


def _objects_and_files(tmp_path: Path, execution_id: str) -> None:
    objects = FilesystemObjectStore(tmp_path / "objects")
    objects.put_bytes(execution_output_prefix(execution_id) + "result.json", b"{}")
    objects.put_bytes(execution_output_prefix(execution_id) + "result.json", b"{} again")
    objects.put_bytes(execution_log_key(execution_id), b"the whole log")
    objects.put_bytes(step_auxiliary_prefix(execution_id, "step-1") + "aux.bin", b"aux")
    for root in ("runs", "outputs", "logs"):
        (tmp_path / root / execution_id).mkdir(parents=True)
        (tmp_path / root / execution_id / "step.log").write_text("a line")
    (tmp_path / "runs" / f"{execution_id}.json").write_text("{}")  # the runner's record


def _delete_execution(raw: RawTables, tmp_path: Path, abort: Any = None) -> DeleteExecution:
    abort_use_case = cast(AbortExecution, abort or _NoAbort())
    return DeleteExecution(
        raw.store,
        FilesystemObjectStore(tmp_path / "objects"),
        LocalRunFiles(tmp_path),
        abort_use_case,
        SystemClock(),
    )


def test_an_ended_run_goes_from_every_table_the_object_store_and_the_disk(
    raw: RawTables, tmp_path: Path
) -> None:
    for execution_id in (DOOMED, KEPT):
        _a_run_in_every_table(raw, execution_id)
        _end(raw, execution_id)
        _objects_and_files(tmp_path, execution_id)
    kept_rows = raw.mentioning(KEPT)
    kept_objects = FilesystemObjectStore(tmp_path / "objects").list_latest(f"executions/{KEPT}/")

    result = _delete_execution(raw, tmp_path).execute(
        DeleteExecutionCommand(workflow_execution_id=DOOMED)
    )

    assert (result.deleted, result.aborted, result.objects_deleted) == (True, False, 3)
    assert raw.mentioning(DOOMED) == {}
    objects = FilesystemObjectStore(tmp_path / "objects")
    assert objects.list_latest(f"executions/{DOOMED}/") == []
    assert [p for p in tmp_path.rglob("*") if DOOMED in str(p)] == []
    assert raw.mentioning(KEPT) == kept_rows
    assert objects.list_latest(f"executions/{KEPT}/") == kept_objects
    assert (tmp_path / "runs" / KEPT / "step.log").exists()
    assert (tmp_path / "outputs" / KEPT / "step.log").exists()
    assert (tmp_path / "runs" / f"{KEPT}.json").exists()


def test_a_second_delete_answers_not_deleted_and_is_no_error(
    raw: RawTables, tmp_path: Path
) -> None:
    _a_run_in_every_table(raw, DOOMED)
    _end(raw, DOOMED)
    delete = _delete_execution(raw, tmp_path)
    command = DeleteExecutionCommand(workflow_execution_id=DOOMED)

    assert delete.execute(command).deleted is True
    again = delete.execute(command)

    assert (again.deleted, again.objects_deleted) == (False, 0)


def test_a_run_not_ended_is_refused_and_left_whole(raw: RawTables, tmp_path: Path) -> None:
    _a_run_in_every_table(raw, DOOMED)
    before = raw.mentioning(DOOMED)

    with pytest.raises(ExecutionStillRunningError, match="RUNNING"):
        _delete_execution(raw, tmp_path).execute(
            DeleteExecutionCommand(workflow_execution_id=DOOMED)
        )

    assert raw.mentioning(DOOMED) == before


class _RecordingAbort:
    def __init__(self, raw: RawTables) -> None:
        self._raw = raw
        self.commands: list[Any] = []

    def execute(self, command: Any) -> Any:
        from application.use_cases.abort_execution import AbortResult

        self.commands.append(command)
        _end(self._raw, command.workflow_execution_id)
        # the rows are all still there when the abort runs: it stops what they name
        assert self._raw.mentioning(command.workflow_execution_id)
        return AbortResult(
            execution=self._raw.store.get_execution(command.workflow_execution_id),
            warnings=("batch job-1: could not stop",),
        )


def test_force_aborts_the_run_first_then_deletes_it(raw: RawTables, tmp_path: Path) -> None:
    _a_run_in_every_table(raw, DOOMED)
    abort = _RecordingAbort(raw)

    result = _delete_execution(raw, tmp_path, abort).execute(
        DeleteExecutionCommand(workflow_execution_id=DOOMED, force=True)
    )

    assert [c.workflow_execution_id for c in abort.commands] == [DOOMED]
    assert (result.deleted, result.aborted) == (True, True)
    assert result.warnings == ("batch job-1: could not stop",)
    assert raw.mentioning(DOOMED) == {}


@pytest.mark.parametrize("execution_id", ["..", "a/b", "a\\b"])
def test_an_id_that_is_not_one_path_segment_is_refused(execution_id: str) -> None:
    with pytest.raises(ValueError, match="workflow_execution_id"):
        DeleteExecutionCommand(workflow_execution_id=execution_id)
