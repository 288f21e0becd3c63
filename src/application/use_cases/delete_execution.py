"""DeleteExecution: remove a run for good, every row of it, its objects and its local files."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from application.ports.executions import RunStore, RunWriter
from application.ports.files import ObjectStore, RunFiles
from application.ports.system import Clock
from application.run_writes import commit_decided
from application.use_cases.abort_execution import AbortExecution, AbortExecutionCommand
from domain.errors import ExecutionNotFoundError, ExecutionStillRunningError
from domain.execution import WorkflowExecution, execution_object_prefix
from domain.run import Run, RunIsFinishingError
from domain.run_write import RunWrite

FORCED_DELETE_CAUSE = "Aborted to be deleted"


class DeletableRuns(RunStore, RunWriter, Protocol):
    """What a delete reads, marks and removes."""


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
    """Delete a run permanently: the run marked as being deleted (Run.begin_delete), then its
    objects and local files, then its rows (the store removes the main row last). Cut short
    anywhere, the run is still there to delete again, and no redrive or rerun takes it up;
    a second delete answers `deleted: false`. A run not ended is refused unless forced."""

    def __init__(
        self,
        store: DeletableRuns,
        objects: ObjectStore,
        run_files: RunFiles,
        abort: AbortExecution,
        clock: Clock,
    ) -> None:
        self._store, self._objects, self._run_files, self._abort = store, objects, run_files, abort
        self._clock = clock

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
            try:
                result = self._abort.execute(
                    AbortExecutionCommand(
                        workflow_execution_id=execution_id, cause=FORCED_DELETE_CAUSE
                    )
                )
            except RunIsFinishingError as finishing:
                # its completion may have ended it since: then it goes as any ended run does
                execution = self._current(execution_id)
                if execution is not None and not execution.is_terminal:
                    raise self._finishing(execution_id, execution) from finishing
            else:
                aborted, warnings = True, result.warnings
        if execution is not None:
            self._begin(execution_id, None if aborted else execution)
        # Everything outside the rows goes first: the main row is what lists the run, so as long
        # as it is there a delete cut short can be found and done again.
        removed = self._objects.delete_prefix(execution_object_prefix(execution_id))
        self._run_files.remove(execution_id)
        # ended_only: no redrive lands once the delete has begun; a run an older wfx redrove
        # meanwhile keeps its rows (ExecutionStillRunningError), never a runner with no row
        deleted = self._store.delete_execution(execution_id, ended_only=True)
        return DeleteResult(
            workflow_execution_id=execution_id,
            deleted=deleted,
            aborted=aborted,
            objects_deleted=removed,
            warnings=warnings,
        )

    def _begin(self, execution_id: str, known: WorkflowExecution | None) -> None:
        """The run marked as being deleted, decided on `known` (the run as read, when nothing
        has written it since), in a write that holds only while it is still ended and as read:
        a redrive from another process in between is ExecutionStillRunningError, nothing gone."""
        now = self._clock.now()

        def decide(run: Run) -> RunWrite | None:
            change = run.begin_delete(now)
            return None if change is None else RunWrite.of(execution_id, change=change)

        def read() -> Run:
            return Run(execution=self._store.get_execution(execution_id))

        try:
            first = decide(Run(execution=known)) if known is not None else None
            commit_decided(self._store, read, decide, first)
        except ExecutionNotFoundError:
            pass  # another delete got there first: what may be left of it still goes

    def _finishing(self, execution_id: str, current: WorkflowExecution) -> RunIsFinishingError:
        """The abort's refusal said as a delete's: its completion ends the run, then it can go."""
        since = current.finishing_date
        at = f" since {since.strftime('%Y-%m-%dT%H:%M:%SZ')}" if since is not None else ""
        return RunIsFinishingError(
            f"execution {execution_id} is finishing (its results have been going into its "
            f"output asset{at}): wait for it to end, then delete it"
        )

    def _current(self, execution_id: str) -> WorkflowExecution | None:
        try:
            return self._store.get_execution(execution_id)
        except ExecutionNotFoundError:
            return None  # deleted already: what may be left of it still goes
