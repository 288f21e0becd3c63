"""`build_*_record` / `parse_*_record`: the one place items get their seed-000 shape.

Both storage adapters store exactly these dicts, in the shapes VAMS 2.6 writes its tables
(shared/notes/vams-items.md; docs/architecture.md lists each attribute and who writes it): VAMS's
names, types and empty defaults (`""`, `false`, `[]`: an attribute VAMS writes is never left out),
its dates as `YYYY-MM-DDTHH:MM:SSZ` (TABLE_DATE_FORMAT). wfx's own attributes use names VAMS does
not, and wfx's own tables keep dates with microseconds (DATE_FORMAT); both sort as text. Readers
take rows exactly as VAMS writes them, without any of wfx's attributes. Composite keys are plain
colon-joined values, and the sparse index keys
(`executionGroupId`, `from_pipeline_execution_id`, `outputDatabaseId:outputAssetId`) are absent,
never empty, when they have no value: DynamoDB rejects an empty indexed key and leaves an item
without one out of the index.

Every builder fits its item under DynamoDB's 400 KB limit (adapters/item_budget.py): a field
its budget names that does not fit is cut, flagged `<field>Truncated`, and its complete body is
returned with the item (`Record.offloads`) for the store to put in the object store first.
Records of keys and ids only (inputs, output files and artifacts, output results, migrated
input files) are not fitted: every attribute is a key part, an S3 key or an S3 version id, so
DynamoDB's key limits (2048 bytes a partition key, 1024 a sort key) and S3's (1024-byte keys
and version ids, 63-byte bucket names) bound such an item at a few KB
(tests/unit/test_item_budget.py checks the worst).
"""

from __future__ import annotations

import json
import mimetypes
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic.alias_generators import to_camel

from adapters.item_budget import (
    KEPT_BYTES,
    Keep,
    Offloadable,
    Record,
    RecordBudget,
    declare,
    fit_item,
)
from adapters.item_budget import (
    Item as Item,
)
from adapters.tables import ARTIFACT_KEY
from domain.approvals import ApprovalGate
from domain.assets import AssetFile
from domain.attempts import TaskExecution
from domain.authorization import AccessFacts, AssetKey
from domain.execution import (
    RUN_LOG_TAIL_BYTES,
    Artifact,
    ExecutionConfiguration,
    ExecutionInput,
    InputSelection,
    OutputFile,
    OutputMetadata,
    OutputResult,
    PipelineExecution,
    PipelineInputFile,
    RunnerLease,
    StepInputConfiguration,
    StepInputMetadata,
    StepLog,
    WorkflowExecution,
    chain_order,
    execution_output_prefix,
    shared_folder_path,
)
from domain.logs import STEP_FUNCTIONS_EXECUTION, RegisteredLog, RegisteredSubExecution
from domain.redaction import REDACTED, is_secret_name, redact, redact_executable, redact_optional
from domain.redrive import STEP_FUNCTIONS_ORCHESTRATOR
from domain.result_text import ResultText
from domain.run import StepMove
from domain.statuses import StepStatus
from domain.sub_processes import SubExecutionStop
from domain.workflow import (
    ExecutionType,
    InputFileArity,
    RetryPolicy,
    StepDefinition,
    WorkflowDefinition,
    WorkflowVersion,
)

# -- item budgets: which field of each record may be cut ------------------------------------------

SUB_EXECUTION_STOPS = "subExecutionStops"

# Fields with a cap are also written by updates that see only their own values (a status change,
# a step move, an attempt's close): the caps alone bound what those add to the row.
EXECUTION_BUDGET = declare(
    RecordBudget(
        "execution",
        (
            # the application cuts it first (run_log.fit_run_log_text), under its well-known key
            Offloadable("executionLog", Keep.TAIL, cap=RUN_LOG_TAIL_BYTES, restore=False),
            Offloadable("executionError", cap=KEPT_BYTES),
            Offloadable("executionCause", cap=KEPT_BYTES),
            Offloadable("abortCause", cap=KEPT_BYTES),
        ),
    )
)
# registeredLogs and registeredSubExecutions are bounded (50 entries each, lengths capped by
# RegisterPipelineExecution) but those caps count characters, and 4-byte characters could take
# the lists past the limit: a write of the lists fits the whole item (step_lists_attributes).
STEP_BUDGET = declare(
    RecordBudget(
        "step",
        (
            Offloadable("errorMessage", cap=KEPT_BYTES),
            Offloadable("registeredLogs"),
            Offloadable("registeredSubExecutions"),
            Offloadable(SUB_EXECUTION_STOPS),
        ),
    )
)
# What a step move may write later (an error at its cap, its flags) is kept free on the row.
_STEP_MOVE_RESERVE = KEPT_BYTES + 1024
CONFIGURATION_BUDGET = declare(RecordBudget("configuration", (Offloadable("inputSelections"),)))
STEP_CONFIGURATION_BUDGET = declare(
    RecordBudget(
        "stepConfiguration",
        (Offloadable("inputFiles"), Offloadable("metadataInputs"), Offloadable("command")),
    )
)
STEP_INPUT_METADATA_BUDGET = declare(
    RecordBudget("stepInputMetadata", (Offloadable("metadata"), Offloadable("attributes")))
)
OUTPUT_METADATA_BUDGET = declare(RecordBudget("outputMetadata", (Offloadable("metadataValue"),)))
STEP_LOG_BUDGET = declare(
    RecordBudget(
        "stepLog", (Offloadable("resultLog", Keep.TAIL), Offloadable("errorLog", Keep.TAIL))
    )
)
ATTEMPT_BUDGET = declare(RecordBudget("attempt", (Offloadable("errorMessage", cap=KEPT_BYTES),)))

ALL_LIST_PARTITION = "execution"
WORKFLOW_LIST_PARTITION = "workflow"
# Below every character an Identifier may hold (`-` is the lowest), so the list index sorts by
# database id, then workflow id: with `:`, "demo2:a" would sort before "demo:b".
WORKFLOW_LIST_SEPARATOR = "!"
CONFIGURATION_RECORD_TYPE = "configuration"
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
TABLE_DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def format_date(moment: datetime) -> str:
    """DATE_FORMAT's text (`2024-03-04T09:30:00.000000Z`), by isoformat: a third of strftime's
    cost, and a date is formatted for every row written."""
    utc = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    return utc.isoformat(timespec="microseconds")[:-6] + "Z"  # its "+00:00" as "Z"


def format_table_date(moment: datetime) -> str:
    """A VAMS table date, `2024-03-04T09:30:00Z`: whole seconds, what VAMS writes and parses."""
    utc = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    return utc.isoformat(timespec="seconds")[:-6] + "Z"


def _table_date(moment: datetime | None) -> str:
    """A VAMS date attribute: its text, or VAMS's empty value."""
    return format_table_date(moment) if moment is not None else ""


def parse_date(text: str) -> datetime:
    # fromisoformat reads our own format ~40x faster than strptime (lists parse many rows), and
    # gives our "Z" as UTC itself: astimezone only for a date written with another offset.
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is UTC else moment.astimezone(UTC)


def join_key(*parts: str) -> str:
    return ":".join(parts)


def _optional_date(item: Item, name: str) -> datetime | None:
    value = item.get(name)
    return parse_date(value) if value else None


def _optional_text(item: Item, name: str) -> str | None:
    """A text attribute VAMS writes as "" when it has no value: None for "" or absent."""
    return item.get(name) or None


