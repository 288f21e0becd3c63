"""The interfaces the use cases depend on; adapters implement them, the container wires them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from domain.available_logs import LogReadStatus
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
    WorkflowExecution,
)
from domain.statuses import ExecutionStatus, StepStatus

if TYPE_CHECKING:
    from domain.approvals import ApprovalRequest
    from domain.assets import AssetFile
    from domain.attempts import TaskExecution
    from domain.authorization import AccessDecision, AccessFacts, Action, Subject
    from domain.constraints import AuthorizationPolicy, Constraint, Role, RoleAssignment
    from domain.costs import CostLedgerEntry
    from domain.events import ExecutionEvent, NewEvent
    from domain.logs import RegisteredSubExecution
    from domain.migration import MigratedRun, TableItemShapes
    from domain.paging import Page
    from domain.run import Run
    from domain.run_write import RunWrite, VersionedStep
    from domain.sub_processes import StopAttempt
    from domain.workflow import WorkflowDefinition, WorkflowVersion


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

    def delete_execution(self, workflow_execution_id: str) -> bool:
        """Remove every row of the run in every table: its steps' own rows (input files,
        input metadata and configuration, outputs, artifacts, logs, attempts), the steps (and
        the stop records on them), its inputs and configuration, its gates, events and cost
        entries, and the main row last, so that a delete cut short leaves the run listed, to be
        deleted again. False when it had no main row (deleted already); what else of it was
        left goes all the same."""
        ...


class StepRunStore(Protocol):
    """Step runs with their attempts (seed 003 STEP_RUN, TASK_EXECUTION), what they registered
    and what they wrote."""

    def get_step(self, pipeline_execution_id: str) -> PipelineExecution: ...

    def list_steps(self, workflow_execution_id: str) -> list[PipelineExecution]: ...

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


class ExecutionQueries(Protocol):
    """The read side: pages of runs, a run's details and rows, what authorization needs."""

    def get_executions(self, refs: Sequence[ExecutionRef]) -> list[WorkflowExecution]:
        """The main rows of `refs` in the order given; a ref with no main row is skipped."""
        ...

    def get_details(
        self, workflow_execution_id: str, include_outputs: bool = True, row_limit: int | None = None
    ) -> ExecutionDetails:
        """Every row of the run; steps in any order (the use case walks the chain).

        Without outputs, the per-step output tables and the artifacts are not read (a runner
        needs only the steps, their configurations and the inputs). With `row_limit`, each
        RowCollection holds at most that many rows per partition, the first by sort key (a run
        can have 20k inputs).
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


class RunWriter(Protocol):
    """A run's transition as one write (domain.run_write): on SQLite one transaction, on
    DynamoDB one TransactWriteItems, numbering the write's events after the run's last."""

    def commit(self, write: RunWrite) -> bool:
        """Write all of `write`, or nothing. True written; False when a guard refused it (the
        main row's, a step's expected status, the run not open, an attempt number taken or not
        running, a cost entry or approval id taken, an approval not pending): the caller reads
        again and decides again. ExecutionNotFoundError when the run has no main row;
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


class WorkflowDefinitions(Protocol):
    """Workflow definitions (seed 003): the namespace of each workflow, and the one write that
    publishes a version. A published version and its step definitions never change."""

    def create_tables(self) -> None: ...

    def publish(self, definition: WorkflowDefinition, version: WorkflowVersion) -> bool:
        """Store `version` with its step definitions and `definition` (the one it leaves: its
        pointer on `version`) in one atomic write. False, and nothing written, when the version
        number is taken or the stored pointer is not on the version before (a rival publish won).
        """
        ...

    def find_definition(self, database_id: str, workflow_id: str) -> WorkflowDefinition | None:
        """The definition, read consistently; None when nothing was published under it."""
        ...

    def list_definitions(
        self, limit: int, starting_token: str | None, database_id: str | None = None
    ) -> Page[WorkflowDefinition]:
        """Every definition (of one database, when given), by database id, then workflow id,
        `limit` (1..100) to a page; one index query per page, no scan. A token this list did not
        issue raises InvalidInputError."""
        ...


