"""The execution tables' ports: a run's rows, its writes, the read side, its event log."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from domain.execution import (
    Artifact,
    ExecutionConfiguration,
    ExecutionDetails,
    ExecutionInput,
    OutputFile,
    OutputMetadata,
    OutputResult,
    PipelineExecution,
    StepInputMetadata,
    StepLog,
    StepOutputs,
    UnreadableRow,
    WorkflowExecution,
)

if TYPE_CHECKING:
    from domain.attempts import TaskExecution
    from domain.authorization import AccessFacts, AssetKey
    from domain.events import ExecutionEvent, NewEvent
    from domain.paging import Page
    from domain.run import Run
    from domain.run_write import RunWrite, VersionedStep


class ListScope(StrEnum):
    ALL = "all"
    WORKFLOW = "workflow"
    GROUP = "group"


class AssetDirection(StrEnum):
    """Which side of a run an asset was on: read as input, or written as the output target."""

    INPUT = "input"
    OUTPUT = "output"


class RowCollection(StrEnum):
    """A run's row tables that can grow large: one partition each (the run's id for inputs, a
    step's id for the rest), read in sort-key order. Values are the details' field names."""

    INPUTS = "inputs"
    # the run's selections as the launch stored them (VAMS's inputFiles), the run's id too
    SELECTIONS = "inputSelections"
    INPUT_METADATA = "inputMetadata"
    OUTPUT_FILES = "outputFiles"
    OUTPUT_METADATA = "outputMetadata"
    OUTPUT_RESULTS = "outputResults"
    LOGS = "logs"
    ARTIFACTS = "artifacts"  # every attempt's output files, by attempt (seed 003)


# One row of a RowCollection; each has a `row_key` (its sort key), the paging cursor.
Row = (
    ExecutionInput
    | StepInputMetadata
    | OutputFile
    | OutputMetadata
    | OutputResult
    | StepLog
    | Artifact
)


@dataclass(frozen=True, order=True)
class ExecutionRef:
    """Where an execution sits in a newest-first list: ordered by start date, then id."""

    execution_start_date: str
    workflow_execution_id: str
    workflow_key: str


class SchemaAdministration(Protocol):
    """The execution tables' schema: created (or upgraded) once, idempotently."""

    def create_tables(self) -> None: ...


class RunStore(Protocol):
    """A run's main row, the run as one aggregate, its permanent delete (its writes are
    RunWriter's)."""

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution: ...

    def get_run(self, workflow_execution_id: str, pipeline_execution_id: str | None = None) -> Run:
        """The run's main row, its steps (only that one, when a step is named) and their
        attempts, in one consistent read where the store has one."""
        ...

    def delete_execution(self, workflow_execution_id: str, *, ended_only: bool = False) -> bool:
        """Remove every row of the run in every table: its steps' own rows (input files,
        input metadata and configuration, outputs, artifacts, logs, attempts), the steps (and
        the stop records on them), its inputs and configuration, its gates, events and cost
        entries, and the main row last, so that a delete cut short leaves the run listed, to be
        deleted again. False when it had no main row (deleted already); what else of it was
        left goes all the same.

        `ended_only`: the main row must still be terminal when the rows go, else
        ExecutionStillRunningError with its status (another process redrove the run since
        the caller read it; its runner will report to these rows)."""
        ...


