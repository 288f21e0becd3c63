"""The V1 data migration's rules: an item of the earlier table (VAMS 2.5.x's
WorkflowExecutionsStorageTable) read as that release wrote it, and the rows it becomes.

That release keyed a run by asset (`databaseId:assetId`, `executionId`), wrote its composite keys
with a literal `$` before each part (`$db:$asset`), its dates month first without a zone
(`%m/%d/%Y, %H:%M:%S`, UTC) or empty, and stray attributes (`object__type`). A migrated run keeps
only what seed 000's tables hold, in the run-time form.
"""

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, NamedTuple

from pydantic import AwareDatetime, BaseModel, ConfigDict

from domain.errors import InvalidInputError
from domain.execution import (
    ExecutionConfiguration,
    ExecutionInput,
    PipelineExecution,
    PipelineInputFile,
    StepInputConfiguration,
    WorkflowExecution,
)
from domain.names import execution_id_problem
from domain.statuses import TERMINAL_STATUSES, ExecutionStatus, StepStatus
from domain.triggers import SYSTEM_USER, TriggerType
from domain.workflow import ExecutionType, InputFileArity

V1_DATE_FORMAT = "%m/%d/%Y, %H:%M:%S"
# VAMS 2.5 rows without inputAssetFileKey ran on the whole asset: the selection key of an asset.
WHOLE_ASSET_KEY = "/"
MIGRATED_WORKFLOW_VERSION = 0  # that release had no workflow versions
# That release's row names no pipeline, and wfx does not read that release's workflow table:
# VAMS 2.6's upgrade names a step whose pipeline it cannot find so, as one end-state step.
UNKNOWN_PIPELINE_ID = "DELETED"
# Stable across runs and machines, so a re-run derives the same PipelineExecutionInputFiles keys.
_PIPELINE_ID_NAMESPACE = uuid.UUID("6b0f7a52-1d3e-4c1a-9a57-2f5d8e0c4b91")


class MigrationOutcome(StrEnum):
    MIGRATED = "migrated"  # written with the status it had
    RECONCILED = "reconciled"  # an open row, its status and dates taken from Step Functions
    UNREACHABLE = "keptRunning"  # an open row kept as it was: Step Functions did not answer
    UNKNOWN_EXECUTION = "unknownToStepFunctions"  # an open row Step Functions no longer knows
    ALREADY_MIGRATED = "alreadyMigrated"
    SKIPPED = "skipped"  # not migrated: the reason says which rule the item broke


class V1Execution(BaseModel):
    """One item of the earlier table, cleaned of its quirks."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: str
    asset_id: str
    execution_id: str
    workflow_database_id: str
    workflow_id: str
    state_machine_arn: str | None = None
    execution_arn: str | None = None
    input_asset_file_key: str | None = None
    status: ExecutionStatus
    start_date: AwareDatetime | None = None
    stop_date: AwareDatetime | None = None

    @property
    def item_key(self) -> str:
        """The item's own key in the earlier table: the checkpoint and the report name it so."""
        return f"{self.database_id}:{self.asset_id}:{self.execution_id}"

    @property
    def needs_reconcile(self) -> bool:
        return self.status not in TERMINAL_STATUSES and self.stop_date is None


def item_key_of(item: Mapping[str, Any]) -> str:
    """The best key a raw item offers, for reporting one that cannot be parsed."""
    partition = str(item.get("databaseId:assetId", "")) or ":".join(
        (str(item.get("databaseId", "")), str(item.get("assetId", "")))
    )
    parts = [_bare(part) for part in partition.split(":", 1)]
    return ":".join((*parts, _bare(str(item.get("executionId", "")))))


def _bare(value: str) -> str:
    return value[1:] if value.startswith("$") else value


def _text(item: Mapping[str, Any], name: str, required: bool = True) -> str | None:
    value = item.get(name)
    if value is None or value == "":
        if required:
            raise InvalidInputError(f"{name}: required, absent or empty")
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{name}: must be a string, got {type(value).__name__}")
    return value


def _composite(item: Mapping[str, Any], key: str, names: tuple[str, str]) -> tuple[str, str]:
    """The two parts of `key`, else of its two plain attributes, each without its `$`."""
    joined = item.get(key)
    if isinstance(joined, str) and joined.count(":") >= 1:
        first, second = joined.split(":", 1)
        from_key = (_bare(first), _bare(second))
    else:
        from_key = None
    plain = tuple(_bare(item[name]) if isinstance(item.get(name), str) else "" for name in names)
    parts = plain if all(plain) else from_key
    if not parts or not all(parts):
        raise InvalidInputError(f"{key}: required, as {names[0]}:{names[1]} or the two attributes")
    if from_key and all(plain) and from_key != plain:
        raise InvalidInputError(f"{key}: {joined!r} does not match {names[0]} and {names[1]}")
    return parts[0], parts[1]


