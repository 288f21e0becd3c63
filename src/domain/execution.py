"""A workflow execution and the records written around it (seed 000 tables, DESIGN §3)."""

import mimetypes
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal, Protocol, Self, TypeVar

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from domain.approvals import ApprovalRequest
from domain.attempts import TaskExecution
from domain.authorization import AssetKey
from domain.available_logs import AvailableLog
from domain.derived import aware, replaced
from domain.errors import UnreadableRowError
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.result_text import ResultText
from domain.stages import SubExecutionState, SubExecutionWarning
from domain.statuses import TERMINAL_STATUSES, ExecutionStatus, StepStatus
from domain.sub_processes import SubExecutionStop
from domain.triggers import TriggerType
from domain.truncation import TruncatedCollection
from domain.workflow import ExecutionType, InputFileArity, WorkflowDefinition


def _whole_second(moment: datetime) -> datetime:
    return moment.replace(microsecond=0) if moment.microsecond else moment


# VAMS 2.6 stores a run's and a step's dates as `YYYY-MM-DDTHH:MM:SSZ`, and reads nothing finer: a
# record holds such a date as the table holds it, so what is written is what is read back. (wfx's
# own records, attempts and events, keep microseconds.)
TableDate = Annotated[AwareDatetime, AfterValidator(_whole_second)]


def table_date(moment: datetime, field: str) -> datetime:
    """What a TableDate field makes of `moment`, for a record derived without validation."""
    return _whole_second(aware(moment, field))


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    def _evolve(self, **changes: Any) -> Self:
        # Validated again as a whole (model_copy() would not validate), from the fields as they
        # are: nested records stay the valid instances they are, where model_dump() would turn
        # them into dicts only to rebuild them, half the cost of every state change.
        return self.model_validate(self.__dict__ | changes)

    def fields_changed_in(self, later: Self) -> frozenset[str]:
        """The fields `later` (this record as a decision changed it) may hold another value in:
        the change as a delta, those not the very object they were (a superset: a field set to
        an equal value may be in it; the caller compares what they write)."""
        mine = self.__dict__
        return frozenset(
            [name for name, value in later.__dict__.items() if value is not mine[name]]
        )

    def _replace(self, **changes: Any) -> Self:
        """model_copy(update=changes), as unvalidated, for values derived from valid ones.

        It sets the copy's four parts directly where model_copy passes each through copy.copy
        first: half the cost, paid on every row of a list page (the derived redriveStatus).
        A _Record forbids extras and has no private attributes.
        """
        return replaced(self, changes)


# The lease of an ended run a permanent delete has begun on: no runner holds an ended run, so the
# lease names the delete, and no redrive or rerun takes the run up while its objects and rows go.
DELETING_OWNER_PREFIX = "deleting:"


class RunnerLease(_Record):
    """The local runner's claim on an open run, renewed while it runs (DESIGN §3a).

    `owner` names the runner (host, process and a random part); a lease not renewed by
    `expires_date` belongs to a runner that is gone.
    """

    owner: str
    renewed_date: AwareDatetime
    expires_date: AwareDatetime