class StepRunStore(Protocol):
    """Step runs with their attempts (seed 003 STEP_RUN, TASK_EXECUTION), what they registered
    and what they wrote."""

    def get_step(self, pipeline_execution_id: str) -> PipelineExecution: ...

    def list_steps(self, workflow_execution_id: str) -> list[PipelineExecution]: ...

    def list_readable_steps(
        self, workflow_execution_id: str
    ) -> tuple[list[PipelineExecution], tuple[UnreadableRow, ...]]:
        """list_steps for a read that shows what it can: a step row that cannot be read is left
        out and named (list_steps raises its UnreadableRowError)."""
        ...

    def get_versioned_step(
        self, workflow_execution_id: str, pipeline_execution_id: str
    ) -> VersionedStep:
        """The step's row with its row version (what a write of its lists is guarded by, see
        domain.run_write.StepLists). PipelineExecutionNotFoundError when the execution has no
        step with that id."""
        ...

    def add_step_outputs(self, outputs: StepOutputs) -> None:
        """Put output rows; writing the same row twice leaves one row. Artifacts go in the same
        write as the files and are never replaced: one whose key is taken keeps the first."""
        ...

    def list_output_files(self, pipeline_execution_ids: Iterable[str]) -> list[OutputFile]: ...

    def list_attempts(self, pipeline_execution_ids: Iterable[str]) -> list[TaskExecution]:
        """The attempts of those steps, grouped by step in the order given, attempt ascending."""
        ...

    def list_steps_and_running_attempts(
        self, workflow_execution_id: str
    ) -> tuple[list[PipelineExecution], list[TaskExecution]]:
        """The run's steps and the attempts of those RUNNING, as list_steps and list_attempts
        give them: what an end closing the open steps needs (a NEW step never opened an
        attempt, an ended one's are closed), in one consistent read where the store has one."""
        ...

    def list_readable_attempts(
        self, pipeline_execution_ids: Iterable[str]
    ) -> tuple[list[TaskExecution], tuple[UnreadableRow, ...]]:
        """list_attempts for a read that shows what it can: an attempt row that cannot be read
        is left out and named (list_attempts raises its UnreadableRowError)."""
        ...


class ExecutionQueries(Protocol):
    """The read side: pages of runs, a run's details and rows, what authorization needs."""

    def get_executions(self, refs: Sequence[ExecutionRef]) -> list[WorkflowExecution]:
        """The main rows of `refs` in the order given; a ref with no main row is skipped."""
        ...

    def get_details(
        self,
        workflow_execution_id: str,
        include_outputs: bool = True,
        row_limit: int | None = None,
        leave_out_unreadable: bool = False,
        detailed_steps: int | None = None,
    ) -> ExecutionDetails:
        """Every row of the run; steps in any order (the use case walks the chain).

        Without outputs, the per-step output tables and the artifacts are not read (a runner
        needs only the steps, their configurations and the inputs). With `row_limit`, each
        RowCollection holds at most that many rows per partition, the first by sort key (a run
        can have 20k inputs). A row other than the main row that cannot be read raises
        UnreadableRowError, or, `leave_out_unreadable` (a read showing what it can), is left
        out and named in `unreadable_rows` (a step's row: the step and its rows with it).
        With `detailed_steps`, `steps` holds only the first that many in chain order
        (domain.execution.chain_order), in that order, with their per-step rows (configuration,
        input metadata, outputs, attempts): what a bounded answer shows; `step_heads` every
        step's head in chain order (the count, the history's events). A step past those shown
        is read no further than its head: its per-step rows are neither read nor named
        unreadable, nor is the rest of its row (counted, it is named by a page of the steps).
        """
        ...

    def list_rows(
        self, collection: RowCollection, partition: str, after: str | None, limit: int
    ) -> list[Row]:
        """Up to `limit` rows of one partition whose sort key is past `after`, by sort key.

        `partition` is the run's id for INPUTS, a step's id for the others; `after` is the
        `row_key` of the last row already read. Arguments are valid (the use case checks).
        """
        ...

    def get_configuration(self, workflow_execution_id: str) -> ExecutionConfiguration | None: ...

    def list_executions(
        self, scope: ListScope, partition: str | None, limit: int, token: str | None
    ) -> Page[WorkflowExecution]:
        """Newest first from one index, one query per page; `token` is the adapter's own."""
        ...

    def asset_execution_refs(
        self, asset_key: str, direction: AssetDirection, older_than: ExecutionRef | None, limit: int
    ) -> list[ExecutionRef]:
        """Up to `limit` distinct executions linked to the asset, newest first, past the cursor."""
        ...

    def access_facts(self, workflow_execution_ids: Sequence[str]) -> dict[str, AccessFacts]:
        """What tier-2 authorization needs of each execution (its workflow, the assets it read
        and wrote, the databases it took metadata from), for a whole page in a few queries; an
        id with no main row is absent."""
        ...

    def run_assets(
        self, workflow_execution_id: str
    ) -> tuple[tuple[AssetKey, ...], AssetKey | None]:
        """The assets one run read (each once) and the one it writes, as its launch wrote them:
        what a cost entry names beside the main row, with none of the steps read (DynamoDB: its
        inputs' Query and its configuration's GetItem). ((), None) for a run with neither."""
        ...