def _put_present(item: Item, **values: Any) -> Item:
    """Set each value that is present; absent (None or "") stays absent, never an empty key."""
    for name, value in values.items():
        if value is not None and value != "":
            item[name] = value
    return item


# -- WorkflowExecutionsStorageTableV2 ----------------------------------------------------------


# Set once by the launch that started the run; a later save from an older read must not drop them.
_SET_ONCE = frozenset({"workflow_execution_arn", "workflow_arn", "executionLogGroupArn"})
# What VAMS writes on every main row, "" until it has a value: an update never removes them.
_EXECUTION_ALWAYS = frozenset(
    {
        "executionStopDate",
        "lastSfnSyncCheckDate",
        "executionError",
        "executionLog",
        *_SET_ONCE,
    }
)


def execution_mutable_attributes(
    execution: WorkflowExecution,
) -> tuple[Record, tuple[str, ...]]:
    """The attributes a status change writes, and those it removes because they have no value
    (VAMS's attributes are never removed: they go back to their empty value)."""
    values: dict[str, Any] = {
        "executionStatus": execution.status.value,
        "executionStopDate": _table_date(execution.execution_stop_date),
        "lastSfnSyncCheckDate": _table_date(execution.last_sfn_sync_check_date),
        "workflow_execution_arn": execution.execution_arn or "",
        "workflow_arn": execution.state_machine_arn or "",
        "executionLogGroupArn": execution.execution_log_group_arn or "",
        "executionLog": redact_optional(execution.execution_log) or "",
        "executionLogTruncated": True if execution.execution_log_object_key else None,
        "executionLogObjectKey": execution.execution_log_object_key,
        "executionError": redact_optional(execution.execution_error) or "",
        "executionCause": redact_optional(execution.execution_cause),
        "redriveCount": execution.redrive_count,
        "redriveDate": format_date(execution.redrive_date) if execution.redrive_date else None,
        "redriveStatus": execution.redrive_status,
        "redriveStatusReason": execution.redrive_status_reason,
        ABORT_REQUESTED_DATE: format_date(execution.abort_requested_date)
        if execution.abort_requested_date
        else None,
        "abortCause": redact_optional(execution.abort_cause),
        **_lease_attributes(execution.runner_lease),
    }
    present = {
        name: value
        for name, value in values.items()
        if name in _EXECUTION_ALWAYS or (value is not None and value != "")
    }
    fitted = fit_item(present, EXECUTION_BUDGET, execution.workflow_execution_id)
    names = dict.fromkeys((*values, *EXECUTION_BUDGET.flag_attributes()))
    removed = tuple(name for name in names if name not in fitted)
    return fitted, removed


ABORT_REQUESTED_DATE = "abortRequestedDate"
LEASE_OWNER = "runnerLeaseOwner"
LEASE_EXPIRES_DATE = "runnerLeaseExpiresDate"
_LEASE_RENEWED_DATE = "runnerLeaseRenewedDate"


def _lease_attributes(lease: RunnerLease | None) -> Item:
    if lease is None:
        return {LEASE_OWNER: None, _LEASE_RENEWED_DATE: None, LEASE_EXPIRES_DATE: None}
    return {
        LEASE_OWNER: lease.owner,
        _LEASE_RENEWED_DATE: format_date(lease.renewed_date),
        LEASE_EXPIRES_DATE: format_date(lease.expires_date),
    }


def _parse_lease(item: Item) -> RunnerLease | None:
    if LEASE_OWNER not in item:
        return None
    return RunnerLease(
        owner=item[LEASE_OWNER],
        renewed_date=parse_date(item[_LEASE_RENEWED_DATE]),
        expires_date=parse_date(item[LEASE_EXPIRES_DATE]),
    )


def execution_changed_attributes(
    before: WorkflowExecution, after: WorkflowExecution
) -> tuple[Record, tuple[str, ...]]:
    """What a change from `before` to `after` writes and removes, and nothing else: attributes
    the change leaves alone keep whatever another writer stored meanwhile. The status is always
    written, so that a change is never an empty update."""
    old, _ = execution_mutable_attributes(before)
    new, removed = execution_mutable_attributes(after)
    values = {
        name: value
        for name, value in new.items()
        if old.get(name) != value and not (name in _SET_ONCE and value == "")
    }
    values["executionStatus"] = new["executionStatus"]
    return _with_bodies(values, new), tuple(name for name in removed if name in old)


def _with_bodies(values: Item, fitted: Record) -> Record:
    """`values` (a part of `fitted`) with the bodies of the cut fields it writes the key of."""
    return Record(values, (o for o in fitted.offloads if values.get(f"{o.attribute}ObjectKey")))


def lease_guard_values(execution: WorkflowExecution) -> tuple[str | None, str | None]:
    """The lease owner and expiry as stored for `execution` (None, None without a lease)."""
    lease = execution.runner_lease
    if lease is None:
        return None, None
    return lease.owner, format_date(lease.expires_date)


START_DATE_ESTIMATED = "startDateEstimated"


def build_execution_record(execution: WorkflowExecution) -> Record:
    item: Item = {
        "workflowExecutionId": execution.workflow_execution_id,
        "workflowDatabaseId:workflowId": execution.workflow_key,
        "workflowDatabaseId": execution.workflow_database_id,
        "workflowId": execution.workflow_id,
        "workflowVersion": execution.workflow_version,
        "executionStartDate": format_table_date(execution.execution_start_date),
        "triggeredByUserId": execution.triggered_by_user_id or "system",
        "triggerType": execution.trigger_type.value,
        "orchestrator": execution.orchestrator,
        "allListPartition": ALL_LIST_PARTITION,
    }
    _put_present(
        item,
        executionGroupId=execution.execution_group_id,
        clientToken=execution.client_token,
        requestDigest=execution.request_digest,
        rerunOfExecutionId=execution.rerun_of_execution_id,
    )
    if execution.start_date_estimated:
        item[START_DATE_ESTIMATED] = True  # VAMS writes it only on a run whose start it estimated
    mutable = execution_mutable_attributes(execution)[0]
    item.update(mutable)
    # the rest is ids, keys and dates: the caps of the fields just fitted bound the whole item
    return Record(item, mutable.offloads)


# The main row's optional attributes (attribute, field), taken as stored when present and not
# empty (VAMS writes "" for no value); an absent one leaves the model's own default. Only what a
# row holds is validated: a list page parses every row, and the ~20 absent fields passed as
# explicit Nones cost as much to validate as the present ones.
_EXECUTION_OPTIONAL_TEXT = (
    ("executionGroupId", "execution_group_id"),
    ("orchestrator", "orchestrator"),
    ("workflow_arn", "state_machine_arn"),
    ("workflow_execution_arn", "execution_arn"),
    ("executionLogGroupArn", "execution_log_group_arn"),
    ("executionLog", "execution_log"),
    ("executionLogObjectKey", "execution_log_object_key"),
    ("executionError", "execution_error"),
    ("executionCause", "execution_cause"),
    ("redriveStatus", "redrive_status"),
    ("redriveStatusReason", "redrive_status_reason"),
    ("clientToken", "client_token"),
    ("requestDigest", "request_digest"),
    ("rerunOfExecutionId", "rerun_of_execution_id"),
    ("abortCause", "abort_cause"),
)
# An empty date reads as absent.
_EXECUTION_OPTIONAL_DATES = (
    ("executionStopDate", "execution_stop_date"),
    ("lastSfnSyncCheckDate", "last_sfn_sync_check_date"),
    ("redriveDate", "redrive_date"),
    (ABORT_REQUESTED_DATE, "abort_requested_date"),
)
# A row VAMS launched names no workflow version (VAMS has none) and no orchestrator: it ran on
# Step Functions. wfx before 0.2 kept the two ARNs under its own names.
_UNVERSIONED = 0
_EARLIER_ARNS = (("stateMachineArn", "state_machine_arn"), ("executionArn", "execution_arn"))