class WorkflowExecution(_Record):
    """The main row: one run of one workflow version."""

    workflow_execution_id: str
    workflow_database_id: str
    workflow_id: str
    workflow_version: int
    execution_group_id: str | None = None
    status: ExecutionStatus
    execution_start_date: TableDate
    # True when no start was recorded and the V1 migration estimated it (VAMS startDateEstimated)
    start_date_estimated: bool = False
    execution_stop_date: TableDate | None = None
    last_sfn_sync_check_date: TableDate | None = None
    triggered_by_user_id: str
    trigger_type: TriggerType
    orchestrator: str = "local"
    state_machine_arn: str | None = None
    execution_arn: str | None = None
    # the CloudWatch Logs group the orchestrator logs the run to (VAMS executionLogGroupArn)
    execution_log_group_arn: str | None = None
    execution_log: str | None = None
    # Set when executionLog holds only the tail: the whole log is this object-store key.
    execution_log_object_key: str | None = None
    # seed 000: executionError is the failure message (the error and its cause, joined);
    # executionCause keeps the cause alone, as DescribeExecution answers them apart
    execution_error: str | None = None
    execution_cause: str | None = None
    redrive_count: int = 0
    redrive_date: AwareDatetime | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    client_token: str | None = None
    request_digest: str | None = None
    # the run this one reruns (wfx's own attribute: VAMS keeps the link only in its audit log)
    rerun_of_execution_id: str | None = None
    # Abort is a state first: once requested, the run only stops (DESIGN §3a).
    abort_requested_date: AwareDatetime | None = None
    abort_cause: str | None = None
    # Set by the completion before it imports the results into the output asset: from then on
    # the run ends SUCCEEDED, so no abort may be requested (wfx's own attribute).
    finishing_date: AwareDatetime | None = None
    runner_lease: RunnerLease | None = None

    @property
    def workflow_key(self) -> str:
        return f"{self.workflow_database_id}:{self.workflow_id}"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def is_being_deleted(self) -> bool:
        """A permanent delete began on it (cut short, if the run is still here for long)."""
        lease = self.runner_lease
        return lease is not None and lease.owner.startswith(DELETING_OWNER_PREFIX)

    @property
    def is_stopping(self) -> bool:
        """An abort was requested and the run has not ended yet."""
        return self.abort_requested_date is not None and not self.is_terminal

    def complete(
        self,
        status: ExecutionStatus,
        at: AwareDatetime,
        log: str,
        error: str | None,
        log_object_key: str | None = None,
        cause: str | None = None,
    ) -> "WorkflowExecution":
        if self.is_terminal:
            return self  # seed 000: a terminal row is never changed again
        failure = None if status is ExecutionStatus.SUCCEEDED else error
        # Unvalidated (domain.derived): the date is made a TableDate here, the rest are of the
        # fields' types (mypy checks the callers) with no rule of their own.
        return self._replace(
            status=status,
            execution_stop_date=table_date(at, "executionStopDate"),
            runner_lease=None,  # a finished run is nobody's to renew
            execution_log=log or None,  # stored rows have no empty attributes
            execution_log_object_key=log_object_key,
            # seed 000: only a real failure message, never the status name or a made-up text
            execution_error=failure or None,
            execution_cause=(cause or None) if failure else None,
            # said of the open run (DescribeExecution's "is RUNNING"): no longer true once it ends
            redrive_status=None,
            redrive_status_reason=None,
        )


class PipelineExecution(_Record):
    """One step of a run, written at launch and advanced NEW -> RUNNING -> terminal."""

    pipeline_execution_id: str
    workflow_execution_id: str
    pipeline_database_id: str
    pipeline_id: str
    step_index: int = Field(ge=0)
    # The step definition it runs (WorkflowVersion.step_definition_id); None on a step launched
    # before step definitions had ids, or migrated from the earlier table.
    step_definition_id: str | None = None
    status: StepStatus = StepStatus.NEW
    start_date: TableDate | None = None
    stop_date: TableDate | None = None
    execution_type: ExecutionType
    input_file_arity: InputFileArity
    wait_for_callback: bool = False
    # the Lambda function (or other AWS resource) the step calls, as an ARN; "" when it has none
    pipeline_resource_arn: str = ""
    # the registration event source the step's pipeline sends under
    # (`{prefix}.execution.{executionId}.pipeline.{pipelineExecutionId}`); "" on a step launched
    # before wfx recorded it
    orchestration_bus_event_prefix: str = ""
    from_pipeline_execution_id: str | None = None
    end_state: bool
    input_path: str
    output_files_path: str
    output_preview_path: str
    output_metadata_path: str
    auxiliary_path: str
    error: str | None = None
    registered_sub_executions: tuple[RegisteredSubExecution, ...] = ()
    registered_logs: tuple[RegisteredLog, ...] = ()
    sub_execution_stops: tuple[SubExecutionStop, ...] = ()  # what aborts did to those children
    vended_role_arn: str = ""
    s3_read_only_scopes: tuple[str, ...] = ()
    s3_read_write_scopes: tuple[str, ...] = ()
    credential_vending_state: str = "notVended"  # reserved: nothing vends credentials yet

    @property
    def pipeline_key(self) -> str:
        return f"{self.pipeline_database_id}:{self.pipeline_id}"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


