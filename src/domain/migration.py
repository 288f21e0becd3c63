"""The V1 data migration's rules: an item of the earlier table (VAMS 2.5.x's
WorkflowExecutionsStorageTable) read as that release wrote it, and the rows it becomes.

That release keyed a run by asset (`databaseId:assetId`, `executionId`), wrote its composite keys
with a literal `$` before each part (`$db:$asset`), its dates month first without a zone
(`%m/%d/%Y, %H:%M:%S`, UTC) or empty, and stray attributes (`object__type`). A migrated run keeps
only what seed 000's tables hold, in the run-time form.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict

from domain.errors import InvalidInputError
from domain.execution import ExecutionInput, PipelineInputFile, WorkflowExecution
from domain.names import execution_name_problem
from domain.statuses import TERMINAL_STATUSES, ExecutionStatus
from domain.triggers import SYSTEM_USER, TriggerType

V1_DATE_FORMAT = "%m/%d/%Y, %H:%M:%S"
# A row with no start date (a run cut short before that release stamped one) sorts as the oldest
# of all, rather than as of the migration day: the list shows it last, never as a new run.
FALLBACK_START_DATE = datetime(1970, 1, 1, tzinfo=UTC)
# VAMS 2.5 rows without inputAssetFileKey ran on the whole asset: the selection key of an asset.
WHOLE_ASSET_KEY = "/"
MIGRATED_WORKFLOW_VERSION = 0  # that release had no workflow versions
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
    problem = execution_name_problem(execution_id)
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
    """What one V1 item becomes: the main row, its input row, its per-pipeline input file."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    execution: WorkflowExecution
    inputs: tuple[ExecutionInput, ...]
    input_files: tuple[PipelineInputFile, ...]


class Reconciled(BaseModel):
    """What Step Functions said of an open row: its status and dates (None: it did not say)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    status: ExecutionStatus
    start_date: AwareDatetime | None = None
    stop_date: AwareDatetime | None = None
    error: str | None = None
    cause: str | None = None


def migrated_run(v1: V1Execution, reconciled: Reconciled | None = None) -> MigratedRun:
    """The rows of `v1`, with what Step Functions said of it when it was asked and answered."""
    status, start, stop = v1.status, v1.start_date, v1.stop_date
    error = cause = None  # that release kept no message: none, never the status name (seed 000)
    if reconciled is not None:
        status = reconciled.status
        start = start or reconciled.start_date
        # moto (and a run stopped a moment ago) may answer a terminal status without a date
        stop = (reconciled.stop_date or start) if status in TERMINAL_STATUSES else None
        if status in TERMINAL_STATUSES and status is not ExecutionStatus.SUCCEEDED:
            # seed 000: executionError is Step Functions' error and cause, or nothing
            error = ": ".join(p for p in (reconciled.error, reconciled.cause) if p) or None
            cause = reconciled.cause if error else None
    start = start or stop or FALLBACK_START_DATE
    execution = WorkflowExecution(
        workflow_execution_id=v1.execution_id,
        workflow_database_id=v1.workflow_database_id,
        workflow_id=v1.workflow_id,
        workflow_version=MIGRATED_WORKFLOW_VERSION,
        status=status,
        execution_start_date=start,
        execution_stop_date=stop,
        # that release recorded no user; the run is attributed as an unattended one is
        triggered_by_user_id=SYSTEM_USER,
        trigger_type=TriggerType.MANUAL,
        orchestrator="stepfunctions",
        state_machine_arn=v1.state_machine_arn,
        execution_arn=v1.execution_arn,
        execution_error=error,
        execution_cause=cause,
    )
    file_key = v1.input_asset_file_key or WHOLE_ASSET_KEY
    execution_input = ExecutionInput(
        workflow_execution_id=v1.execution_id,
        workflow_key=execution.workflow_key,
        database_id=v1.database_id,
        asset_id=v1.asset_id,
        input_asset_file_key=file_key,
        # VAMS 2.5 recorded neither the bucket nor the asset root, and pinned no version
        bucket="",
        asset_root_key="",
        version_id="",
        execution_start_date=start,
    )
    input_file = PipelineInputFile(
        pipeline_execution_id=migrated_pipeline_execution_id(v1.execution_id),
        workflow_execution_id=v1.execution_id,
        database_id=v1.database_id,
        asset_id=v1.asset_id,
        input_asset_file_key=file_key,
    )
    return MigratedRun(execution=execution, inputs=(execution_input,), input_files=(input_file,))


class TableItemShapes(BaseModel):
    """One table's items against the current shapes: how many were read, and how many were (or,
    in a dry run or a check, are to be) rewritten; `conflicts`: items another writer kept
    changing, left for a later run."""

    model_config = ConfigDict(frozen=True)

    table: str
    read: int = 0
    rewritten: int = 0
    conflicts: int = 0