class WorkflowCatalog(Protocol):
    """Published workflow versions with their steps, read in step order; written only by
    WorkflowDefinitions.publish."""

    def create_tables(self) -> None: ...

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion | None: ...

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion: ...

    def list_versions(
        self, database_id: str, workflow_id: str, limit: int, starting_token: str | None
    ) -> Page[WorkflowVersion]:
        """The workflow's versions, newest first, `limit` (1..100) to a page; an empty page for
        an unknown workflow. A token this list did not issue raises InvalidInputError."""
        ...

    def record_deployment(
        self, database_id: str, workflow_id: str, version: int, state_machine_arn: str
    ) -> WorkflowVersion:
        """Set the version's state machine ARN (the one thing a published version may gain, and
        only once: another ARN than the recorded one raises VersionImmutableError)."""
        ...


class AssetCatalog(Protocol):
    """The current version of every asset file (the bodies live in the ObjectStore)."""

    def put_files(self, files: Sequence[AssetFile]) -> None: ...

    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        """Every file of the asset, by file key; [] for an unknown asset."""
        ...


@dataclass(frozen=True)
class StoredObject:
    key: str
    version_id: str
    size: int
    etag: str


class ObjectStore(Protocol):
    """A versioned object store: every write of a key gets a new version id."""

    @property
    def bucket(self) -> str: ...

    def put_file(self, key: str, source: Path | BinaryIO) -> StoredObject:
        """A path that is a symbolic link, or not a regular file, is refused (OSError)."""
        ...

    def put_bytes(self, key: str, body: bytes) -> StoredObject: ...

    def local_path(self, key: str, version_id: str) -> Path:
        """A readable local file holding that version."""
        ...

    def read_bytes(self, key: str, version_id: str | None = None) -> bytes:
        """The body of that version, or of the newest one (FileNotFoundError if none)."""
        ...

    def read_head(self, key: str, version_id: str, size: int) -> bytes:
        """At most the first `size` bytes of that version, never more read (FileNotFoundError
        if it is not stored)."""
        ...

    def list_latest(self, prefix: str) -> list[StoredObject]:
        """The newest version of every key under the prefix, by key."""
        ...

    def delete_prefix(self, prefix: str) -> int:
        """Remove every version of every key under the (non-empty) prefix; how many keys went.
        Nothing under it is not an error (a delete done twice removes 0 the second time)."""
        ...


class RunFiles(Protocol):
    """What a run leaves on the runner's host outside the stores: its run folder (process
    records, the shared output folder) and its step logs."""

    def remove(self, workflow_execution_id: str) -> None:
        """Remove them all; a run that left none is not an error."""
        ...


class HandlerLocator(Protocol):
    """Finds a python step's handler as the runner will import it, without running its code."""

    def problem(self, handler: str, handler_path: str | None) -> str | None:
        """Why `package.module:function` cannot be imported from sys.path (then `handler_path`,
        a folder), or None when it can."""
        ...


class LogStore(Protocol):
    """Where run and step logs are written locally and read back."""

    def step_log_path(self, workflow_execution_id: str, pipeline_execution_id: str) -> Path: ...

    def read_step_log(self, workflow_execution_id: str, pipeline_execution_id: str) -> str: ...

    def read_run_log(self, workflow_execution_id: str) -> str: ...


@dataclass(frozen=True)
class OrchestratorExecution:
    """What the orchestrator says about a run (Step Functions DescribeExecution, seed 001)."""

    status: ExecutionStatus
    start_date: datetime | None = None
    stop_date: datetime | None = None
    error: str | None = None
    cause: str | None = None
    redrive_count: int = 0
    redrive_date: datetime | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    # The rest of DescribeExecution's answer, read only by DescribeExecution (a runner that
    # knows only a status leaves them unset).
    name: str | None = None
    execution_arn: str | None = None
    state_machine_arn: str | None = None
    state_machine_version_arn: str | None = None
    state_machine_alias_arn: str | None = None
    map_run_arn: str | None = None
    input: str | None = None  # JSON text, as the service returns it
    output: str | None = None
    input_included: bool | None = None  # inputDetails.included
    output_included: bool | None = None  # outputDetails.included
    trace_header: str | None = None


@dataclass(frozen=True)
class StateMachineDescription:
    """A deployed state machine: its ASL definition and where it logs (DescribeStateMachine),
    and its status (ACTIVE, or DELETING while it is being deleted) when the service says."""

    arn: str
    definition: dict[str, Any]
    logging_configuration: dict[str, Any]
    status: str | None = None


@dataclass(frozen=True)
class HistoryPage:
    """One page of a run's event history, in the orchestrator's own event shape."""

    events: tuple[dict[str, Any], ...]
    next_token: str | None = None