class ExecutionInput(_Record):
    """A file the run read, pinned to the version it read ("" where none was pinned: a run VAMS
    launched, whose inputs are its selections). wfx keeps these in a table of its own: what lets
    a redrive read the same bytes; VAMS's inputs table holds one row per selection."""

    workflow_execution_id: str
    workflow_key: str
    database_id: str
    asset_id: str
    input_asset_file_key: str
    bucket: str
    asset_root_key: str
    version_id: str
    execution_start_date: TableDate
    # the input_asset_file_key of the selection it was resolved from ("" on a selection row)
    selection_key: str = ""

    @property
    def asset_key(self) -> str:
        return f"{self.database_id}:{self.asset_id}"

    @property
    def row_key(self) -> str:
        """Its sort key (seed 000 databaseId:assetId:inputAssetFileKey): the paging cursor."""
        return f"{self.database_id}:{self.asset_id}:{self.input_asset_file_key}"


def selection_file_key(asset_root_key: str, file_key: str | None) -> str:
    """A selection's key as VAMS 2.6 writes it in its inputs table: the bucket key (the asset's
    root, then the asset-relative key) with exactly one leading "/"; a whole asset is its root,
    a folder ends in "/"."""
    root = asset_root_key
    if root and not root.endswith("/"):
        root += "/"
    return "/" + (root + (file_key or "")).lstrip("/")


class InputSelection(_Record):
    """One input a run was launched with (a file, a folder or a whole asset): one row of
    WorkflowExecutionInputsStorageTable, as VAMS writes it. `version_id` is the file's version
    for a single-file selection, "" for a folder or a whole asset (no single version)."""

    workflow_execution_id: str
    workflow_database_id: str
    workflow_id: str
    database_id: str
    asset_id: str
    input_asset_file_key: str  # selection_file_key: "/"-led, the asset root included
    bucket: str
    asset_root_key: str
    version_id: str
    execution_start_date: TableDate

    @classmethod
    def of(cls, row: ExecutionInput, file_key: str | None, version_id: str) -> "InputSelection":
        """The selection of `file_key` (None: the whole asset) in the asset a file row names."""
        database_id, _, workflow_id = row.workflow_key.partition(":")
        return cls(
            workflow_execution_id=row.workflow_execution_id,
            workflow_database_id=database_id,
            workflow_id=workflow_id,
            database_id=row.database_id,
            asset_id=row.asset_id,
            input_asset_file_key=selection_file_key(row.asset_root_key, file_key),
            bucket=row.bucket,
            asset_root_key=row.asset_root_key,
            version_id=version_id,
            execution_start_date=row.execution_start_date,
        )

    @property
    def workflow_key(self) -> str:
        return f"{self.workflow_database_id}:{self.workflow_id}"

    @property
    def asset_key(self) -> str:
        return f"{self.database_id}:{self.asset_id}"


class ExecutionConfiguration(_Record):
    """The run's request as launched: its output target (absent for a results-only run)."""

    workflow_execution_id: str
    workflow_key: str
    workflow_version: int
    execution_start_date: TableDate
    output_database_id: str | None = None
    output_asset_id: str | None = None
    input_selections: tuple[str, ...] = ()
    execution_group_id: str | None = None
    # the steps as launched, in order: (pipelineDatabaseId, pipelineId) each
    specified_pipelines: tuple[tuple[str, str], ...] = ()

    @property
    def output_asset_key(self) -> str | None:
        if self.output_database_id and self.output_asset_id:
            return f"{self.output_database_id}:{self.output_asset_id}"
        return None

    @property
    def output_asset(self) -> AssetKey | None:
        if self.output_database_id and self.output_asset_id:
            return AssetKey(database_id=self.output_database_id, asset_id=self.output_asset_id)
        return None