def parse_execution_record(item: Item) -> WorkflowExecution:
    fields: dict[str, Any] = {
        "workflow_execution_id": item["workflowExecutionId"],
        "workflow_database_id": item["workflowDatabaseId"],
        "workflow_id": item["workflowId"],
        "workflow_version": int(item.get("workflowVersion", _UNVERSIONED)),
        "status": item["executionStatus"],
        "execution_start_date": parse_date(item["executionStartDate"]),
        "triggered_by_user_id": item.get("triggeredByUserId") or "system",
        "trigger_type": item["triggerType"],
    }
    for attribute, field in _EXECUTION_OPTIONAL_TEXT:
        if value := item.get(attribute):
            fields[field] = value
    for attribute, field in _EARLIER_ARNS:
        if field not in fields and (value := item.get(attribute)):
            fields[field] = value
    if "orchestrator" not in item:
        fields["orchestrator"] = STEP_FUNCTIONS_ORCHESTRATOR
    for attribute, field in _EXECUTION_OPTIONAL_DATES:
        if value := item.get(attribute):
            fields[field] = parse_date(value)
    if "redriveCount" in item:
        fields["redrive_count"] = int(item["redriveCount"])
    if item.get(START_DATE_ESTIMATED):
        fields["start_date_estimated"] = True
    if LEASE_OWNER in item:
        fields["runner_lease"] = _parse_lease(item)
    # model_validate, not WorkflowExecution(**fields): no keywords to repack, ~0.7 µs a row less
    return WorkflowExecution.model_validate(fields)


# -- PipelineExecutionsStorageTable -------------------------------------------------------------


def _log_entry(log: RegisteredLog) -> Item:
    return {
        "logGroupArn": log.log_group_arn,
        "logGroupName": log.log_group_name,
        "logStreamName": log.log_stream_name,
        "logStreamPrefix": log.log_stream_prefix,
        "stageName": log.stage_name,
        "label": log.label,
        "sourceType": log.source_type,
    }


def _parse_log_entry(entry: Item) -> RegisteredLog:
    return RegisteredLog(
        log_group_arn=entry.get("logGroupArn", ""),
        log_group_name=entry.get("logGroupName", ""),
        log_stream_name=entry.get("logStreamName", ""),
        log_stream_prefix=entry.get("logStreamPrefix", ""),
        stage_name=entry.get("stageName", ""),
        label=entry.get("label", ""),
        source_type=entry.get("sourceType", ""),
    )


def sub_execution_stops_attribute(stops: Sequence[SubExecutionStop]) -> Item:
    """The step's subExecutionStops list, absent when no abort has stopped anything."""
    if not stops:
        return {}
    entries = [
        {
            "resourceType": stop.resource_type,
            "resourceId": stop.resource_id,
            "outcome": stop.outcome.value,
            "detail": redact(stop.detail),
            "at": format_date(stop.at),
            "tries": stop.tries,
        }
        for stop in stops
    ]
    return {SUB_EXECUTION_STOPS: entries}


def parse_sub_execution_stops(item: Item) -> tuple[SubExecutionStop, ...]:
    return tuple(
        SubExecutionStop(
            resource_type=entry["resourceType"],
            resource_id=entry["resourceId"],
            outcome=entry["outcome"],
            detail=entry.get("detail", ""),
            at=parse_date(entry["at"]),
            tries=int(entry.get("tries", 1)),
        )
        for entry in item.get(SUB_EXECUTION_STOPS, [])
    )


ERROR_FLAGS = ("errorMessageTruncated", "errorMessageObjectKey")
# A step row's status and dates, under VAMS's names: VAMS reads and guards these, so a finished
# step is one VAMS's terminal guard leaves alone.
STEP_STATUS = "executionStatus"
STEP_START_DATE = "executionStartDate"
STEP_STOP_DATE = "executionStopDate"
# wfx before 0.2 wrote them as these
EARLIER_STEP_NAMES = {
    STEP_STATUS: "status",
    STEP_START_DATE: "startDate",
    STEP_STOP_DATE: "stopDate",
}


def step_mutable_attributes(step: PipelineExecution) -> tuple[Record, tuple[str, ...]]:
    """What a step transition writes (status, dates, error) and removes; nothing else is touched."""
    values: dict[str, Any] = {
        STEP_STATUS: step.status.value,
        STEP_START_DATE: _table_date(step.start_date),
        STEP_STOP_DATE: _table_date(step.stop_date),
        "errorMessage": redact_optional(step.error),
    }
    present = {name: value for name, value in values.items() if value is not None}
    fitted = fit_item(present, STEP_BUDGET, step.workflow_execution_id)
    names = (*values, *ERROR_FLAGS)
    return fitted, tuple(name for name in names if name not in fitted)


def step_move_attributes(move: StepMove) -> Record:
    """What a step move sets on the step: its status, and each other field it carries (nothing
    for a move that leaves the step's status alone)."""
    if move.status is None:
        return Record({})
    values: dict[str, Any] = {
        STEP_STATUS: move.status.value,
        STEP_START_DATE: format_table_date(move.start_date) if move.start_date else None,
        STEP_STOP_DATE: format_table_date(move.stop_date) if move.stop_date else None,
        "errorMessage": redact_optional(move.error),
    }
    present = {name: value for name, value in values.items() if value is not None and value != ""}
    return fit_item(present, STEP_BUDGET, move.workflow_execution_id)


def step_move_removals(values: Item) -> tuple[str, ...]:
    """What a move writing `values` removes: the flags of an earlier cut error it replaces whole
    (a retried step failing again), else a read would give the old error back."""
    if "errorMessage" in values and "errorMessageTruncated" not in values:
        return ERROR_FLAGS
    return ()


# VAMS's pipelineExecutionType and waitForCallback values; wfx's local types keep their names.
_VAMS_LAMBDA = "Lambda"
_CALLBACK = {True: "Enabled", False: "Disabled"}


def _pipeline_execution_type(execution_type: ExecutionType) -> str:
    return _VAMS_LAMBDA if execution_type is ExecutionType.LAMBDA else execution_type.value


def _execution_type_of(item: Item) -> str:
    """wfx's executionType, else VAMS's pipelineExecutionType (Lambda, SQS, EventBridge,
    DeadlineCloud: all tasks Step Functions dispatches, read as lambda)."""
    if "executionType" in item:
        return str(item["executionType"])
    kind = item.get("pipelineExecutionType", _VAMS_LAMBDA)
    return kind if kind in ExecutionType.__members__.values() else ExecutionType.LAMBDA.value


_SUB_EXECUTION_KEYS = frozenset(to_camel(name) for name in RegisteredSubExecution.model_fields)


def sub_execution_entry(sub: RegisteredSubExecution) -> Item:
    """A registeredSubExecutions entry as VAMS stores it: the resourceType and the keys the
    locator carries (an empty one is left out), then stageName and label when given."""
    return sub.model_dump(by_alias=True, exclude_defaults=True)


def upgrade_sub_execution_entry(entry: Item) -> Item:
    """A stored registeredSubExecutions entry in today's shape: wfx's former
    `{resourceType, resourceId, label}` as the typed locator it stands for; any other as it is."""
    if "resourceId" not in entry:
        return dict(entry)
    return sub_execution_entry(
        RegisteredSubExecution.of_resource(
            str(entry["resourceType"]), str(entry["resourceId"]), str(entry.get("label") or "")
        )
    )


