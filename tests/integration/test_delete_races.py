"""A permanent delete racing another writer of the same run, on SQLite and on DynamoDB (moto).

The other writer is injected through the ports: a redrive from another process (or another wfx
host) moving the run back to open between the delete's read and its first write (the mark that
the run is being deleted), or committing after that mark a redrive it decided on the run as it
read it before. The delete must then leave the whole run alone and say so, or go on with its
redrive refused: never remove the rows or files of a run whose runner is about to report to them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from adapters.aws.stack.access import FUNCTIONS, HTTP_API, FunctionAccess
from adapters.aws.stack.roles import policy_statements
from adapters.aws.stack.tables import table_arn
from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.local.run_files import LocalRunFiles
from adapters.system import SystemClock
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import ExecutionStore, Refused
from application.use_cases.abort_execution import AbortExecution, AbortResult
from application.use_cases.delete_execution import DeleteExecution, DeleteExecutionCommand
from domain.errors import (
    ExecutionNotFoundError,
    ExecutionStillRunningError,
    RedriveNotAllowedError,
)
from domain.execution import execution_object_prefix
from domain.redrive import BEING_DELETED_REASON, redrive_refusal
from domain.run import Run, RunChange, RunGuard
from domain.run_write import RunWrite, StepRow
from domain.statuses import ExecutionStatus
from tests.contract.builders import a_launch, at, write_change, write_launch

RUN = "raced-run"
STORES = ["sqlite_file", "dynamodb"]


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> ExecutionStore:
    return cast(ExecutionStore, request.getfixturevalue(f"{request.param}_execution_store"))


def _failed_run(store: ExecutionStore) -> None:
    write_launch(store, a_launch(RUN, steps=3))
    stored = store.get_execution(RUN)
    failed = stored.complete(ExecutionStatus.FAILED, at=at(5), log="", error="x")
    assert write_change(store, RunChange(stored, failed, RunGuard())) is not None


def _redrive(store: ExecutionStore) -> None:
    """What RedriveExecution writes: the run PENDING_REDRIVE, its unfinished steps NEW."""
    run = store.get_run(RUN)
    change, reset = Run(execution=run.execution, steps=run.steps).redrive(at(6))
    before = {step.pipeline_execution_id: step.status for step in run.steps}
    rows = tuple(StepRow(step, frozenset({before[step.pipeline_execution_id]})) for step in reset)
    assert store.commit(RunWrite.of(RUN, change=change, step_rows=rows))


class _RedrivenBeforeTheMark:
    """The store, through which another process redrives the run just before the delete's
    first write: after the delete's read, before anything of the run goes."""

    def __init__(self, store: ExecutionStore) -> None:
        self._store, self._done = store, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def commit(self, write: RunWrite) -> bool | Refused:
        if not self._done:
            self._done = True
            _redrive(self._store)
        return self._store.commit(write)


class _RedriveDecidedBefore(LocalRunFiles):
    """The run's local files, as the delete removes them: another process commits then the
    redrive it decided on the run as read before the delete began."""

    def __init__(self, root: Path, store: ExecutionStore) -> None:
        super().__init__(root)
        self._store = store
        run = store.get_run(RUN)
        self._change, reset = Run(execution=run.execution, steps=run.steps).redrive(at(6))
        before = {step.pipeline_execution_id: step.status for step in run.steps}
        self._rows = tuple(
            StepRow(step, frozenset({before[step.pipeline_execution_id]})) for step in reset
        )
        self.committed: bool | None = None

    def remove(self, workflow_execution_id: str) -> None:
        write = RunWrite.of(RUN, change=self._change, step_rows=self._rows)
        self.committed = bool(self._store.commit(write))
        super().remove(workflow_execution_id)


class _AbortThenRedrive:
    """A forced delete's abort, after which another process redrives the aborted run."""

    def __init__(self, store: ExecutionStore) -> None:
        self._store = store

    def execute(self, command: Any) -> AbortResult:
        stored = self._store.get_execution(command.workflow_execution_id)
        aborted = stored.complete(ExecutionStatus.ABORTED, at=at(5), log="", error="x")
        assert write_change(self._store, RunChange(stored, aborted, RunGuard())) is not None
        _redrive(self._store)
        return AbortResult(execution=aborted)


def _delete(
    store: ExecutionStore, tmp_path: Path, run_files: LocalRunFiles, abort: Any = None
) -> DeleteExecution:
    return DeleteExecution(
        store,
        FilesystemObjectStore(tmp_path / "objects"),
        run_files,
        cast(AbortExecution, abort),
        SystemClock(),
    )


def _files(tmp_path: Path) -> tuple[FilesystemObjectStore, Path]:
    objects = FilesystemObjectStore(tmp_path / "objects")
    objects.put_bytes(f"{execution_object_prefix(RUN)}log.txt", b"the run's log")
    folder = tmp_path / "runs" / RUN
    folder.mkdir(parents=True)
    (folder / "step.log").write_text("a line")
    return objects, folder