@dataclass(frozen=True)
class LaunchClaim:
    """A new run its orchestrator runs in this process: the launch writes the run leased to
    `owner` for `lease`, its first step started, so the runner writes neither again."""

    owner: str
    lease: timedelta


class Orchestrator(Protocol):
    """Runs a launched execution; the execution id is the orchestrator's execution name.

    Every method but start takes the stored main row, whose `execution_arn` (when the
    orchestrator gave one) locates the run.
    """

    @property
    def name(self) -> str: ...

    @property
    def synchronous(self) -> bool:
        """True when start_execution returns only once the run has ended (local, inline)."""
        ...

    def start_problem(self, version: WorkflowVersion) -> str | None:
        """Why this orchestrator cannot run the version (asked before a launch writes), or None."""
        ...

    def ended_run(self, workflow_execution_id: str) -> WorkflowExecution | None:
        """The main row of the run start_execution has just run to its end (synchronous), as
        its last write left it; None when it is not known so (the caller reads it)."""
        ...

    def launch_claim(self) -> LaunchClaim | None:
        """The claim a launch writes with the run start_execution then runs in this process;
        None when its runner is elsewhere (Step Functions, a worker process) and claims it."""
        ...

    def start_execution(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        steps: Sequence[PipelineExecution],
    ) -> str | None:
        """Start the run and return the orchestrator's reference to it (an ARN), if any."""
        ...

    def describe_execution(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        """The orchestrator's view of the run; None when it has never heard of it."""
        ...

    def stop_execution(
        self, execution: WorkflowExecution, error: str, cause: str
    ) -> tuple[str, ...]:
        """Stop the run; a warning naming each process it could not see end (none: ())."""
        ...

    def resume_execution(self, execution: WorkflowExecution, approval: ApprovalRequest) -> None:
        """A gate of the run has closed (decided or timed out): let the run go on. The local
        runner starts a runner on the run handed over to it; Step Functions gives the waiting
        task its token's answer (success when approved, a failure naming why otherwise)."""
        ...

    def redrive_execution(
        self, execution: WorkflowExecution, client_token: str, known: Run | None = None
    ) -> datetime:
        """Continue a failed run from its failed step with the same input; the redrive date.
        `known`: the run as the redrive's write left it (its steps, and the attempts of those it
        reopened), so a runner of this process reads none of it back."""
        ...

    def history_page(
        self, execution: WorkflowExecution, next_token: str | None = None, max_results: int = 1000
    ) -> HistoryPage: ...

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineDescription | None:
        """The state machine's definition and logging; None when there is no such machine.
        Raises OrchestratorReadError when the orchestrator cannot say (access denied, no
        answer)."""
        ...


class TaskCallbacks(Protocol):
    """Answers the orchestrator's task waiting on a closed gate's callback token (Step
    Functions' SendTaskSuccess when approved, SendTaskFailure naming the gate's error otherwise);
    a token the orchestrator no longer knows (its task timed out, its run ended) is let be."""

    def answer(self, approval: ApprovalRequest) -> None: ...


class OrchestratorReadError(RuntimeError):
    """The orchestrator did not answer a read; the message names the call and the error code
    only (an AWS message names the caller's role, which a stored row need not repeat)."""


class V1Items(Protocol):
    """The earlier table's items (VAMS 2.5.x), as plain attribute maps, always in the same
    order (the migration's checkpoint names the last one done)."""

    def items(self) -> Iterable[Mapping[str, Any]]: ...


class MigratedRuns(Protocol):
    """Where the V1 migration writes a run: its main row, input rows and PipelineExecutionInputFiles
    rows as one unit, the main row last (so a run whose main row exists is wholly written)."""

    def has_run(self, workflow_execution_id: str) -> bool: ...

    def add_migrated(self, run: MigratedRun) -> bool:
        """Write the run's rows; False, writing nothing, when its main row exists already."""
        ...


class ItemShapes(Protocol):
    """The items an earlier wfx wrote, moved to the current shapes: each item rewritten at most
    once and only when it differs (so a run cut short resumes by running again), guarded against
    a writer changing it meanwhile."""

    def upgrade(self, dry_run: bool) -> tuple[TableItemShapes, ...]: ...

    def verify(self) -> tuple[TableItemShapes, ...]:
        """Read every item; count those not in the current shapes. Writes nothing."""
        ...


class LegacyExecutions(Protocol):
    """Step Functions' word on a run the earlier release started, by its execution ARN: None
    when it no longer knows the execution; OrchestratorReadError when it does not answer."""

    def describe(self, execution_arn: str) -> OrchestratorExecution | None: ...


class MigrationCheckpoint(Protocol):
    """The key of the last item the migration finished, kept between runs."""

    def last_done(self) -> str | None: ...

    def record(self, item_key: str) -> None: ...


@dataclass(frozen=True)
class SubExecutionDescription:
    """A Step Functions execution a step registered, as DescribeExecution gives it."""

    status: str
    state_machine_arn: str
    start_date: datetime | None = None
    stop_date: datetime | None = None


@dataclass(frozen=True)
class StateMachineSource:
    """A state machine as DescribeStateMachine gives it: the ASL text, unparsed (its size is
    bounded before it is parsed), and the CloudWatch log groups its logging writes to."""

    definition: str
    log_group_arns: tuple[str, ...] = ()


class SubExecutionReader(Protocol):
    """Reads registered sub-executions for derived stage status; every method raises
    domain.stages.SubExecutionReadError when the service (or an emulator's gap) fails it."""

    def describe_execution(self, execution_arn: str) -> SubExecutionDescription: ...

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineSource: ...

    def history_page(self, execution_arn: str, next_token: str | None) -> HistoryPage:
        """One page, oldest first; `next_token` is only ever one this reader returned."""
        ...

    def batch_job_statuses(self, job_ids: Sequence[str]) -> dict[str, str]:
        """AWS Batch status by job id; an id Batch does not know is absent."""
        ...


class StateMachineDeployer(Protocol):
    """Creates or updates the state machine that runs a workflow version on Step Functions."""

    def deploy(
        self, name: str, definition: dict[str, Any], role_arn: str, log_group_arn: str
    ) -> str:
        """Create the state machine, or update its definition; its ARN."""
        ...


class SubProcessController(Protocol):
    """Stops a process a step registered (seed 000 "Abort reaches inside a pipeline").

    Neither method raises for a service's refusal: that is a `couldNotStop` attempt whose detail
    says why. A type the controller cannot stop is `unsupported`.
    """

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        """Ask the child `step` registered to stop: stopRequested, stopped (seen ended),
        alreadyFinished or couldNotStop (also for a child that is not really the step's)."""
        ...

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        """Look, without stopping: stopped / alreadyFinished when it has ended, stopRequested
        while it still runs, couldNotStop when it cannot be looked up."""
        ...


class RunReporter(Protocol):
    """What a runner calls as a run progresses: the interim tracking and end-state callbacks,
    and its lease. Refusals are domain errors (RunIsStoppingError, RunIsOverError,
    AttemptFencedError); anything else is the store failing, worth trying again."""

    def step_started(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int = 1
    ) -> int:
        """The step is RUNNING: the number of the attempt the runner now runs. `attempt`: the
        number the runner expects it to take (a redriven step's next, from its attempts); a
        wrong guess costs a read, never a wrong number."""
        ...

    def step_retrying(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        error: str | None,
        attempt: int,
    ) -> int:
        """Attempt `attempt` failed and the step runs again: the next attempt's number."""
        ...

    def step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        status: StepStatus,
        error: str | None,
        attempt: int,
    ) -> StepStatus:
        """Attempt `attempt` ended with `status`: the step's status as recorded (ABORTED on a
        run being aborted, whatever was reported)."""
        ...

    def step_handed_on(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        next_pipeline_execution_id: str,
    ) -> tuple[StepStatus, int | None]:
        """Attempt `attempt` succeeded and the next step starts, in one write: the step's status
        as recorded, and the next step's attempt (None when it did not start: the step was not
        recorded SUCCEEDED, or had ended already - the runner then starts the next itself)."""
        ...

    def execution_completed(
        self, workflow_execution_id: str, status: ExecutionStatus, error: str | None = None
    ) -> ExecutionStatus:
        """The run ended: its status as recorded."""
        ...

    def last_step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        known: Run | None = None,
    ) -> tuple[StepStatus, ExecutionStatus]:
        """The last step's attempt `attempt` succeeded and the run ends with it, in one write:
        the step's status and the run's as recorded (ABORTED both on a run being aborted).
        `known`: the main row as the runner's lease left it and the steps as it started them,
        to decide on without a read (the write's guards catch anything moved since)."""
        ...

    def approval_gate(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int, owner: str
    ) -> ApprovalRequest | None:
        """An approval step's attempt reaches its gate: None when the run is now parked there
        (the runner leaves it); the closed request when it was decided or timed out already."""
        ...

    def current(self, workflow_execution_id: str) -> WorkflowExecution:
        """The main row as stored now (its status and abort request)."""
        ...

    def take_lease(
        self, workflow_execution_id: str, owner: str, known: WorkflowExecution | None = None
    ) -> WorkflowExecution | None:
        """Claim the run for this runner: the main row as the claim left it, or None when
        another runner holds a live lease or the run has ended. `known`: the main row as the
        runner was handed it, to save a read."""
        ...

    def take_lease_and_start(
        self,
        workflow_execution_id: str,
        owner: str,
        known: WorkflowExecution,
        first_pipeline_execution_id: str,
    ) -> tuple[WorkflowExecution | None, int | None]:
        """take_lease and the first step's start, in one write where the run is as the launch
        left it: the row, and the first step's attempt (None when it was not started)."""
        ...

    def ended(self, workflow_execution_id: str) -> WorkflowExecution | None:
        """The run's main row as this reporter's write of its end left it, once (None: not
        ended here): what a synchronous start answers with no read."""
        ...

    def started_at_launch(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        at: datetime | None,
    ) -> None:
        """The launch's own write leased the run to this runner and started its first step's
        attempt `attempt` at `at` (LaunchClaim): the runner runs that attempt now."""
        ...

    def renew_lease(self, workflow_execution_id: str, owner: str) -> bool:
        """Renew the lease: False once it is not this runner's (the run ended, or was lost)."""
        ...


