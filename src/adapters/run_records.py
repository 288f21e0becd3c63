"""The run's own rows (seed 000): its main row (WorkflowExecutionsStorageTableV2), its input
selections and resolved input files, its configuration, and the access facts read from them.
Item shapes as adapters/records.py describes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

from adapters.compact_json import RowTemplates
from adapters.item_budget import (
    Item,
    Record,
    fit_item,
    fit_values,
)
from adapters.records import (
    ALL_LIST_PARTITION,
    CONFIGURATION_BUDGET,
    CONFIGURATION_RECORD_TYPE,
    EXECUTION_BUDGET,
    format_date,
    format_table_date,
    join_key,
    listed_rows,
    parse_date,
    put_present,
    readable_rows,
    row_parser,
    stored_date,
    stored_status,
    table_date,
)
from domain.authorization import AccessFacts, AssetKey
from domain.execution import (
    ExecutionConfiguration,
    ExecutionDetails,
    ExecutionInput,
    InputSelection,
    RunnerLease,
    StepDetails,
    StepHead,
    UnreadableRow,
    WorkflowExecution,
)
from domain.redaction import redact, redact_optional, registered_secrets
from domain.redrive import STEP_FUNCTIONS_ORCHESTRATOR

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


# Every field of a main row: a change of all of them writes every attribute a change writes.
_ALL_FIELDS = frozenset(WorkflowExecution.model_fields)


def execution_mutable_attributes(
    execution: WorkflowExecution, fields: frozenset[str] = _ALL_FIELDS
) -> tuple[Item, tuple[str, ...]]:
    """The attributes a status change writes (those made of `fields` alone, when given), and
    those it removes because they have no value (VAMS's attributes are never removed: they go
    back to their empty value)."""
    values = _mutable_values(execution, fields)
    fitted = fit_values(_present(values), EXECUTION_BUDGET, execution.workflow_execution_id)
    return fitted, tuple([name for name in _removable(values, fields) if name not in fitted])


# What a change of some fields may write or remove (its attributes and the flags of the cut
# fields among them), by the fields: a run's decisions change a few sets of them.
_REMOVABLE: dict[frozenset[str], tuple[str, ...]] = {}


def _removable(values: Item, fields: frozenset[str]) -> tuple[str, ...]:
    names = _REMOVABLE.get(fields)
    if names is None:
        flags = (
            flag
            for f in EXECUTION_BUDGET.fields
            if f.name in values
            for flag in (f.flag, f.key_attribute)
        )
        names = _REMOVABLE[fields] = tuple(dict.fromkeys((*values, *flags)))
    return names


def _mutable_values(execution: WorkflowExecution, fields: frozenset[str] = _ALL_FIELDS) -> Item:
    """Every attribute a status change writes, None where it has no value; of `fields`, when
    given, those made of them alone (and the status, always written), in the same order."""
    e = execution
    values: Item = {"executionStatus": str(e.status)}
    if "execution_stop_date" in fields:
        values["executionStopDate"] = table_date(e.execution_stop_date)
    if "last_sfn_sync_check_date" in fields:
        values["lastSfnSyncCheckDate"] = table_date(e.last_sfn_sync_check_date)
    if "execution_arn" in fields:
        values["workflow_execution_arn"] = e.execution_arn or ""
    if "state_machine_arn" in fields:
        values["workflow_arn"] = e.state_machine_arn or ""
    if "execution_log_group_arn" in fields:
        values["executionLogGroupArn"] = e.execution_log_group_arn or ""
    if "execution_log" in fields or "execution_log_object_key" in fields:
        # the three with either field: whether the log is cut already decides how it is fitted
        values["executionLog"] = redact(e.execution_log) if e.execution_log else ""
        values["executionLogTruncated"] = True if e.execution_log_object_key else None
        values["executionLogObjectKey"] = e.execution_log_object_key
    if "execution_error" in fields:
        values["executionError"] = redact(e.execution_error) if e.execution_error else ""
    if "execution_cause" in fields:
        values["executionCause"] = redact_optional(e.execution_cause)
    if "redrive_count" in fields:
        values["redriveCount"] = e.redrive_count
    if "redrive_date" in fields:
        values["redriveDate"] = format_date(e.redrive_date) if e.redrive_date else None
    if "redrive_status" in fields:
        values["redriveStatus"] = e.redrive_status
    if "redrive_status_reason" in fields:
        values["redriveStatusReason"] = e.redrive_status_reason
    if "abort_requested_date" in fields:
        requested = e.abort_requested_date
        values[ABORT_REQUESTED_DATE] = format_date(requested) if requested else None
    if "abort_cause" in fields:
        values["abortCause"] = redact_optional(e.abort_cause)
    if "finishing_date" in fields:
        values[FINISHING_DATE] = format_date(e.finishing_date) if e.finishing_date else None
    if "runner_lease" in fields:
        values.update(_lease_attributes(e.runner_lease))
    return values


def _present(values: Item) -> Item:
    """The values a row holds: VAMS's always, the others when they have one."""
    return {
        name: value
        for name, value in values.items()
        if name in _EXECUTION_ALWAYS or (value is not None and value != "")
    }