def parse_v1_date(value: str | None, name: str) -> datetime | None:
    """Empty, or month first as that release wrote it (naive, UTC); ISO-8601 is read too."""
    if not value:
        return None
    try:
        return datetime.strptime(value, V1_DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(
            f"{name}: {value!r} is neither empty nor a date as MM/DD/YYYY, HH:MM:SS"
        ) from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def parse_v1_item(item: Mapping[str, Any]) -> V1Execution:
    """The item as a V1Execution; InvalidInputError names the attribute and the rule broken."""
    database_id, asset_id = _composite(item, "databaseId:assetId", ("databaseId", "assetId"))
    workflow_database_id, workflow_id = _composite(
        item, "workflowDatabaseId:workflowId", ("workflowDatabaseId", "workflowId")
    )
    execution_id = _bare(_text(item, "executionId") or "")
    problem = execution_id_problem(execution_id)
    if problem:
        raise InvalidInputError(f"executionId: {problem}")
    status_text = (_text(item, "executionStatus") or "").upper()
    try:
        status = ExecutionStatus(status_text)
    except ValueError:
        allowed = ", ".join(s.value for s in ExecutionStatus)
        raise InvalidInputError(
            f"executionStatus: {status_text!r} is not one of {allowed}"
        ) from None
    return V1Execution(
        database_id=database_id,
        asset_id=asset_id,
        execution_id=execution_id,
        workflow_database_id=workflow_database_id,
        workflow_id=workflow_id,
        state_machine_arn=_text(item, "workflow_arn", required=False),
        execution_arn=_text(item, "execution_arn", required=False),
        input_asset_file_key=_text(item, "inputAssetFileKey", required=False),
        status=status,
        start_date=parse_v1_date(_text(item, "startDate", required=False), "startDate"),
        stop_date=parse_v1_date(_text(item, "stopDate", required=False), "stopDate"),
    )


def migrated_pipeline_execution_id(execution_id: str) -> str:
    """The PipelineExecutionInputFiles partition of a migrated run: that release had no step
    ids, so one is derived from the run's, the same on every migration run."""
    return str(uuid.uuid5(_PIPELINE_ID_NAMESPACE, f"v1:{execution_id}"))


class MigratedRun(BaseModel):
    """What one V1 item becomes, as VAMS 2.6's upgrade writes it: the main row, its input row,
    its one step, that step's input file, and the run's and the step's configuration rows."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    execution: WorkflowExecution
    inputs: tuple[ExecutionInput, ...]
    steps: tuple[PipelineExecution, ...]
    input_files: tuple[PipelineInputFile, ...]
    configuration: ExecutionConfiguration
    step_configurations: tuple[StepInputConfiguration, ...]


class Reconciled(BaseModel):
    """What Step Functions said of an open row: its status and dates (None: it did not say)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    status: ExecutionStatus
    start_date: AwareDatetime | None = None
    stop_date: AwareDatetime | None = None
    error: str | None = None
    cause: str | None = None


def recorded_start(v1: V1Execution, reconciled: Reconciled | None = None) -> datetime | None:
    """The run's start as the row or Step Functions recorded it; None when neither did."""
    return v1.start_date or (reconciled.start_date if reconciled is not None else None)


def estimated_start(
    workflow_created: datetime | None, stop: datetime | None, migrated_at: datetime
) -> datetime:
    """A start for a run that recorded none. VAMS 2.6's upgrade dates it from its workflow's
    creation (a run cannot predate its workflow); wfx takes that, never later than the run's stop,
    else the stop, else the migration's own time: a date in every list, never 1970 nor a gap."""
    known = [moment for moment in (workflow_created, stop) if moment is not None]
    return min(known) if known else migrated_at


def _step_status(status: ExecutionStatus) -> StepStatus:
    # a run waiting on a redrive has a failed step; every other status is a step's own
    return StepStatus.FAILED if status is ExecutionStatus.PENDING_REDRIVE else StepStatus(status)


class _Outcome(NamedTuple):
    """A migrated run's status and dates, settled from its row and Step Functions' answer."""

    status: ExecutionStatus
    start: datetime
    stop: datetime | None
    error: str | None
    cause: str | None
    start_estimated: bool


def migrated_run(
    v1: V1Execution,
    reconciled: Reconciled | None = None,
    *,
    migrated_at: datetime,
    workflow_created: datetime | None = None,
) -> MigratedRun:
    """The rows of `v1`, with what Step Functions said of it when it was asked and answered;
    a run that recorded no start gets estimated_start's, flagged as estimated."""
    outcome = _settled_outcome(v1, reconciled, migrated_at, workflow_created)
    execution = _migrated_execution(v1, outcome)
    file_key = v1.input_asset_file_key or WHOLE_ASSET_KEY
    pipeline_execution_id = migrated_pipeline_execution_id(v1.execution_id)
    step = _migrated_step(v1, pipeline_execution_id, outcome)
    input_file = PipelineInputFile(
        pipeline_execution_id=pipeline_execution_id,
        workflow_execution_id=v1.execution_id,
        database_id=v1.database_id,
        asset_id=v1.asset_id,
        input_asset_file_key=file_key,
    )
    step_configuration = StepInputConfiguration(
        pipeline_execution_id=pipeline_execution_id,
        workflow_execution_id=v1.execution_id,
        execution_type=step.execution_type,
        input_file_arity=step.input_file_arity,
    )
    return MigratedRun(
        execution=execution,
        inputs=(_migrated_input(v1, execution.workflow_key, file_key, outcome.start),),
        steps=(step,),
        input_files=(input_file,),
        configuration=_migrated_configuration(v1, execution.workflow_key, outcome.start),
        step_configurations=(step_configuration,),
    )


def _settled_outcome(
    v1: V1Execution,
    reconciled: Reconciled | None,
    migrated_at: datetime,
    workflow_created: datetime | None,
) -> _Outcome:
    status, start, stop = v1.status, recorded_start(v1, reconciled), v1.stop_date
    error = cause = None  # that release kept no message: none, never the status name (seed 000)
    if reconciled is not None:
        status = reconciled.status
        # moto (and a run stopped a moment ago) may answer a terminal status without a date
        stop = (reconciled.stop_date or start) if status in TERMINAL_STATUSES else None
        if status in TERMINAL_STATUSES and status is not ExecutionStatus.SUCCEEDED:
            # seed 000: executionError is Step Functions' error and cause, or nothing
            error = ": ".join(p for p in (reconciled.error, reconciled.cause) if p) or None
            cause = reconciled.cause if error else None
    start_estimated = start is None
    if start is None:
        start = estimated_start(workflow_created, stop, migrated_at)
    if stop is None and status in TERMINAL_STATUSES:
        stop = start  # an ended run without a stop ended, as far as is known, when it started
    return _Outcome(status, start, stop, error, cause, start_estimated)


def _migrated_execution(v1: V1Execution, outcome: _Outcome) -> WorkflowExecution:
    return WorkflowExecution(
        workflow_execution_id=v1.execution_id,
        workflow_database_id=v1.workflow_database_id,
        workflow_id=v1.workflow_id,
        workflow_version=MIGRATED_WORKFLOW_VERSION,
        status=outcome.status,
        execution_start_date=outcome.start,
        execution_stop_date=outcome.stop,
        # that release recorded no user; the run is attributed as an unattended one is
        triggered_by_user_id=SYSTEM_USER,
        trigger_type=TriggerType.MANUAL,
        orchestrator="stepfunctions",
        state_machine_arn=v1.state_machine_arn,
        execution_arn=v1.execution_arn,
        execution_error=outcome.error,
        execution_cause=outcome.cause,
        start_date_estimated=outcome.start_estimated,
    )


def _migrated_input(
    v1: V1Execution, workflow_key: str, file_key: str, start: datetime
) -> ExecutionInput:
    return ExecutionInput(
        workflow_execution_id=v1.execution_id,
        workflow_key=workflow_key,
        database_id=v1.database_id,
        asset_id=v1.asset_id,
        input_asset_file_key=file_key,
        # VAMS 2.5 recorded neither the bucket nor the asset root, and pinned no version
        bucket="",
        asset_root_key="",
        version_id="",
        execution_start_date=start,
    )


def _migrated_step(
    v1: V1Execution, pipeline_execution_id: str, outcome: _Outcome
) -> PipelineExecution:
    return PipelineExecution(
        pipeline_execution_id=pipeline_execution_id,
        workflow_execution_id=v1.execution_id,
        pipeline_database_id=v1.workflow_database_id,
        pipeline_id=UNKNOWN_PIPELINE_ID,
        step_index=0,
        # the run's one step: its status and dates are the run's
        status=_step_status(outcome.status),
        start_date=outcome.start,
        stop_date=outcome.stop,
        # that release's pipelines were Lambda functions, none waiting on a callback
        execution_type=ExecutionType.LAMBDA,
        input_file_arity=InputFileArity.MANY,
        end_state=True,
        # its paths were never recorded
        input_path="",
        output_files_path="",
        output_preview_path="",
        output_metadata_path="",
        auxiliary_path="",
    )


def _migrated_configuration(
    v1: V1Execution, workflow_key: str, start: datetime
) -> ExecutionConfiguration:
    # that release wrote a run's output back to its input asset
    return ExecutionConfiguration(
        workflow_execution_id=v1.execution_id,
        workflow_key=workflow_key,
        workflow_version=MIGRATED_WORKFLOW_VERSION,
        execution_start_date=start,
        output_database_id=v1.database_id,
        output_asset_id=v1.asset_id,
    )


class TableItemShapes(BaseModel):
    """One table's items against the current shapes: how many were read, and how many were (or,
    in a dry run or a check, are to be) rewritten; `conflicts`: items another writer kept
    changing, left for a later run."""

    model_config = ConfigDict(frozen=True)

    table: str
    read: int = 0
    rewritten: int = 0
    conflicts: int = 0