@dataclass(frozen=True)
class LogEvent:
    """One line a log service returned; `timestamp` is None where the source keeps none."""

    message: str
    timestamp: datetime | None = None


@dataclass(frozen=True)
class LogPage:
    """One read of one log source: its status, the lines, and the service's own next token."""

    status: LogReadStatus
    events: tuple[LogEvent, ...] = ()
    next_token: str | None = None
    problem: str | None = None  # why, when the status is notFound / accessDenied / error


class LogReader(Protocol):
    """Reads one log source: a group (ARN or name) with an exact stream, a prefix, or neither.

    `execution_filter` (an execution id) keeps only that execution's lines; a service error is
    reported in the page's status, never raised.
    """

    def read(
        self,
        group: str,
        stream: str = "",
        prefix: str = "",
        execution_filter: str | None = None,
        next_token: str | None = None,
        limit: int = 100,
    ) -> LogPage: ...


class StateMachineLogReader(Protocol):
    """Reads the events a Step Functions state machine logged for one execution from its log
    group (ARN or name): only those whose `execution_arn` is `execution_arn`, oldest first, as
    one line each. `start_time` skips what was logged before the run started. A service error is
    reported in the page's status, never raised; a page may be empty and still have a token."""

    def read_execution_events(
        self,
        group: str,
        execution_arn: str,
        start_time: datetime | None = None,
        next_token: str | None = None,
        limit: int = 1000,
    ) -> LogPage: ...