ABORT_REQUESTED_DATE = "abortRequestedDate"
FINISHING_DATE = "finishingDate"
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
) -> tuple[Item, tuple[str, ...]]:
    """What a change from `before` to `after` writes and removes, and nothing else: attributes
    the change leaves alone keep whatever another writer stored meanwhile. The status is always
    written, so that a change is never an empty update. Made from the change's delta, the
    fields it changes (a handful of the row's): only the attributes made of them are made,
    fitted (each cut field by its own cap) and compared, not both rows whole."""
    fields = before.fields_changed_in(after)
    # (the row as `before` wrote it: its cut fields as cut, to compare with the new ones)
    old = fit_values(
        _present(_mutable_values(before, fields)), EXECUTION_BUDGET, before.workflow_execution_id
    )
    new, removed = execution_mutable_attributes(after, fields)
    values = {
        name: value
        for name, value in new.items()
        if old.get(name) != value and not (name in _SET_ONCE and value == "")
    }
    values["executionStatus"] = new["executionStatus"]
    return _with_bodies(values, new), tuple([name for name in removed if name in old])


def _with_bodies(values: Item, fitted: Item) -> Item:
    """`values` (a part of `fitted`) with the bodies of the cut fields it writes the key of: a
    Record when `fitted` is one (fit_values moved a body out), else `values` as they are."""
    if not isinstance(fitted, Record) or not fitted.offloads:
        return values
    return Record(values, [o for o in fitted.offloads if values.get(f"{o.attribute}ObjectKey")])


def lease_guard_values(execution: WorkflowExecution) -> tuple[str | None, str | None]:
    """The lease owner and expiry as stored for `execution` (None, None without a lease)."""
    lease = execution.runner_lease
    if lease is None:
        return None, None
    return lease.owner, format_date(lease.expires_date)


START_DATE_ESTIMATED = "startDateEstimated"


def build_execution_record(execution: WorkflowExecution) -> Record:
    rows = _launched_rows(execution)
    if rows is None:
        return _fitted_execution(execution_item(execution), execution)
    values = execution.__dict__
    return rows.record(
        (_launched_key(values), registered_secrets()),
        _launched_values(values),
        lambda: execution_item(execution),
        lambda item, text: _fitted_execution(item, execution, text),
    )


def execution_item(execution: WorkflowExecution) -> Item:
    """The run's main row, built from its fields one by one."""
    item: Item = {
        "workflowExecutionId": execution.workflow_execution_id,
        "workflowDatabaseId:workflowId": execution.workflow_key,
        "workflowDatabaseId": execution.workflow_database_id,
        "workflowId": execution.workflow_id,
        "workflowVersion": execution.workflow_version,
        "executionStartDate": format_table_date(execution.execution_start_date),
        "triggeredByUserId": execution.triggered_by_user_id or "system",
        "triggerType": str(execution.trigger_type),
        "orchestrator": execution.orchestrator,
        "allListPartition": ALL_LIST_PARTITION,
    }
    put_present(
        item,
        executionGroupId=execution.execution_group_id,
        clientToken=execution.client_token,
        requestDigest=execution.request_digest,
        rerunOfExecutionId=execution.rerun_of_execution_id,
    )
    if execution.start_date_estimated:
        item[START_DATE_ESTIMATED] = True  # VAMS writes it only on a run whose start it estimated
    item.update(_present(_mutable_values(execution)))
    return item