class StepInputConfiguration(_Record):
    """What one step was launched with: its own definition and its own input entities."""

    pipeline_execution_id: str
    workflow_execution_id: str
    execution_type: ExecutionType
    handler: str | None = None
    command: tuple[str, ...] | None = None
    input_file_arity: InputFileArity
    metadata_inputs: tuple[str, ...] = ()
    input_files: tuple[str, ...] = ()


def normalize_file_key(file_key: str) -> str:
    """A file key as VAMS writes it in its tables' paths: asset-relative, one leading "/"
    ("/" alone is the asset itself)."""
    return "/" + file_key.lstrip("/")


# The metadata a step's input metadata row describes: an asset or one of its files, or a
# database (VAMS's metadata-source databases: no asset, path "/").
MetadataScope = Literal["asset", "database"]


class StepInputMetadata(_Record):
    """Asset metadata handed to one step, narrowed to the keys its metadataInputs gate names.
    `file_path` is "/"-led, "/" for the asset's (or a database's) own metadata."""

    pipeline_execution_id: str
    workflow_execution_id: str
    database_id: str
    asset_id: str
    file_path: Annotated[str, AfterValidator(normalize_file_key)]
    metadata: tuple[tuple[str, str], ...]
    scope: MetadataScope = "asset"
    # the file's attributes (VAMS gates them apart from its metadata); wfx's assets have none
    attributes: tuple[tuple[str, str], ...] = ()

    @property
    def row_key(self) -> str:
        return f"{self.database_id}:{self.asset_id}:{self.file_path}"


class PipelineInputFile(_Record):
    """PipelineExecutionInputFiles: written only by the data migration, never at run time; the
    file key "/"-led, as VAMS 2.6's upgrade writes it ("/" the whole asset)."""

    pipeline_execution_id: str
    workflow_execution_id: str
    database_id: str
    asset_id: str
    input_asset_file_key: Annotated[str, AfterValidator(normalize_file_key)]