class RunLogSource(Protocol):
    """Where a run's own log (the main row's executionLog) is read from when the run ends: the
    text, whole up to the source's bound. A log that is missing or unreadable gives a one-line
    note saying why (or nothing), never an error: a run log never fails the run's end."""

    def read_run_log(self, execution: WorkflowExecution) -> str: ...


class Clock(Protocol):
    def now(self) -> datetime: ...


class IdGenerator(Protocol):
    def new_id(self) -> str: ...

    def derived_id(self, seed: str) -> str:
        """The same id for the same seed, every time (idempotent launches)."""
        ...


@dataclass(frozen=True)
class Delivery:
    """What publishing an event came to. A bus that delivers later (EventBridge) knows only the
    event id (`accepted` None); the in-process bus knows whether its subscriber accepted it."""

    event_id: str | None = None
    accepted: bool | None = None
    reason: str | None = None
    warnings: tuple[str, ...] = ()  # what an accepting subscriber left out


class EventNotPublishedError(RuntimeError):
    """The bus did not take the event (EventBridge failed the entry); the message says why."""


class EventBus(Protocol):
    """Where a step publishes its registration events (EventBridge, or the local runner's bus)."""

    @property
    def name(self) -> str: ...

    def publish(
        self,
        source: str,
        detail_type: str,
        detail: dict[str, Any],
        credential: str | None = None,
    ) -> Delivery:
        """Put one event; raises EventNotPublishedError when the bus refuses it.

        `credential` (the step's registration token) goes to an in-process subscriber beside
        the event, never into it: EventBridge is never sent one, its IAM policy decides who
        may publish."""
        ...