@dataclass(frozen=True, slots=True)
class Refused:
    """RunWriter.commit's answer when a guard refused the write: false, as the False it stands
    for. `main_row`: the run's main row as stored, when the store had it with its refusal (a
    guard on that row refused and the store read the row in refusing: DynamoDB's old image of
    it); None: not known, the caller reads it if it needs it."""

    main_row: WorkflowExecution | None = None

    def __bool__(self) -> bool:
        return False


def refused_main_row(answer: bool | Refused) -> WorkflowExecution | None:
    """The main row a refusal said (RunWriter.commit's answer), None when it said none."""
    return answer.main_row if isinstance(answer, Refused) else None


class RunWriter(Protocol):
    """A run's transition as one write (domain.run_write): on SQLite one transaction, on
    DynamoDB one TransactWriteItems, numbering the write's events after the run's last."""

    def commit(self, write: RunWrite) -> bool | Refused:
        """Write all of `write`, or nothing. True written; false (False, or a Refused saying
        the main row as stored) when a guard refused it (the main row's, a step's expected
        status, the run not open, an attempt number taken or not running, a cost entry or
        approval id taken, an approval not pending): the caller reads again and decides again,
        the main row alone not again when the refusal says it. ExecutionNotFoundError when the
        run has no main row;
        ExecutionAlreadyExistsError when a launch's write (`RunWrite.launching`) finds its id
        taken; ValueError when the write is larger than one atomic write holds (DynamoDB: 100
        items, events included); nothing written in either case."""
        ...


class RunLifecycleStore(RunStore, StepRunStore, RunWriter, Protocol):
    """What moves a run and its steps: the writes of the run lifecycle (domain.run)."""


class ExecutionStore(SchemaAdministration, RunLifecycleStore, ExecutionQueries, Protocol):
    """All execution tables, as each storage adapter implements them; a use case asks for the
    narrowest part it needs. Each call is one atomic write or one consistent read.

    Getters raise ExecutionNotFoundError / PipelineExecutionNotFoundError; a launch's write
    raises ExecutionAlreadyExistsError. Guarded writes return False or None, writing nothing,
    when the stored row does not meet their guard.
    """


class EventNumberTakenError(Exception):
    """An event's number is taken already although the run's counter said it was free (the log
    was written to outside wfx): nothing of the write was applied, its transition neither."""


class ExecutionEvents(Protocol):
    """A run's event log (seed 003 EVENT_LOG), read in sequence order."""

    def events_after(
        self, workflow_execution_id: str, after_sequence: int, limit: int
    ) -> Page[ExecutionEvent]:
        """Up to `limit` events numbered past `after_sequence`, ascending; `next_token` is the
        last number given when more may follow. An unknown run has no events (an empty page)."""
        ...


class UnitOfWork(Protocol):
    """Writes that change several records at once, all or nothing: one TransactWriteItems on
    DynamoDB, one transaction on SQLite. The stores' transition writes go through it with their
    own rows; `append_events` is its plain form, for events with no row change of their own."""

    def append_events(
        self, workflow_execution_id: str, events: Sequence[NewEvent]
    ) -> tuple[ExecutionEvent, ...]:
        """Append `events` with the run's next numbers, gap-free under concurrent writers (a
        writer that loses the race for a number takes the next). ExecutionNotFoundError for a
        run with no main row; EventNumberTakenError, writing nothing, when a number is taken."""
        ...