class OutputFile(_Record):
    """A step's latest version of one output path (seed 000): a later attempt's file of the
    same path replaces the row; every attempt's own stays as its Artifact."""

    pipeline_execution_id: str
    workflow_execution_id: str
    file_type: str
    relative_file_path: str
    version_id: str
    size: int
    etag: str
    # the attempt that wrote this version; None on a row recorded before attempts were named
    attempt: int | None = Field(default=None, ge=1)
    # the object store's bucket ("" on a row recorded before rows named it)
    bucket: str = ""
    # the stored contentType; a row without one takes the type its path's extension names
    # ("" when none does), as wfx's rows are written
    content_type: str = ""

    @model_validator(mode="before")
    @classmethod
    def _typed_by_path(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("content_type"):
            path = data.get("relative_file_path")
            if isinstance(path, str):
                data = {**data, "content_type": mimetypes.guess_type(path)[0] or ""}
        return data

    @property
    def kind_path(self) -> str:
        """The path relative to its kind's own folder, as VAMS records it: `preview/p.svg`
        of the shared output folder is `p.svg` of the previews."""
        return kind_relative_path(self.file_type, self.relative_file_path)

    @property
    def row_key(self) -> str:
        return f"{self.file_type}:{self.kind_path}"


# Attempt numbers in an artifact's key are zero-padded so that the text key sorts as numbers do
# (attempt 10 after attempt 9), the order DynamoDB and SQLite give a string sort key.
ARTIFACT_ATTEMPT_DIGITS = 6


class Artifact(_Record):
    """Seed 003 ARTIFACT: one output file version, kept with the attempt (TASK_EXECUTION) that
    wrote it. Written once and never replaced: a retry or a redrive writing the same path adds
    an artifact of its own attempt, and the earlier attempt's stays."""

    pipeline_execution_id: str
    workflow_execution_id: str
    attempt: int = Field(ge=1)
    file_type: str
    relative_file_path: str
    version_id: str
    size: int
    etag: str
    recorded_at: AwareDatetime

    @property
    def row_key(self) -> str:
        """`attempt:fileType:relativeFilePath`: a step's artifacts by attempt, then by path."""
        attempt = f"{self.attempt:0{ARTIFACT_ATTEMPT_DIGITS}d}"
        return f"{attempt}:{self.file_type}:{self.relative_file_path}"


def artifacts_of(files: Sequence[OutputFile], at: datetime) -> tuple[Artifact, ...]:
    """The artifact of each file that names its attempt, recorded `at`."""
    return tuple(
        Artifact(
            pipeline_execution_id=f.pipeline_execution_id,
            workflow_execution_id=f.workflow_execution_id,
            attempt=f.attempt,
            file_type=f.file_type,
            relative_file_path=f.relative_file_path,
            version_id=f.version_id,
            size=f.size,
            etag=f.etag,
            recorded_at=at,
        )
        for f in files
        if f.attempt is not None
    )


class OutputMetadata(_Record):
    """One metadata key a step wrote for a file of the output asset; `target_file_path` is
    "/"-led, "/" for the asset itself."""

    pipeline_execution_id: str
    workflow_execution_id: str
    target_file_path: Annotated[str, AfterValidator(normalize_file_key)]
    metadata_key: str
    value: str
    # the object key of the metadata file it came from ("" where not known)
    source_file_key: str = ""

    @property
    def row_key(self) -> str:
        return f"{self.target_file_path}:{self.metadata_key}"


class OutputResult(_Record):
    """A results file of the end step; `relative_file_path` is its path in the run's output
    folder, the file's key in the output asset."""

    pipeline_execution_id: str
    workflow_execution_id: str
    relative_file_path: str
    version_id: str
    output_database_id: str | None = None
    output_asset_id: str | None = None
    asset_version_id: str | None = None
    # the text VAMS keeps on its results row (resultsContent); None on wfx's rows, whose file
    # body stays in the object store
    stored_text: ResultText | None = None

    @property
    def row_key(self) -> str:
        """As VAMS keys a results row: the path led by "/"."""
        return normalize_file_key(self.relative_file_path)


class StepLog(_Record):
    pipeline_execution_id: str
    workflow_execution_id: str
    log_type: str = "summary"
    status: str
    message: str
    log_location: str = ""

    @property
    def row_key(self) -> str:
        return self.log_type


class LaunchRecords(_Record):
    """Everything a launch writes, as one unit: none of it is visible unless all of it is."""

    execution: WorkflowExecution
    inputs: tuple[ExecutionInput, ...]  # each file resolved, at its version (wfx's own table)
    configuration: ExecutionConfiguration
    steps: tuple[PipelineExecution, ...]
    step_configurations: tuple[StepInputConfiguration, ...]
    step_metadata: tuple[StepInputMetadata, ...] = ()
    selections: tuple[InputSelection, ...] = ()  # one per selection (VAMS's inputs table)


class StepOutputs(_Record):
    files: tuple[OutputFile, ...] = ()
    metadata: tuple[OutputMetadata, ...] = ()
    results: tuple[OutputResult, ...] = ()
    logs: tuple[StepLog, ...] = ()
    # written in the same write as `files`; read back attempt by attempt, then by path
    artifacts: tuple[Artifact, ...] = ()


class StepDetails(_Record):
    step: PipelineExecution
    configuration: StepInputConfiguration | None = None
    input_metadata: tuple[StepInputMetadata, ...] = ()
    # a factory, not an instance: one made here would build StepOutputs' schema at import
    outputs: StepOutputs = Field(default_factory=StepOutputs)
    attempts: tuple[TaskExecution, ...] = ()  # attempt ascending; read with the outputs
    sub_executions: tuple[SubExecutionState, ...] = ()  # only when a request asks for them
    available_logs: tuple[AvailableLog, ...] = ()  # derived on read, never stored
    result_texts: tuple[ResultText, ...] = ()  # read from the object store, never stored


class UnreadableRow(_Record):
    """A row of a run another writer left in a shape wfx cannot read, left out of what a read
    shows of the run: its table, key, the attribute at fault (None when no one attribute is)
    and what is wrong with it."""

    table: str
    key: str
    attribute: str | None = None
    problem: str

    @classmethod
    def of(cls, error: UnreadableRowError) -> "UnreadableRow":
        return cls(
            table=error.table, key=error.key, attribute=error.attribute, problem=error.problem
        )

    @property
    def note(self) -> str:
        """What a read says of the row it left out, in the words of the error a write gives."""
        return (
            f"{self.table} row {self.key} cannot be read: {self.problem}; left out of what is "
            "shown; mend or delete the row (another writer stored it)"
        )

    @property
    def list_note(self) -> str:
        """What a list says of the row it left out (the other rows listed), the error's words
        first, as a list of runs says it of a main row."""
        return (
            f"{self.table} row {self.key} cannot be read: {self.problem}; mend or delete the row "
            "(another writer stored it); left out of the list"
        )


@dataclass(frozen=True, slots=True)
class StepHead:
    """What a bounded read of a run needs of every step, its row read no further: its place in
    the chain and whether it started and ended (domain.redrive.local_history_event_count).

    A dataclass, not a record: a run of 10k steps has 10k of them, each made from a row its
    store has read already (the fields parsed as PipelineExecution's are)."""

    pipeline_execution_id: str
    from_pipeline_execution_id: str | None
    step_index: int
    status: StepStatus
    start_date: datetime | None


class ExecutionDetails(_Record):
    """What GetExecutionDetails returns: the main row, steps in chain order, inputs and outputs."""

    execution: WorkflowExecution
    configuration: ExecutionConfiguration | None = None
    inputs: tuple[ExecutionInput, ...] = ()
    # the run's selections as the launch stored them (a folder one row, "/"-led key, no version):
    # what VAMS's details call inputFiles, read themselves so no selection is lost when its
    # resolved files run past the inputs' bound
    selections: tuple[ExecutionInput, ...] = ()
    steps: tuple[StepDetails, ...] = ()
    sub_execution_warnings: tuple[SubExecutionWarning, ...] = ()
    log_warnings: tuple[str, ...] = ()  # a log destination that could not be looked up
    # seed 000: a bounded collection is never returned without naming what it dropped
    truncated_collections: tuple[TruncatedCollection, ...] = ()
    # the run's gates (seed 003 APPROVAL_REQUEST), oldest first; None when it has no approval step
    approvals: tuple[ApprovalRequest, ...] | None = None
    # the run's workflow as it is defined now (VAMS reads its name and description live, not as
    # run); None when not found (deleted, or a run VAMS launched from a workflow wfx does not hold)
    workflow: WorkflowDefinition | None = None
    # rows of the run wfx cannot read, left out of it (a step's: the step and its rows with it)
    unreadable_rows: tuple[UnreadableRow, ...] = ()
    # a bounded read's (ExecutionQueries.get_details' detailed_steps): every step's head in chain
    # order, where `steps` holds the first of them alone; None when `steps` holds every step
    step_heads: tuple[StepHead, ...] | None = None


class _ChainLink(Protocol):
    @property
    def pipeline_execution_id(self) -> str: ...
    @property
    def from_pipeline_execution_id(self) -> str | None: ...
    @property
    def step_index(self) -> int: ...


_Link = TypeVar("_Link", bound=_ChainLink)


def chain_order(steps: Sequence[_Link]) -> list[_Link]:
    """Walk the chain from the root (the step with no predecessor), then each step's successor.

    Steps the walk does not reach (a broken chain) follow in step-index order: none is hidden.
    """
    # Most callers hold the steps in chain order already (a launch builds them so, a run keeps
    # them so): each names the one before it, which the walk below would only confirm.
    previous = None
    for step in steps:
        if step.from_pipeline_execution_id != previous:
            break
        previous = step.pipeline_execution_id
    else:
        return list(steps)
    by_predecessor = {step.from_pipeline_execution_id: step for step in steps}
    ordered: list[_Link] = []
    seen: set[str] = set()
    current = by_predecessor.get(None)
    while current is not None and current.pipeline_execution_id not in seen:
        ordered.append(current)
        seen.add(current.pipeline_execution_id)
        current = by_predecessor.get(current.pipeline_execution_id)
    if len(ordered) == len(steps):
        return ordered  # the whole chain walked (each step once: ids are unique)
    rest = sorted(
        (s for s in steps if s.pipeline_execution_id not in seen), key=lambda s: s.step_index
    )
    return ordered + rest


def execution_object_prefix(workflow_execution_id: str) -> str:
    """Everything a run keeps in the object store is under it: outputs, the offloaded run log,
    the steps' auxiliary files (what a permanent delete removes)."""
    return f"executions/{workflow_execution_id}/"


def execution_output_prefix(workflow_execution_id: str) -> str:
    """The shared output folder every step of a run writes to (composed from the execution id)."""
    return f"executions/{workflow_execution_id}/output/"


def run_input_document(
    execution: WorkflowExecution, steps: Sequence[PipelineExecution]
) -> dict[str, Any]:
    """What a run is started with (the state machine's input; a local run's described input):
    the ids a step needs to call back. No output prefix: the state machine composes it from the
    execution's name, the execution id (seed 000)."""
    execution_id = execution.workflow_execution_id
    return {
        "workflowExecutionId": execution_id,
        "workflowDatabaseId": execution.workflow_database_id,
        "workflowId": execution.workflow_id,
        "workflowVersion": execution.workflow_version,
        "pipelineExecutionIds": [s.pipeline_execution_id for s in chain_order(list(steps))],
    }


def failure_parts(execution: WorkflowExecution) -> tuple[str | None, str | None]:
    """The run's error and cause apart, as DescribeExecution gives them: executionError holds
    both joined (seed 000), executionCause the cause alone, so the error is what precedes it."""
    error, cause = execution.execution_error, execution.execution_cause
    if error and cause and error.endswith(f": {cause}") and len(error) > len(cause) + 2:
        error = error[: -len(cause) - 2]
    return error, cause


# What the main row keeps of a long run log: its tail (DynamoDB caps an item at 400 KB); the whole
# log goes to the object store and is read through the logs route.
RUN_LOG_TAIL_BYTES = 64 * 1024


def execution_log_key(workflow_execution_id: str) -> str:
    """Where the whole run log goes when the row can keep only its tail (outside the outputs)."""
    return f"executions/{workflow_execution_id}/logs/execution.log"


def step_auxiliary_prefix(workflow_execution_id: str, pipeline_execution_id: str) -> str:
    return f"executions/{workflow_execution_id}/auxiliary/{pipeline_execution_id}/"


_KIND_FOLDERS = ("preview", "metadata")


def output_file_type(relative_file_path: str) -> str:
    """`preview/...` and `metadata/...` are previews and metadata; anything else is a file."""
    head = relative_file_path.split("/", 1)[0]
    return head if head in _KIND_FOLDERS and "/" in relative_file_path else "file"


def kind_relative_path(file_type: str, relative_file_path: str) -> str:
    """A shared-folder path relative to its kind's folder (`preview/p.svg` -> `p.svg`)."""
    folder = f"{file_type}/"
    if file_type in _KIND_FOLDERS and relative_file_path.startswith(folder):
        return relative_file_path[len(folder) :]
    return relative_file_path


def shared_folder_path(file_type: str, kind_path: str) -> str:
    """kind_relative_path's inverse: the path in the run's shared output folder."""
    return f"{file_type}/{kind_path}" if file_type in _KIND_FOLDERS else kind_path