def parse_sub_execution_entry(entry: Item) -> RegisteredSubExecution:
    """Either shape: VAMS's typed locator, or wfx's former entry (an old store keeps working).
    VAMS defaults a missing resourceType to a Step Functions execution; so does this."""
    upgraded = upgrade_sub_execution_entry(entry)
    upgraded.setdefault("resourceType", STEP_FUNCTIONS_EXECUTION)
    # a key VAMS may add later is left out rather than failing the read of the step
    return RegisteredSubExecution.model_validate(
        {
            key: str(value)
            for key, value in upgraded.items()
            if key in _SUB_EXECUTION_KEYS and value is not None
        }
    )


def build_pipeline_execution_record(step: PipelineExecution) -> Record:
    item: Item = {
        "pipelineExecutionId": step.pipeline_execution_id,
        "workflowExecutionId": step.workflow_execution_id,
        "pipelineDatabaseId:pipelineId": step.pipeline_key,
        "pipelineDatabaseId": step.pipeline_database_id,
        "pipelineId": step.pipeline_id,
        "endStatePipeline": "true" if step.end_state else "false",
        # VAMS's paths: the buckets are the object store's, which a step row does not name
        "S3AssetPipelineBucket": "",
        "S3AssetPipelineBucketInputMetadataFilePrefix": "",
        "S3AssetPipelineBucketInputConfigurationFilePrefix": "",
        "S3AssetPipelineBucketOutputFilesPrefix": step.output_files_path,
        "S3AssetPipelineBucketOutputMetadataPrefix": step.output_metadata_path,
        "S3AssetPipelineBucketOutputPreviewPrefix": step.output_preview_path,
        "S3AssetPipelineBucketOutputResultsPrefix": "",
        "S3AssetAuxPipelineBucket": "",
        "S3AssetAuxPipelineBucketPrefixTemp": step.auxiliary_path,
        "S3AssetAuxPipelineBucketPrefixPreview": "",
        "pipelineExecutionType": _pipeline_execution_type(step.execution_type),
        "waitForCallback": _CALLBACK[step.wait_for_callback],
        "pipelineResourceArn": step.pipeline_resource_arn,
        "orchestrationBusEventPrefix": step.orchestration_bus_event_prefix,
        "registeredSubExecutions": [
            sub_execution_entry(sub) for sub in step.registered_sub_executions
        ],
        "registeredLogs": [_log_entry(log) for log in step.registered_logs],
        **sub_execution_stops_attribute(step.sub_execution_stops),
        "vendedRoleArn": step.vended_role_arn,
        "s3ReadOnlyScopes": list(step.s3_read_only_scopes),
        "s3ReadWriteScopes": list(step.s3_read_write_scopes),
        "credentialVendingState": step.credential_vending_state,
        # wfx's own
        "stepIndex": step.step_index,
        "executionType": step.execution_type.value,
        "inputFileArity": step.input_file_arity.value,
        "inputS3AssetFilePath": step.input_path,
    }
    _put_present(
        item,
        from_pipeline_execution_id=step.from_pipeline_execution_id,
        stepDefinitionId=step.step_definition_id,
    )
    mutable = step_mutable_attributes(step)[0]
    item.update(mutable)
    return fit_item(
        item,
        STEP_BUDGET,
        step.workflow_execution_id,
        mutable.offloads,
        reserve=_STEP_MOVE_RESERVE,
    )


def _step_value(item: Item, name: str) -> Any:
    """A step attribute under VAMS's name, else the name wfx gave it before 0.2."""
    return item[name] if name in item else item.get(EARLIER_STEP_NAMES[name])


def _first_of(item: Item, *names: str) -> str:
    return next((str(item[name]) for name in names if item.get(name)), "")


def parse_pipeline_execution_record(item: Item) -> PipelineExecution:
    start, stop = _step_value(item, STEP_START_DATE), _step_value(item, STEP_STOP_DATE)
    return PipelineExecution(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item["workflowExecutionId"],
        pipeline_database_id=item["pipelineDatabaseId"],
        pipeline_id=item["pipelineId"],
        # a row VAMS wrote has no index: parse_run_steps numbers a run's steps by their chain
        step_index=int(item.get("stepIndex", 0)),
        step_definition_id=item.get("stepDefinitionId"),
        status=_step_value(item, STEP_STATUS) or StepStatus.NEW,
        start_date=parse_date(start) if start else None,
        stop_date=parse_date(stop) if stop else None,
        execution_type=_execution_type_of(item),
        input_file_arity=item.get("inputFileArity", InputFileArity.MANY.value),
        wait_for_callback=item.get("waitForCallback") == _CALLBACK[True],
        pipeline_resource_arn=item.get("pipelineResourceArn", ""),
        orchestration_bus_event_prefix=item.get("orchestrationBusEventPrefix", ""),
        from_pipeline_execution_id=item.get("from_pipeline_execution_id"),
        end_state=item["endStatePipeline"] == "true",
        input_path=item.get("inputS3AssetFilePath", ""),
        output_files_path=_first_of(
            item, "S3AssetPipelineBucketOutputFilesPrefix", "outputS3AssetFilesPath"
        ),
        output_preview_path=_first_of(
            item, "S3AssetPipelineBucketOutputPreviewPrefix", "outputS3AssetPreviewPath"
        ),
        output_metadata_path=_first_of(
            item, "S3AssetPipelineBucketOutputMetadataPrefix", "outputS3AssetMetadataPath"
        ),
        auxiliary_path=_first_of(
            item, "S3AssetAuxPipelineBucketPrefixTemp", "inputOutputS3AssetAuxiliaryFilesPath"
        ),
        error=item.get("errorMessage") or None,
        registered_sub_executions=tuple(
            parse_sub_execution_entry(entry) for entry in item.get("registeredSubExecutions", [])
        ),
        registered_logs=tuple(_parse_log_entry(entry) for entry in item.get("registeredLogs", [])),
        sub_execution_stops=parse_sub_execution_stops(item),
        vended_role_arn=item.get("vendedRoleArn", ""),
        s3_read_only_scopes=tuple(item.get("s3ReadOnlyScopes", [])),
        s3_read_write_scopes=tuple(item.get("s3ReadWriteScopes", [])),
        credential_vending_state=item.get("credentialVendingState", "notVended"),
    )


def parse_run_steps(items: Sequence[Item]) -> list[PipelineExecution]:
    """A run's step rows in step order: by wfx's stepIndex, or, for rows VAMS wrote (which have
    none), by their chain (from_pipeline_execution_id), numbered from 0 in that order."""
    steps = [parse_pipeline_execution_record(item) for item in items]
    if all("stepIndex" in item for item in items):
        return sorted(steps, key=lambda step: step.step_index)
    return [
        step.model_copy(update={"step_index": index})
        for index, step in enumerate(chain_order(steps))
    ]


# -- WorkflowExecutionInputsStorageTable / WorkflowExecutionConfigurationStorageTable ------------


def build_input_selection_record(row: InputSelection) -> Item:
    """WorkflowExecutionInputsStorageTable: one selection, as VAMS writes it, plus wfx's
    composite workflow key."""
    return {
        "workflowExecutionId": row.workflow_execution_id,
        "databaseId:assetId:inputAssetFileKey": join_key(
            row.database_id, row.asset_id, row.input_asset_file_key
        ),
        "databaseId:assetId": row.asset_key,
        "assetId": row.asset_id,
        "databaseId": row.database_id,
        "inputAssetFileKey": row.input_asset_file_key,
        "s3Bucket": row.bucket,
        "assetRootS3Key": row.asset_root_key,
        "versionId": row.version_id,
        "executionStartDate": format_table_date(row.execution_start_date),
        "workflowId": row.workflow_id,
        "workflowDatabaseId": row.workflow_database_id,
        "workflowDatabaseId:workflowId": row.workflow_key,
    }