def test_a_run_redriven_between_the_delete_s_read_and_its_first_write_is_left_whole(
    store: ExecutionStore, tmp_path: Path
) -> None:
    _failed_run(store)
    objects, folder = _files(tmp_path)
    delete = DeleteExecution(
        cast(Any, _RedrivenBeforeTheMark(store)),
        objects,
        LocalRunFiles(tmp_path),
        cast(AbortExecution, None),
        SystemClock(),
    )

    with pytest.raises(ExecutionStillRunningError, match="PENDING_REDRIVE"):
        delete.execute(DeleteExecutionCommand(workflow_execution_id=RUN))

    run = store.get_run(RUN)
    assert run.execution.status is ExecutionStatus.PENDING_REDRIVE
    assert not run.execution.is_being_deleted
    assert len(run.steps) == 3
    assert [o.key for o in objects.list_latest(execution_object_prefix(RUN))] != []
    assert (folder / "step.log").exists()


def test_a_redrive_decided_before_the_delete_began_is_refused_and_the_delete_goes_on(
    store: ExecutionStore, tmp_path: Path
) -> None:
    _failed_run(store)
    run_files = _RedriveDecidedBefore(tmp_path, store)
    delete = _delete(store, tmp_path, run_files)

    result = delete.execute(DeleteExecutionCommand(workflow_execution_id=RUN))

    assert run_files.committed is False
    assert result.deleted
    with pytest.raises(ExecutionNotFoundError):
        store.get_execution(RUN)


class _CutShort(FilesystemObjectStore):
    def delete_prefix(self, prefix: str) -> int:
        raise OSError("the machine went down")


def test_a_run_whose_delete_was_cut_short_is_neither_redriven_nor_rerun_until_deleted(
    store: ExecutionStore, tmp_path: Path
) -> None:
    _failed_run(store)
    cut_short = DeleteExecution(
        store,
        _CutShort(tmp_path / "objects"),
        LocalRunFiles(tmp_path),
        cast(Any, None),
        SystemClock(),
    )
    with pytest.raises(OSError):
        cut_short.execute(DeleteExecutionCommand(workflow_execution_id=RUN))

    run = store.get_run(RUN)
    assert run.execution.is_being_deleted and run.execution.status is ExecutionStatus.FAILED
    assert redrive_refusal(run.execution, at(6), 0) == BEING_DELETED_REASON
    with pytest.raises(RedriveNotAllowedError, match="being deleted"):
        run.redrive(at(6))
    assert (
        _delete(store, tmp_path, LocalRunFiles(tmp_path))
        .execute(DeleteExecutionCommand(workflow_execution_id=RUN))
        .deleted
    )


def test_a_forced_delete_whose_aborted_run_is_redriven_before_its_write_keeps_every_row(
    store: ExecutionStore, tmp_path: Path
) -> None:
    write_launch(store, a_launch(RUN, steps=3))
    delete = _delete(store, tmp_path, LocalRunFiles(tmp_path), _AbortThenRedrive(store))

    with pytest.raises(ExecutionStillRunningError, match="PENDING_REDRIVE"):
        delete.execute(DeleteExecutionCommand(workflow_execution_id=RUN, force=True))

    run = store.get_run(RUN)
    assert run.execution.status is ExecutionStatus.PENDING_REDRIVE
    assert len(run.steps) == 3


class _RedriveAtFirstBatch:
    """The DynamoDB client, through which another process redrives the run just before the
    delete's first BatchWriteItem: after the store's own read, while its waves go."""

    def __init__(self, client: Any, redrive: Any) -> None:
        self._client, self._redrive = client, redrive

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_write_item(self, **request: Any) -> Any:
        if self._redrive is not None:
            redrive, self._redrive = self._redrive, None
            redrive()
        return self._client.batch_write_item(**request)


def test_on_dynamodb_a_redrive_during_the_delete_s_waves_keeps_the_main_row_and_says_so(
    dynamodb_execution_store: ExecutionStore,
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
) -> None:
    """DynamoDB has no transaction for a whole run: the steps' rows the waves removed before
    the redrive landed are gone, but the main row's delete is conditional on its status, so
    the run stays listed (and can be aborted, then deleted) and the caller is told."""
    store = dynamodb_execution_store
    _failed_run(store)
    client = _RedriveAtFirstBatch(moto_dynamodb_client, lambda: _redrive(store))
    raced = DynamoDbExecutionStore(cast(Any, client), dynamodb_table_names)

    with pytest.raises(ExecutionStillRunningError, match="PENDING_REDRIVE"):
        raced.delete_execution(RUN, ended_only=True)

    assert store.get_execution(RUN).status is ExecutionStatus.PENDING_REDRIVE


def _as_added(statement: dict[str, Any]) -> dict[str, Any]:
    """A statement a stack parameter adds (`Fn::If`) taken as added: the widest reach."""
    return statement["Fn::If"][1] if "Fn::If" in statement else statement


def test_the_function_that_deletes_runs_may_delete_the_main_row_on_its_condition() -> None:
    """A conditional delete is DeleteItem's alone (BatchWriteItem takes no condition)."""

    def may_delete_main_rows(function: FunctionAccess) -> bool:
        return any(
            "dynamodb:DeleteItem" in statement["Action"]
            and table_arn(ResourceKeys.WORKFLOW_EXECUTIONS) in statement["Resource"]
            for statement in map(_as_added, policy_statements(function))
        )

    assert may_delete_main_rows(HTTP_API)
    assert [f.name for f in FUNCTIONS if may_delete_main_rows(f)] == [HTTP_API.name]