def _fitted_execution(item: Item, execution: WorkflowExecution, text: str | None = None) -> Record:
    # fitted whole: its JSON, made to size it, is the row's (its mutable attributes last, as
    # an update writes them, so a cut field's flags follow them as they would)
    return fit_item(item, EXECUTION_BUDGET, execution.workflow_execution_id, json_text=text)


# A launch writes one a run, the same for each launch of a workflow version but for its id, its
# start, its request's digest and its lease's dates: kept by every other field of the run and
# the secrets its texts were redacted of (compact_json.RowTemplates). Only for a run with a
# digest and no token or rerun (each a value of its own a launch: as part of the key, a kept
# row a launch); a row without them, as an upgrade or a migration rewrites, is built whole.
_LAUNCH_VARYING = (
    "workflow_execution_id",
    "execution_start_date",
    "request_digest",
    "runner_lease",
)
_UNLEASED_ROWS = RowTemplates(("workflowExecutionId", "executionStartDate", "requestDigest"))
_LEASED_ROWS = RowTemplates(
    (
        "workflowExecutionId",
        "executionStartDate",
        "requestDigest",
        LEASE_OWNER,
        _LEASE_RENEWED_DATE,
        LEASE_EXPIRES_DATE,
    )
)
_launched_key = itemgetter(
    *(name for name in WorkflowExecution.model_fields if name not in _LAUNCH_VARYING)
)


def _launched_rows(execution: WorkflowExecution) -> RowTemplates | None:
    """The kept rows a run's main row is one of; None for one built whole. A varying value
    the row leaves out when empty (the digest, the lease's owner) must be there."""
    if (
        execution.client_token is not None
        or execution.rerun_of_execution_id is not None
        or not execution.request_digest
    ):
        return None
    lease = execution.runner_lease
    if lease is None:
        return _UNLEASED_ROWS
    return _LEASED_ROWS if lease.owner else None


def _launched_values(values: dict[str, Any]) -> tuple[str, ...]:
    """The varying values of a launched run's row, by its fields (its model's dict)."""
    launched = (
        values["workflow_execution_id"],
        format_table_date(values["execution_start_date"]),
        values["request_digest"],
    )
    lease: RunnerLease | None = values["runner_lease"]
    if lease is None:
        return launched
    return (
        *launched,
        lease.owner,
        format_date(lease.renewed_date),
        format_date(lease.expires_date),
    )


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
    (FINISHING_DATE, "finishing_date"),
)
# A row VAMS launched names no workflow version (VAMS has none) and no orchestrator: it ran on
# Step Functions. wfx before 0.2 kept the two ARNs under its own names.
_UNVERSIONED = 0
_EARLIER_ARNS = (("stateMachineArn", "state_machine_arn"), ("executionArn", "execution_arn"))