def build_execution_input_record(row: ExecutionInput) -> Item:
    """WfxResolvedInputFilesTable: one file a run resolved, at the version it read."""
    return {
        "workflowExecutionId": row.workflow_execution_id,
        "databaseId:assetId:inputAssetFileKey": join_key(
            row.database_id, row.asset_id, row.input_asset_file_key
        ),
        "databaseId:assetId": row.asset_key,
        "executionStartDate": format_table_date(row.execution_start_date),
        "workflowDatabaseId:workflowId": row.workflow_key,
        "databaseId": row.database_id,
        "assetId": row.asset_id,
        "inputAssetFileKey": row.input_asset_file_key,
        "s3Bucket": row.bucket,
        "assetRootS3Key": row.asset_root_key,
        "versionId": row.version_id,
        "selectionKey": row.selection_key,
    }


def workflow_key_of(item: Item) -> str:
    """wfx's composite workflow key, else from VAMS's plain ids ("" where a row names neither)."""
    if key := item.get("workflowDatabaseId:workflowId"):
        return str(key)
    if "workflowDatabaseId" in item and "workflowId" in item:
        return join_key(item["workflowDatabaseId"], item["workflowId"])
    return ""


def parse_execution_input_record(item: Item) -> ExecutionInput:
    return ExecutionInput(
        workflow_execution_id=item["workflowExecutionId"],
        workflow_key=workflow_key_of(item),
        database_id=item["databaseId"],
        asset_id=item["assetId"],
        input_asset_file_key=item["inputAssetFileKey"],
        bucket=item.get("s3Bucket", ""),
        asset_root_key=item.get("assetRootS3Key", ""),
        version_id=item.get("versionId") or "",
        execution_start_date=parse_date(item["executionStartDate"]),
        selection_key=item.get("selectionKey", ""),
    )


def build_execution_configuration_record(config: ExecutionConfiguration) -> Record:
    item: Item = {
        "workflowExecutionId": config.workflow_execution_id,
        "recordType": CONFIGURATION_RECORD_TYPE,
        "executionStartDate": format_table_date(config.execution_start_date),
        # VAMS's: wfx gathers no input metadata file and takes no metadata-source selection
        # (their empty values); its steps as launched, as VAMS's workflow references them (wfx
        # names no job and no template: ""; at most MAX_STEPS small entries, never cut)
        "inputMetadata": "",
        "inputMetadataTruncated": False,
        "specifiedPipelinesSnapshot": [
            _pipeline_reference(database_id, pipeline_id)
            for database_id, pipeline_id in config.specified_pipelines
        ],
        "specifiedPipelinesSnapshotTruncated": False,
        "outputLocationType": "asset",
        "outputAssetId": config.output_asset_id or "",
        "outputDatabaseId": config.output_database_id or "",
        "outputFileBaseExecutionPathExtension": "/",
        "inputMetadataDatabaseId": "",
        "inputMetadataFileS3Key": "",
        "metadataSourceAssets": [],
        "metadataSourceAssetsTruncated": False,
        "metadataSourceDatabases": [],
        "metadataSourceDatabasesTruncated": False,
        # wfx's own
        "workflowDatabaseId:workflowId": config.workflow_key,
        "workflowVersion": config.workflow_version,
        "inputSelections": list(config.input_selections),
    }
    _put_present(
        item,
        executionGroupId=config.execution_group_id,
        **{"outputDatabaseId:outputAssetId": config.output_asset_key},
    )
    return fit_item(item, CONFIGURATION_BUDGET, config.workflow_execution_id)


def _pipeline_reference(database_id: str, pipeline_id: str) -> Item:
    return {
        "pipelineDatabaseId": database_id,
        "pipelineId": pipeline_id,
        "pipelineDatabaseId:pipelineId": join_key(database_id, pipeline_id),
        "jobName": "",
        "defaultTemplateId": "",
    }


def _specified_pipelines(item: Item) -> tuple[tuple[str, str], ...]:
    """The snapshot's steps: VAMS 2.6's references, or its earlier `{name, databaseId}` entries;
    an entry naming no pipeline is left out rather than failing the read."""
    found = []
    for entry in item.get("specifiedPipelinesSnapshot") or []:
        if not isinstance(entry, dict):
            continue
        pipeline_id = entry.get("pipelineId") or entry.get("name")
        database_id = entry.get("pipelineDatabaseId") or entry.get("databaseId") or ""
        if pipeline_id:
            found.append((str(database_id), str(pipeline_id)))
    return tuple(found)


def parse_execution_configuration_record(item: Item) -> ExecutionConfiguration:
    """VAMS's row names no workflow (the main row does) and writes "" for a results-only run."""
    return ExecutionConfiguration(
        workflow_execution_id=item["workflowExecutionId"],
        workflow_key=workflow_key_of(item),
        workflow_version=int(item.get("workflowVersion", _UNVERSIONED)),
        execution_start_date=parse_date(item["executionStartDate"]),
        output_database_id=item.get("outputDatabaseId") or None,
        output_asset_id=item.get("outputAssetId") or None,
        input_selections=tuple(item.get("inputSelections", [])),
        execution_group_id=item.get("executionGroupId") or None,
        specified_pipelines=_specified_pipelines(item),
    )


# -- per-step input tables ---------------------------------------------------------------------


def build_step_input_configuration_record(config: StepInputConfiguration) -> Record:
    item: Item = {
        "pipelineExecutionId": config.pipeline_execution_id,
        "recordType": CONFIGURATION_RECORD_TYPE,
        # VAMS's configuration snapshot: wfx renders no configuration template, so what the
        # step ran under is its effective systemConfig alone
        "inputConfiguration": "",
        "inputConfigurationTruncated": False,
        "inputConfigurationFileS3Key": "",
        "templateId": "",
        "templateSchemaVersion": "",
        "tagSchemaVersion": "",
        "templateTags": [],
        "templateTagsTruncated": False,
        "customTemplateOverrideUsed": False,
        "customTemplateOverride": "",
        "customTemplateOverrideTruncated": False,
        "configFormat": "",
        "effectiveSystemConfig": {
            "inputFileArity": config.input_file_arity.value,
            # wfx passes a step the asset file metadata its metadataInputs name, nothing else
            "metadataInputs": {
                "assetMetadata": False,
                "fileMetadata": bool(config.metadata_inputs),
                "fileAttributes": False,
                "databaseMetadata": False,
            },
        },
        "effectiveSystemConfigTruncated": False,
        "templateOverrides": {},
        "templateOverridesTruncated": False,
        # wfx's own
        "workflowExecutionId": config.workflow_execution_id,
        "executionType": config.execution_type.value,
        "inputFileArity": config.input_file_arity.value,
        "metadataInputs": list(config.metadata_inputs),
        "inputFiles": list(config.input_files),
    }
    # copied from the workflow version into every run, and never run from: the whole policy
    _put_present(item, handler=redact_executable(config.handler) if config.handler else None)
    if config.command is not None:
        item["command"] = [redact(part) for part in config.command]
    return fit_item(item, STEP_CONFIGURATION_BUDGET, config.workflow_execution_id)