class RegistrationCredentials(Protocol):
    """Per-step credentials of local registrations: issued to a step, checked on its events."""

    def issue(self, workflow_execution_id: str, pipeline_execution_id: str) -> str: ...

    def verify(
        self, workflow_execution_id: str, pipeline_execution_id: str, token: str
    ) -> bool: ...


class Authorizer(Protocol):
    """Decides one (subject, object, action) by the roles' constraints; deny wins (seed 000's
    two tiers both ask it). `obj` holds the fields constraints test (`object__type`,
    `databaseId`, `workflowId`, `assetName`, `route__path`, ...)."""

    def decide(
        self, subject: Subject, obj: Mapping[str, Any], action: Action
    ) -> AccessDecision: ...


class AuditLog(Protocol):
    """Where denials are written: who, the route, the object, the rule; never a secret."""

    def denied(
        self, subject: Subject, route: str, obj: Mapping[str, Any], decision: AccessDecision
    ) -> None: ...


class TokenVerifier(Protocol):
    """A bearer token to the subject it names; raises NotAuthenticatedError for none, a bad one
    or an expired one."""

    def verify(self, token: str) -> Subject: ...


class RevokedTokens(Protocol):
    """Tokens refused before they expire (seconds since the epoch throughout): one token by
    its id, kept until it would expire anyway, or every token of a user issued up to a moment."""

    def revoke_token(self, token_id: str, expires_at: int) -> None: ...

    def revoke_user(self, user_id: str, issued_until: int) -> None: ...

    def is_revoked(self, token_id: str, user_id: str, issued_at: int) -> bool: ...


class AuthorizationStore(Protocol):
    """Roles, their constraints and user-role assignments. Every write of a role or constraint
    moves `revision()` on, so an authorizer keeps its compiled policy until it changes.
    add_role raises RoleAlreadyExistsError; a write naming a missing role, RoleNotFoundError."""

    def create_tables(self) -> None: ...

    def add_role(self, role: Role) -> None: ...

    def list_roles(self) -> list[Role]:
        """Every role, by name."""
        ...

    def delete_role(self, role_name: str) -> None:
        """The role, its constraints and every assignment of it."""
        ...

    def assign(self, assignment: RoleAssignment) -> None:
        """Idempotent: assigning a held role again changes nothing."""
        ...

    def unassign(self, assignment: RoleAssignment) -> bool:
        """False when the user did not hold the role."""
        ...

    def list_assignments(self, user_id: str | None = None) -> list[RoleAssignment]:
        """Every assignment (of one user), by user then role."""
        ...

    def roles_of(self, user_id: str) -> tuple[str, ...]:
        """The roles assigned to the user, by name; one consistent read."""
        ...

    def put_constraints(self, constraints: Sequence[Constraint]) -> None:
        """Add or replace each constraint (keyed by role and constraint id), all at once."""
        ...

    def list_constraints(self, role_name: str | None = None) -> list[Constraint]:
        """Every constraint (of one role), by role then id."""
        ...

    def revision(self) -> str:
        """Changes whenever a role or constraint is written; one small read."""
        ...

    def policy(self) -> AuthorizationPolicy:
        """Every role and constraint with the revision they are as of."""
        ...


class CostScope(StrEnum):
    """Which entries a cost read takes: one run's, a workflow's, a group's, or all of them."""

    EXECUTION = "execution"
    WORKFLOW = "workflow"
    GROUP = "group"
    ALL = "all"


class CostLedger(Protocol):
    """Append-only cost entries (seed 003 COST_LEDGER_ENTRY); an entry is never rewritten."""

    def create_tables(self) -> None: ...

    def append(self, entries: Sequence[CostLedgerEntry]) -> None:
        """Add the entries all at once (one transaction; on DynamoDB one TransactWriteItems per
        100, the service's cap). CostEntryExistsError, nothing of that transaction written, when
        an entry's key (run, step, attempt, entry id) is taken."""
        ...

    def list_entries(self, scope: CostScope, key: str | None) -> list[CostLedgerEntry]:
        """Every entry of the scope - `key` is the run id, `databaseId:workflowId` or the group
        id; None for ALL - one index or partition query (paged to the end), never a scan. A
        run's entries come by entry key, the others oldest first by recordedAt."""
        ...


