"""DeleteExecution: remove a run for good, every row of it, its objects and its local files."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from application.ports.executions import RunStore
from application.ports.files import ObjectStore, RunFiles
from application.use_cases.abort_execution import AbortExecution, AbortExecutionCommand
from domain.errors import ExecutionNotFoundError, ExecutionStillRunningError
from domain.execution import WorkflowExecution, execution_object_prefix

FORCED_DELETE_CAUSE = "Aborted to be deleted"


class DeleteExecutionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    # abort a run that has not ended (through AbortExecution) instead of refusing to delete it
    force: bool = False

    @field_validator("workflow_execution_id")
    @classmethod
    def _one_segment(cls, value: str) -> str:
        # the id names folders and an object prefix: it must not reach outside its own
        if value in (".", "..") or any(character in value for character in "/\\\0"):
            raise ValueError("must not contain /, \\ or NUL, nor be . or ..")
        return value


class DeleteResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    workflow_execution_id: str
    deleted: bool  # False: there was no main row (deleted already, or never stored)
    aborted: bool = False  # force stopped it first
    objects_deleted: int = 0
    # what the forced abort may have left running (a type that cannot be stopped, a failed stop)
    warnings: tuple[str, ...] = ()


class DeleteExecution:
    """Delete a run permanently: its objects and local files first, then its rows (the store
    removes the main row last). Cut short anywhere, the run is still there to delete again;
    a second delete answers `deleted: false`. A run not ended is refused unless forced."""

    def __init__(
        self,
        store: RunStore,
        objects: ObjectStore,
        run_files: RunFiles,
        abort: AbortExecution,
    ) -> None:
        self._store, self._objects, self._run_files, self._abort = store, objects, run_files, abort

    def execute(self, command: DeleteExecutionCommand) -> DeleteResult:
        execution_id = command.workflow_execution_id
        execution = self._current(execution_id)
        aborted = False
        warnings: tuple[str, ...] = ()
        if execution is not None and not execution.is_terminal:
            if not command.force:
                raise ExecutionStillRunningError(execution_id, execution.status.value)
            # Its processes go before its rows: nothing may be left running with nowhere to
            # report, and an abort that fails leaves the run whole.
            result = self._abort.execute(
                AbortExecutionCommand(workflow_execution_id=execution_id, cause=FORCED_DELETE_CAUSE)
            )
            aborted, warnings = True, result.warnings
        # Everything outside the rows goes first: the main row is what lists the run, so as long
        # as it is there a delete cut short can be found and done again.
        removed = self._objects.delete_prefix(execution_object_prefix(execution_id))
        self._run_files.remove(execution_id)
        # ended_only: a redrive from another process since the read above leaves the rows to
        # the run it reopened (ExecutionStillRunningError), never to a runner with no row
        deleted = self._store.delete_execution(execution_id, ended_only=True)
        return DeleteResult(
            workflow_execution_id=execution_id,
            deleted=deleted,
            aborted=aborted,
            objects_deleted=removed,
            warnings=warnings,
        )

    def _current(self, execution_id: str) -> WorkflowExecution | None:
        try:
            return self._store.get_execution(execution_id)
        except ExecutionNotFoundError:
            return None  # deleted already: what may be left of it still goes