def _vams_system_config(item: Item) -> Item:
    config = item.get("effectiveSystemConfig")
    return config if isinstance(config, dict) else {}


def _metadata_inputs_of(item: Item) -> tuple[str, ...]:
    """wfx's list of metadata inputs, else the keys VAMS's effective systemConfig turns on."""
    if "metadataInputs" in item:
        return tuple(item["metadataInputs"])
    gates = _vams_system_config(item).get("metadataInputs")
    return tuple(name for name, on in gates.items() if on) if isinstance(gates, dict) else ()


def parse_step_input_configuration_record(item: Item) -> StepInputConfiguration:
    """VAMS's row is the resolved configuration snapshot: the type and arity come from its
    effective systemConfig where it has them (a Step Functions task otherwise)."""
    arity = item.get("inputFileArity") or _vams_system_config(item).get("inputFileArity")
    return StepInputConfiguration(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item.get("workflowExecutionId", ""),
        execution_type=_execution_type_of(item),
        handler=item.get("handler"),
        command=tuple(item["command"]) if "command" in item else None,
        input_file_arity=arity if arity in InputFileArity.__members__.values() else "many",
        metadata_inputs=_metadata_inputs_of(item),
        input_files=tuple(item.get("inputFiles", [])),
    )


def build_step_input_metadata_record(row: StepInputMetadata) -> Record:
    """VAMS's row: the path "/"-led ("/" the asset's own, or a database's), its scope, the
    metadata and the file's attributes (each flagged when cut); wfx reads no metadata file, so
    names none (sourceInputMetadataFileS3Key "")."""
    item = {
        "pipelineExecutionId": row.pipeline_execution_id,
        "databaseId:assetId:filePath": row.row_key,
        "databaseId": row.database_id,
        "assetId": row.asset_id,
        "filePath": row.file_path,
        "scope": row.scope,
        "metadata": dict(row.metadata),
        "metadataTruncated": False,
        "attributes": dict(row.attributes),
        "attributesTruncated": False,
        "sourceInputMetadataFileS3Key": "",
        # wfx's own
        "workflowExecutionId": row.workflow_execution_id,
    }
    return fit_item(item, STEP_INPUT_METADATA_BUDGET, row.workflow_execution_id)


def _text(value: Any) -> str:
    """A metadata value as text: VAMS keeps numbers, maps and lists as they are."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def _text_pairs(values: Any) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, _text(v)) for k, v in (values or {}).items()))


def parse_step_input_metadata_record(item: Item) -> StepInputMetadata:
    """VAMS's row, or wfx's before 0.2 (a path without its "/", no scope, no attributes)."""
    return StepInputMetadata(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item.get("workflowExecutionId", ""),
        database_id=item["databaseId"],
        asset_id=item.get("assetId", ""),
        file_path=item.get("filePath", ""),
        metadata=_text_pairs(item.get("metadata")),
        scope="database" if item.get("scope") == "database" else "asset",
        attributes=_text_pairs(item.get("attributes")),
    )


def build_pipeline_input_file_record(row: PipelineInputFile) -> Item:
    """PipelineExecutionInputFiles rows: only the data migration writes them (seed 000)."""
    return {
        "pipelineExecutionId": row.pipeline_execution_id,
        "databaseId:assetId:inputAssetFileKey": join_key(
            row.database_id, row.asset_id, row.input_asset_file_key
        ),
        "databaseId:assetId": join_key(row.database_id, row.asset_id),
        "workflowExecutionId": row.workflow_execution_id,
        "databaseId": row.database_id,
        "assetId": row.asset_id,
        "inputAssetFileKey": row.input_asset_file_key,
    }


def parse_pipeline_input_file_record(item: Item) -> PipelineInputFile:
    """A row as the migration writes it, or as wfx's before 0.2 did (its key without the "/")."""
    return PipelineInputFile(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item["workflowExecutionId"],
        database_id=item["databaseId"],
        asset_id=item["assetId"],
        input_asset_file_key=item["inputAssetFileKey"],
    )


# -- per-step output tables --------------------------------------------------------------------


def build_output_file_record(row: OutputFile) -> Item:
    """VAMS's row: the path relative to its kind's folder (a preview's to the previews), the
    object's bucket, key, size, content type and version; wfx adds its etag and the attempt
    that wrote it."""
    item: Item = {
        "pipelineExecutionId": row.pipeline_execution_id,
        "fileType:relativeFilePath": row.row_key,
        "fileType": row.file_type,
        "relativeFilePath": row.kind_path,
        "s3Bucket": row.bucket,
        "s3Key": execution_output_prefix(row.workflow_execution_id) + row.relative_file_path,
        "fileSize": row.size,
        "contentType": mimetypes.guess_type(row.relative_file_path)[0] or "",
        "s3VersionId": row.version_id,
        # wfx's own
        "workflowExecutionId": row.workflow_execution_id,
        "etag": row.etag,
    }
    if row.attempt is not None:
        item["attempt"] = row.attempt
    return item


def _shared_folder_path(item: Item) -> str:
    """The row's path in the run's shared output folder: its s3Key past the run's output prefix
    (wfx's rows), else, for wfx's rows before 0.2 (no s3Key), relativeFilePath as it was stored;
    VAMS's rows are led by their kind's folder, as wfx's previews are."""
    run = item.get("workflowExecutionId")
    if run is None:
        return shared_folder_path(item["fileType"], item["relativeFilePath"])
    prefix = execution_output_prefix(run)
    key = item.get("s3Key", "")
    return key[len(prefix) :] if key.startswith(prefix) else str(item["relativeFilePath"])


def parse_output_file_record(item: Item) -> OutputFile:
    """wfx's row, or VAMS's (s3VersionId, fileSize, no etag)."""
    attempt = item.get("attempt")
    return OutputFile(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item.get("workflowExecutionId", ""),
        file_type=item["fileType"],
        relative_file_path=_shared_folder_path(item),
        version_id=item.get("versionId") or item.get("s3VersionId", ""),
        size=int(item["size"] if "size" in item else item.get("fileSize", 0)),
        etag=item.get("etag", ""),
        attempt=None if attempt is None else int(attempt),  # a row from before attempts
        bucket=item.get("s3Bucket", ""),
    )


def build_artifact_record(row: Artifact) -> Item:
    """WfxArtifactsTable: an output file row of one attempt, its key led by the attempt."""
    return {
        "pipelineExecutionId": row.pipeline_execution_id,
        ARTIFACT_KEY: row.row_key,
        "workflowExecutionId": row.workflow_execution_id,
        "attempt": row.attempt,
        "fileType": row.file_type,
        "relativeFilePath": row.relative_file_path,
        "versionId": row.version_id,
        "size": row.size,
        "etag": row.etag,
        "recordedAt": format_date(row.recorded_at),
    }


def parse_artifact_record(item: Item) -> Artifact:
    return Artifact(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item["workflowExecutionId"],
        attempt=int(item["attempt"]),
        file_type=item["fileType"],
        relative_file_path=item["relativeFilePath"],
        version_id=item["versionId"],
        size=int(item["size"]),
        etag=item["etag"],
        recorded_at=parse_date(item["recordedAt"]),
    )