@row_parser("WorkflowExecutionsStorageTableV2", "workflowExecutionId")
def parse_execution_record(item: Item) -> WorkflowExecution:
    fields: dict[str, Any] = {
        "workflow_execution_id": item["workflowExecutionId"],
        "workflow_database_id": item["workflowDatabaseId"],
        "workflow_id": item["workflowId"],
        "workflow_version": int(item.get("workflowVersion", _UNVERSIONED)),
        "status": stored_status(item["executionStatus"]),
        "execution_start_date": stored_date(item, "executionStartDate"),
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
        if item.get(attribute):
            fields[field] = stored_date(item, attribute)
    if "redriveCount" in item:
        fields["redrive_count"] = int(item["redriveCount"])
    if item.get(START_DATE_ESTIMATED):
        fields["start_date_estimated"] = True
    if LEASE_OWNER in item:
        fields["runner_lease"] = _parse_lease(item)
    # model_validate, not WorkflowExecution(**fields): no keywords to repack, ~0.7 µs a row less
    return WorkflowExecution.model_validate(fields)


def listed_executions(items: Iterable[Item]) -> tuple[WorkflowExecution, ...]:
    """The runs of a list's rows, a main row wfx cannot read left out with a warning naming it."""
    return tuple(listed_rows(parse_execution_record, items))


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


@row_parser(
    "WorkflowExecutionInputsStorageTable",
    "workflowExecutionId",
    "databaseId:assetId:inputAssetFileKey",
)
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


# A launch writes one a run, the same for each run of a workflow version but for its id and
# start: kept by every other field of the configuration (compact_json.RowTemplates).
_CONFIGURATION_VARYING = ("workflow_execution_id", "execution_start_date")
_CONFIGURATION_ROWS = RowTemplates(("workflowExecutionId", "executionStartDate"))
_configuration_key = itemgetter(
    *(name for name in ExecutionConfiguration.model_fields if name not in _CONFIGURATION_VARYING)
)


def build_execution_configuration_record(config: ExecutionConfiguration) -> Record:
    values = config.__dict__
    run_id = values["workflow_execution_id"]
    return _CONFIGURATION_ROWS.record(
        _configuration_key(values),
        (run_id, format_table_date(values["execution_start_date"])),
        lambda: execution_configuration_item(config),
        lambda item, text: fit_item(item, CONFIGURATION_BUDGET, run_id, json_text=text),
    )


def execution_configuration_item(config: ExecutionConfiguration) -> Item:
    """The run's configuration row, built from its fields one by one."""
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
    put_present(
        item,
        executionGroupId=config.execution_group_id,
        **{"outputDatabaseId:outputAssetId": config.output_asset_key},
    )
    return item


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


@row_parser("WorkflowExecutionConfigurationStorageTable", "workflowExecutionId")
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


def run_assets_of(
    inputs: Sequence[Item], configuration: Item | None
) -> tuple[tuple[AssetKey, ...], AssetKey | None]:
    """The assets a run read (each once, as its inputs list them) and the one it writes."""
    read = dict.fromkeys(
        AssetKey(database_id=item["databaseId"], asset_id=item["assetId"]) for item in inputs
    )
    written = None
    if configuration and configuration.get("outputDatabaseId"):
        written = AssetKey(
            database_id=configuration["outputDatabaseId"],
            asset_id=configuration["outputAssetId"],
        )
    return tuple(read), written


def access_facts_of(
    main: Item, assets: tuple[tuple[AssetKey, ...], AssetKey | None], metadata: Sequence[Item]
) -> AccessFacts:
    """Tier-2 facts of one execution from its main row, its assets (`run_assets_of`) and its
    steps' input metadata rows."""
    read, written = assets
    return AccessFacts(
        workflow_execution_id=main["workflowExecutionId"],
        workflow_database_id=main["workflowDatabaseId"],
        workflow_id=main["workflowId"],
        read_assets=read,
        written_asset=written,
        metadata_databases=tuple(dict.fromkeys(item["databaseId"] for item in metadata)),
    )


def execution_details_of(
    execution: WorkflowExecution,
    configuration: Item | None,
    inputs: Iterable[Item],
    selections: Iterable[Item],
    steps: tuple[StepDetails, ...],
    step_heads: tuple[StepHead, ...] | None,
    left_out: list[UnreadableRow] | None,
) -> ExecutionDetails:
    """A run's details from its rows as a store read them (whole, bodies read back), the steps'
    already made; given `left_out`, a row that cannot be read is left out and named."""
    configurations = readable_rows(
        parse_execution_configuration_record, [configuration] if configuration else [], left_out
    )
    return ExecutionDetails(
        execution=execution,
        configuration=next(iter(configurations), None),
        inputs=tuple(readable_rows(parse_execution_input_record, inputs, left_out)),
        selections=tuple(readable_rows(parse_execution_input_record, selections, left_out)),
        steps=steps,
        # once each: a run VAMS launched reads its selections as its inputs too
        unreadable_rows=tuple(dict.fromkeys(left_out or ())),
        step_heads=step_heads,
    )