class Approvals(Protocol):
    """Approval requests (seed 003 APPROVAL_REQUEST), read. A request opened or closed is a
    run's transition: a `RunWriter` writes it with its event (ApprovalRequested,
    ApprovalDecided) in one atomic write, so the log never misses a gate."""

    def create_tables(self) -> None: ...

    def renew_task_token(self, request: ApprovalRequest) -> bool:
        """Store `request.task_token` on the stored request, only while it is PENDING, with no
        event (how the gate is answered is nobody's business but the orchestrator's): a Step
        Functions task tried again waits on a new token. False, nothing written, when it is not
        pending."""
        ...

    def get(self, approval_id: str) -> ApprovalRequest:
        """ApprovalNotFoundError when there is none."""
        ...

    def list_for_execution(self, workflow_execution_id: str) -> list[ApprovalRequest]:
        """A run's requests, oldest first (its partition: one query)."""
        ...

    def list_requests(
        self, pending_only: bool, limit: int, starting_token: str | None = None
    ) -> Page[ApprovalRequest]:
        """Requests across all runs, newest first: the pending ones (a sparse index) or all of
        them; one index query per page, never a scan."""
        ...


@dataclass(frozen=True)
class MainRowKey:
    """The table key of one main row (seed 000: the run's id, then its workflow's key)."""

    workflow_execution_id: str
    workflow_key: str


@dataclass(frozen=True)
class MainRowPage:
    """One page of the main table in key order: how many rows it held, which of them lack the
    global-list partition, and where the next page starts (None: this was the last)."""

    scanned: int
    unstamped: tuple[MainRowKey, ...]
    next_cursor: str | None


class ListPartitionBackfill(Protocol):
    """The main rows a write path left without `allListPartition` (seed 000's warning), found by
    the product's only scan and stamped one conditional write at a time."""

    def scan_page(self, cursor: str | None, limit: int) -> MainRowPage:
        """Up to `limit` main rows after `cursor` (None: from the start); a cursor this adapter
        did not issue raises InvalidInputError."""
        ...

    def stamp(self, row: MainRowKey) -> bool:
        """Give the row the partition if it still has none and still exists; False otherwise
        (a concurrent writer stamped or rewrote it first: its row is never overwritten)."""
        ...


@dataclass(frozen=True)
class ArchivedItem:
    """One stored item in the store-neutral form: the table's ResourceKeys name (never its
    physical name, which a prefix may change) and the item as plain JSON values."""

    table: str
    item: Mapping[str, Any]
    line: int = 0  # where the item was read from (0: not read from a file)
    # not the run's own: a definition or an asset file other runs may name too
    shared: bool = False


@dataclass(frozen=True)
class ArchivedBody:
    """A body an item budget moved to the object store, carried inline with its run."""

    key: str
    data: bytes
    line: int = 0


@dataclass(frozen=True)
class ArchivedRun:
    """Every item of one run in every table, the definitions and asset files it names, and its
    offloaded bodies; the main row is the last item (written last, so a cut-short import leaves
    no half run listed)."""

    workflow_execution_id: str
    items: tuple[ArchivedItem, ...]
    bodies: tuple[ArchivedBody, ...] = ()


@dataclass(frozen=True)
class RejectedRun:
    """A run whose lines in an archive break a rule: none of it is imported."""

    workflow_execution_id: str
    line: int
    message: str


@dataclass(frozen=True)
class ImportedRun:
    """What an import of one run did: items written, items found equal, items found different
    (left as stored: nothing already stored is overwritten), each named."""

    written: int
    unchanged: int
    conflicts: tuple[str, ...] = ()


class RunArchive(Protocol):
    """Whole runs read from and written to one store, item by item (store-to-store copy)."""

    def list_run_ids(self, since: datetime | None) -> list[str]:
        """The runs in the global list started at or after `since` (None: all), oldest first."""
        ...

    def export_run(self, workflow_execution_id: str) -> ArchivedRun:
        """Raises ExecutionNotFoundError when the run has no main row."""
        ...

    def import_run(self, run: ArchivedRun) -> ImportedRun:
        """Bodies first, then each absent item by a conditional put, the main row last."""
        ...

    def differences(self, run: ArchivedRun) -> list[str]:
        """Each item and body of `run` that the store holds otherwise or not at all, named."""
        ...