def build_output_metadata_record(row: OutputMetadata) -> Record:
    item = {
        "pipelineExecutionId": row.pipeline_execution_id,
        "targetFilePath:metadataKey": row.row_key,
        "workflowExecutionId": row.workflow_execution_id,
        "targetFilePath": row.target_file_path,
        "metadataKey": row.metadata_key,
        # a step's own metadata file: `{"db_password": ...}` goes whatever the value looks like
        "metadataValue": REDACTED if is_secret_name(row.metadata_key) else redact(row.value),
        # VAMS's name, VAMS's value: the metadata file's whole object key
        "sourceMetadataFileRelativePath": row.source_file_key,
    }
    return fit_item(item, OUTPUT_METADATA_BUDGET, row.workflow_execution_id)


def parse_output_metadata_record(item: Item) -> OutputMetadata:
    """VAMS's row, or wfx's before 0.2: a target without its "/", and no source, which was the
    run's `metadata/<target>.json`."""
    source = item.get("sourceMetadataFileRelativePath")
    run = item.get("workflowExecutionId", "")
    if source is None and run:
        source = f"{execution_output_prefix(run)}metadata/{item['targetFilePath']}.json"
    return OutputMetadata(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=run,
        target_file_path=item["targetFilePath"],
        metadata_key=item["metadataKey"],
        value=_text(item["metadataValue"]),
        source_file_key=source or "",
    )


def build_output_result_record(row: OutputResult) -> Item:
    """VAMS's row keeps a results file's text (resultsContent); wfx's results are files imported
    into the output asset, whose bodies stay in the object store: the content is VAMS's empty
    value and s3Key says where the file is. A row VAMS wrote keeps its text when written again."""
    item: Item = {
        "pipelineExecutionId": row.pipeline_execution_id,
        "relativeFilePath": row.row_key,
        "resultsContent": row.stored_text.content if row.stored_text else "",
        "resultsContentTruncated": row.stored_text.truncated if row.stored_text else False,
        "s3Key": execution_output_prefix(row.workflow_execution_id) + row.relative_file_path,
        # wfx's own
        "workflowExecutionId": row.workflow_execution_id,
        "versionId": row.version_id,
    }
    return _put_present(
        item,
        outputDatabaseId=row.output_database_id,
        outputAssetId=row.output_asset_id,
        assetVersionId=row.asset_version_id,
    )


def parse_output_result_record(item: Item) -> OutputResult:
    """VAMS's row ("/"-led path, its text in resultsContent), or wfx's (no text: "" there), or
    wfx's before 0.2 (the path as the asset keys it)."""
    path = str(item["relativeFilePath"]).lstrip("/")
    content = str(item.get("resultsContent") or "")
    return OutputResult(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item.get("workflowExecutionId", ""),
        relative_file_path=path,
        version_id=item.get("versionId", ""),
        output_database_id=item.get("outputDatabaseId"),
        output_asset_id=item.get("outputAssetId"),
        asset_version_id=item.get("assetVersionId"),
        stored_text=ResultText(
            relative_file_path=path,
            content=content,
            truncated=bool(item.get("resultsContentTruncated", False)),
        )
        if content
        else None,
    )


def build_step_log_record(row: StepLog) -> Record:
    """VAMS's summary row: the step's log as resultLog, or errorLog when it failed; the log's
    location under wfx's own name (a local file is no CloudWatch group or stream)."""
    failed = row.status != "SUCCEEDED"
    message = redact(row.message)
    item = {
        "pipelineExecutionId": row.pipeline_execution_id,
        "logType": row.log_type,
        "resultLog": "" if failed else message,
        "resultLogTruncated": False,
        "errorLog": message if failed else "",
        "errorLogTruncated": False,
        "logGroupArn": "",
        "logStreamName": "",
        # wfx's own
        "workflowExecutionId": row.workflow_execution_id,
        "status": row.status,
        "logLocation": row.log_location,
    }
    return fit_item(item, STEP_LOG_BUDGET, row.workflow_execution_id)


def parse_step_log_record(item: Item) -> StepLog:
    """wfx's row, or VAMS's (resultLog and errorLog, the log group ARN and stream): no status,
    failed when it holds an error log."""
    if "message" in item:  # wfx before 0.2
        message = item["message"]
    else:
        message = "\n".join(part for part in (item.get("resultLog"), item.get("errorLog")) if part)
    location = item.get("logLocation") or " ".join(
        part for part in (item.get("logGroupArn"), item.get("logStreamName")) if part
    )
    status = item.get("status") or ("FAILED" if item.get("errorLog") else "SUCCEEDED")
    return StepLog(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item.get("workflowExecutionId", ""),
        log_type=item["logType"],
        status=status,
        message=message,
        log_location=location,
    )


# -- wfx's own tables ---------------------------------------------------------------------------


def _step_entry(step: StepDefinition) -> Item:
    entry: Item = {
        "pipelineId": step.pipeline_id,
        "pipelineDatabaseId": step.pipeline_database_id,
        "executionType": step.execution_type.value,
        "inputFileArity": step.input_file_arity.value,
        "metadataInputs": list(step.metadata_inputs),
    }
    _put_present(
        entry,
        # what the runner runs: only what redaction can take out without changing the program
        handler=redact_executable(step.handler) if step.handler else None,
        handlerPath=step.handler_path,
        functionName=step.function_name,
        jobQueue=step.job_queue,
        jobDefinition=step.job_definition,
    )
    if step.command is not None:
        entry["command"] = [redact_executable(part) for part in step.command]
    if step.wait_for_callback:
        entry["waitForCallback"] = True
    if step.retry is not None:
        entry["retry"] = {
            "maxAttempts": step.retry.max_attempts,
            "intervalSeconds": step.retry.interval_seconds,
            "backoffRate": step.retry.backoff_rate,
        }
    if step.approval is not None:
        entry["approval"] = {
            "approvers": list(step.approval.approvers),
            "message": redact(step.approval.message),
            "timeoutSeconds": step.approval.timeout_seconds,
        }
    return entry


def _parse_step_entry(entry: Item) -> StepDefinition:
    retry = entry.get("retry")
    approval = entry.get("approval")
    return StepDefinition(
        pipeline_id=entry["pipelineId"],
        pipeline_database_id=entry["pipelineDatabaseId"],
        execution_type=entry["executionType"],
        handler=entry.get("handler"),
        handler_path=entry.get("handlerPath"),
        command=tuple(entry["command"]) if "command" in entry else None,
        function_name=entry.get("functionName"),
        wait_for_callback=bool(entry.get("waitForCallback", False)),
        job_queue=entry.get("jobQueue"),
        job_definition=entry.get("jobDefinition"),
        input_file_arity=entry["inputFileArity"],
        metadata_inputs=tuple(entry.get("metadataInputs", [])),
        retry=None
        if retry is None
        else RetryPolicy(
            max_attempts=int(retry["maxAttempts"]),
            interval_seconds=int(retry["intervalSeconds"]),
            backoff_rate=float(retry["backoffRate"]),
        ),
        approval=None
        if approval is None
        else ApprovalGate(
            approvers=tuple(approval["approvers"]),
            message=approval.get("message", ""),
            timeout_seconds=int(approval["timeoutSeconds"]),
        ),
    )


def workflow_list_sort_key(database_id: str, workflow_id: str = "") -> str:
    """The list index's sort key of a workflow; with no workflow id, the prefix of a database."""
    return f"{database_id}{WORKFLOW_LIST_SEPARATOR}{workflow_id}"


def build_workflow_definition_record(definition: WorkflowDefinition) -> Item:
    item: Item = {
        "workflowDatabaseId:workflowId": definition.workflow_key,
        "workflowDatabaseId": definition.database_id,
        "workflowId": definition.workflow_id,
        "description": redact(definition.description),
        "createdDate": format_date(definition.created_at),
        "latestVersion": definition.latest_version,
        "workflowListPartition": WORKFLOW_LIST_PARTITION,
        "workflowListSortKey": workflow_list_sort_key(
            definition.database_id, definition.workflow_id
        ),
    }
    return _put_present(item, ownerUserId=definition.owner)


def parse_workflow_definition_record(item: Item) -> WorkflowDefinition:
    return WorkflowDefinition(
        database_id=item["workflowDatabaseId"],
        workflow_id=item["workflowId"],
        owner=item.get("ownerUserId"),
        description=item.get("description", ""),
        created_at=parse_date(item["createdDate"]),
        latest_version=int(item["latestVersion"]),
    )


def recovered_definition_record(first: Item, latest: Item) -> Item:
    """The definition of a workflow published before definitions existed, from the items of its
    first and its highest version: created when the first was published, its owner unknown
    (wfx did not record publishers then)."""
    definition = WorkflowDefinition(
        database_id=first["workflowDatabaseId"],
        workflow_id=first["workflowId"],
        description=latest.get("description", ""),
        created_at=parse_date(first["publishedAt"]),
        latest_version=int(latest["workflowVersion"]),
    )
    return build_workflow_definition_record(definition)


def build_workflow_version_record(version: WorkflowVersion) -> Item:
    """The version's own item; its steps are items of their own (build_step_definition_records)."""
    return {
        "workflowDatabaseId:workflowId": version.workflow_key,
        "workflowVersion": version.version,
        "workflowDatabaseId": version.database_id,
        "workflowId": version.workflow_id,
        "description": redact(version.description),
        "publishedAt": format_date(version.published_at),
        "digest": version.digest,
        "stepCount": len(version.steps),
        **({"stateMachineArn": version.state_machine_arn} if version.state_machine_arn else {}),
    }


def step_definitions_key(database_id: str, workflow_id: str, version: int) -> str:
    """The partition of one version's step definitions."""
    return join_key(database_id, workflow_id, str(version))


def build_step_definition_records(version: WorkflowVersion) -> list[Item]:
    return [
        {
            "workflowDatabaseId:workflowId:workflowVersion": step_definitions_key(
                version.database_id, version.workflow_id, version.version
            ),
            "stepIndex": index,
            "stepDefinitionId": version.step_definition_id(index),
            "workflowDatabaseId": version.database_id,
            "workflowId": version.workflow_id,
            "workflowVersion": version.version,
            **_step_entry(step),
        }
        for index, step in enumerate(version.steps)
    ]


def parse_workflow_version_record(item: Item, step_items: Sequence[Item]) -> WorkflowVersion:
    """The version from its item and its step definitions' items (in any order)."""
    ordered = sorted(step_items, key=lambda step: int(step["stepIndex"]))
    return WorkflowVersion(
        database_id=item["workflowDatabaseId"],
        workflow_id=item["workflowId"],
        version=int(item["workflowVersion"]),
        description=item.get("description", ""),
        steps=tuple(_parse_step_entry(step) for step in ordered),
        published_at=parse_date(item["publishedAt"]),
        digest=item["digest"],
        state_machine_arn=item.get("stateMachineArn"),
    )


def parse_embedded_version_record(item: Item) -> WorkflowVersion:
    """A version item as wfx wrote it before step definitions were items: its steps inside it
    (`steps`). Read by the upgrade alone, which moves them out."""
    return parse_workflow_version_record(
        item, [{**step, "stepIndex": index} for index, step in enumerate(item["steps"])]
    )


def build_asset_file_record(asset_file: AssetFile) -> Item:
    return {
        "databaseId:assetId": join_key(asset_file.database_id, asset_file.asset_id),
        "fileKey": asset_file.file_key,
        "databaseId": asset_file.database_id,
        "assetId": asset_file.asset_id,
        "versionId": asset_file.version_id,
        "size": asset_file.size,
        "etag": asset_file.etag,
        "s3Bucket": asset_file.bucket,
        "assetRootS3Key": asset_file.asset_root_key,
        "modifiedAt": format_date(asset_file.modified_at),
        "metadata": dict(asset_file.metadata),
    }


def parse_asset_file_record(item: Item) -> AssetFile:
    return AssetFile(
        database_id=item["databaseId"],
        asset_id=item["assetId"],
        file_key=item["fileKey"],
        version_id=item["versionId"],
        size=int(item["size"]),
        etag=item["etag"],
        bucket=item["s3Bucket"],
        asset_root_key=item["assetRootS3Key"],
        modified_at=parse_date(item["modifiedAt"]),
        metadata=tuple(sorted(item.get("metadata", {}).items())),
    )


# -- WfxTaskExecutionsTable ----------------------------------------------------------------------


def task_execution_close_attributes(
    status: str, stop_date: datetime, error: str | None, workflow_execution_id: str
) -> tuple[Record, tuple[str, ...]]:
    """(attributes to set, names to remove) when an attempt is closed."""
    values: Item = {"status": str(status), "stopDate": format_date(stop_date)}
    if error:
        values["errorMessage"] = redact(error)
    fitted = fit_item(values, ATTEMPT_BUDGET, workflow_execution_id)
    return fitted, tuple(name for name in ("errorMessage", *ERROR_FLAGS) if name not in fitted)


def task_execution_close_of(move: StepMove) -> tuple[Record, tuple[str, ...]]:
    """task_execution_close_attributes of the move that closes an attempt."""
    status = move.close_status or move.status
    if move.stop_date is None or status is None:
        raise ValueError(f"closing an attempt needs a status and a stop date: {move!r}")
    error = None if status is StepStatus.SUCCEEDED else move.error
    return task_execution_close_attributes(
        status, move.stop_date, error, move.workflow_execution_id
    )


def build_task_execution_record(attempt: TaskExecution) -> Record:
    item: Item = {
        "pipelineExecutionId": attempt.pipeline_execution_id,
        "attempt": attempt.attempt,
        "workflowExecutionId": attempt.workflow_execution_id,
        "status": attempt.status.value,
        "startDate": format_date(attempt.start_date),
        "trigger": attempt.trigger.value,
    }
    _put_present(
        item,
        stopDate=format_date(attempt.stop_date) if attempt.stop_date else None,
        errorMessage=redact_optional(attempt.error),
    )
    return fit_item(item, ATTEMPT_BUDGET, attempt.workflow_execution_id)


def parse_task_execution_record(item: Item) -> TaskExecution:
    return TaskExecution(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item["workflowExecutionId"],
        attempt=int(item["attempt"]),
        status=item["status"],
        start_date=parse_date(item["startDate"]),
        stop_date=_optional_date(item, "stopDate"),
        error=item.get("errorMessage"),
        trigger=item.get("trigger", "start"),
    )


def access_facts_of(
    main: Item, inputs: Sequence[Item], configuration: Item | None, metadata: Sequence[Item]
) -> AccessFacts:
    """Tier-2 facts of one execution from its stored items: both stores build them here."""
    read = dict.fromkeys(
        AssetKey(database_id=item["databaseId"], asset_id=item["assetId"]) for item in inputs
    )
    written = None
    if configuration and configuration.get("outputDatabaseId"):
        written = AssetKey(
            database_id=configuration["outputDatabaseId"],
            asset_id=configuration["outputAssetId"],
        )
    return AccessFacts(
        workflow_execution_id=main["workflowExecutionId"],
        workflow_database_id=main["workflowDatabaseId"],
        workflow_id=main["workflowId"],
        read_assets=tuple(read),
        written_asset=written,
        metadata_databases=tuple(dict.fromkeys(item["databaseId"] for item in metadata)),
    )
