"""A run's step rows (PipelineExecutionsStorageTable), their per-step input tables and their
attempts (WfxTaskExecutionsTable). Item shapes as adapters/records.py describes."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter
from pydantic.alias_generators import to_camel

from adapters.compact_json import IdTemplates, RowTemplates
from adapters.item_budget import (
    KEPT_BYTES,
    Item,
    Record,
    fit_item,
    fit_values,
    new_record,
)
from adapters.records import (
    ATTEMPT_BUDGET,
    CONFIGURATION_RECORD_TYPE,
    STEP_BUDGET,
    STEP_CONFIGURATION_BUDGET,
    STEP_INPUT_METADATA_BUDGET,
    SUB_EXECUTION_STOPS,
    format_date,
    format_table_date,
    join_key,
    metadata_text,
    optional_date,
    parse_date,
    readable_rows,
    row_parser,
    stored_date,
    stored_status,
    table_date,
)
from domain.attempts import TaskExecution
from domain.execution import (
    PipelineExecution,
    PipelineInputFile,
    StepHead,
    StepInputConfiguration,
    StepInputMetadata,
    UnreadableRow,
    chain_order,
)
from domain.logs import STEP_FUNCTIONS_EXECUTION, RegisteredLog, RegisteredSubExecution
from domain.redaction import redact, redact_executable, registered_secrets
from domain.statuses import StepStatus
from domain.sub_processes import SubExecutionStop
from domain.workflow import (
    ExecutionType,
    InputFileArity,
)

if TYPE_CHECKING:  # a step move is written, never read: a list leaves the run lifecycle out
    from domain.run import StepMove

# What a step move may write later (an error at its cap, its flags) is kept free on the row.
_STEP_MOVE_RESERVE = KEPT_BYTES + 1024


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
_ERROR_ATTRIBUTES = ("errorMessage", *ERROR_FLAGS)
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


def step_mutable_attributes(step: PipelineExecution) -> tuple[Item, tuple[str, ...]]:
    """What a step transition writes (status, dates, error) and removes; nothing else is touched.
    (Fitted by fit_values: a Record when an error was cut.)"""
    fitted = fit_values(
        _step_mutable_values(step.__dict__), STEP_BUDGET, step.workflow_execution_id
    )
    return fitted, _error_removals(fitted)


def _step_mutable_values(step: dict[str, Any]) -> Item:
    """A step's status, dates and error as written, from its fields (its model's dict)."""
    values: Item = {
        STEP_STATUS: str(step["status"]),
        STEP_START_DATE: table_date(step["start_date"]),
        STEP_STOP_DATE: table_date(step["stop_date"]),
    }
    if step["error"] is not None:
        values["errorMessage"] = redact(step["error"])
    return values


def _error_removals(fitted: Item) -> tuple[str, ...]:
    """The error attributes a write of `fitted` (a step's or an attempt's) removes: those it
    does not set, so that no earlier error or cut error's flags outlive it."""
    if "errorMessage" not in fitted:
        return _ERROR_ATTRIBUTES
    return () if ERROR_FLAGS[0] in fitted else ERROR_FLAGS


def step_move_attributes(move: StepMove) -> Item:
    """What a step move sets on the step: its status, and each other field it carries (nothing
    for a move that leaves the step's status alone). Fitted by fit_values."""
    if move.status is None:
        return {}
    values: Item = {STEP_STATUS: str(move.status)}
    if move.start_date:
        values[STEP_START_DATE] = format_table_date(move.start_date)
    if move.stop_date:
        values[STEP_STOP_DATE] = format_table_date(move.stop_date)
    if move.error and (error := redact(move.error)):
        values["errorMessage"] = error
    return fit_values(values, STEP_BUDGET, move.workflow_execution_id)


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
    return _VAMS_LAMBDA if execution_type is ExecutionType.LAMBDA else str(execution_type)


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


# A launch writes one a step: the same for each run of a workflow version but for its ids, its
# paths (named by the ids) and its dates. Kept (compact_json.RowTemplates) only for a row with
# none of the lists, the scopes or an error a step gains as it runs: such a row is built whole.
_STEP_VARYING = {  # field: its attribute, in the row's order
    "pipeline_execution_id": "pipelineExecutionId",
    "workflow_execution_id": "workflowExecutionId",
    "output_files_path": "S3AssetPipelineBucketOutputFilesPrefix",
    "output_metadata_path": "S3AssetPipelineBucketOutputMetadataPrefix",
    "output_preview_path": "S3AssetPipelineBucketOutputPreviewPrefix",
    "auxiliary_path": "S3AssetAuxPipelineBucketPrefixTemp",
    "orchestration_bus_event_prefix": "orchestrationBusEventPrefix",
    "input_path": "inputS3AssetFilePath",
}
_STEP_DATES = (STEP_START_DATE, STEP_STOP_DATE)
_FROM = "from_pipeline_execution_id"
_STEP_ROWS = RowTemplates((*_STEP_VARYING.values(), *_STEP_DATES))
_CHAINED_STEP_ROWS = RowTemplates((*_STEP_VARYING.values(), _FROM, *_STEP_DATES))
_step_key = itemgetter(
    *(
        name
        for name in PipelineExecution.model_fields
        if name not in _STEP_VARYING and name not in (_FROM, "start_date", "stop_date")
    )
)
_step_paths = itemgetter(*_STEP_VARYING)


def build_pipeline_execution_record(step: PipelineExecution) -> Record:
    # its fields read from the model's own dict: a model's attribute is read through pydantic's
    # __getattr__ hook (~30 a step, three steps a launch)
    values = step.__dict__
    execution_id = values["workflow_execution_id"]
    rows = _step_rows(values)
    if rows is None:
        return _fitted_step(pipeline_execution_item(step), execution_id)
    key = _step_key(values)
    chained = values[_FROM]
    dates = (table_date(values["start_date"]), table_date(values["stop_date"]))
    varying = (*_step_paths(values), chained, *dates) if chained else _step_paths(values) + dates
    return rows.record(
        key,
        varying,
        lambda: pipeline_execution_item(step),
        lambda item, text: _fitted_step(item, execution_id, text),
    )


def _step_rows(values: dict[str, Any]) -> RowTemplates | None:
    """The kept rows a step's row is one of, by its fields (its model's dict); None for a row
    holding a list, a scope or an error."""
    if (
        values["error"] is not None
        or values["registered_sub_executions"]
        or values["registered_logs"]
        or values["sub_execution_stops"]
        or values["s3_read_only_scopes"]
        or values["s3_read_write_scopes"]
    ):
        return None
    return _CHAINED_STEP_ROWS if values[_FROM] else _STEP_ROWS


def _fitted_step(item: Item, execution_id: str, text: str | None = None) -> Record:
    # last, as a transition writes them: an error over its cap is cut by fit_item as it is by
    # step_mutable_attributes, its flags following it
    return fit_item(item, STEP_BUDGET, execution_id, reserve=_STEP_MOVE_RESERVE, json_text=text)


def pipeline_execution_item(step: PipelineExecution) -> Item:
    """The step's row, built from its fields one by one."""
    values = step.__dict__
    item: Item = {
        "pipelineExecutionId": values["pipeline_execution_id"],
        "workflowExecutionId": values["workflow_execution_id"],
        "pipelineDatabaseId:pipelineId": step.pipeline_key,
        "pipelineDatabaseId": values["pipeline_database_id"],
        "pipelineId": values["pipeline_id"],
        "endStatePipeline": "true" if values["end_state"] else "false",
        # VAMS's paths: the buckets are the object store's, which a step row does not name
        "S3AssetPipelineBucket": "",
        "S3AssetPipelineBucketInputMetadataFilePrefix": "",
        "S3AssetPipelineBucketInputConfigurationFilePrefix": "",
        "S3AssetPipelineBucketOutputFilesPrefix": values["output_files_path"],
        "S3AssetPipelineBucketOutputMetadataPrefix": values["output_metadata_path"],
        "S3AssetPipelineBucketOutputPreviewPrefix": values["output_preview_path"],
        "S3AssetPipelineBucketOutputResultsPrefix": "",
        "S3AssetAuxPipelineBucket": "",
        "S3AssetAuxPipelineBucketPrefixTemp": values["auxiliary_path"],
        "S3AssetAuxPipelineBucketPrefixPreview": "",
        "pipelineExecutionType": _pipeline_execution_type(values["execution_type"]),
        "waitForCallback": _CALLBACK[values["wait_for_callback"]],
        "pipelineResourceArn": values["pipeline_resource_arn"],
        "orchestrationBusEventPrefix": values["orchestration_bus_event_prefix"],
        "registeredSubExecutions": list(
            map(sub_execution_entry, values["registered_sub_executions"])
        ),
        "registeredLogs": list(map(_log_entry, values["registered_logs"])),
        **sub_execution_stops_attribute(values["sub_execution_stops"]),
        "vendedRoleArn": values["vended_role_arn"],
        "s3ReadOnlyScopes": list(values["s3_read_only_scopes"]),
        "s3ReadWriteScopes": list(values["s3_read_write_scopes"]),
        "credentialVendingState": values["credential_vending_state"],
        # wfx's own
        "stepIndex": values["step_index"],
        "executionType": str(values["execution_type"]),
        "inputFileArity": str(values["input_file_arity"]),
        "inputS3AssetFilePath": values["input_path"],
    }
    # sparse: absent, never "", when the step has none
    if values["from_pipeline_execution_id"]:
        item["from_pipeline_execution_id"] = values["from_pipeline_execution_id"]
    if values["step_definition_id"]:
        item["stepDefinitionId"] = values["step_definition_id"]
    item.update(_step_mutable_values(values))
    return item


def _step_value(item: Item, name: str) -> Any:
    """A step attribute under VAMS's name, else the name wfx gave it before 0.2."""
    return item[name] if name in item else item.get(EARLIER_STEP_NAMES[name])


def _step_date(item: Item, name: str) -> datetime | None:
    stored = name if name in item else EARLIER_STEP_NAMES[name]
    return stored_date(item, stored) if item.get(stored) else None


def _first_of(item: Item, *names: str) -> str:
    return next((str(item[name]) for name in names if item.get(name)), "")


@row_parser("PipelineExecutionsStorageTable", "pipelineExecutionId")
def parse_pipeline_execution_record(item: Item) -> PipelineExecution:
    start, stop = _step_date(item, STEP_START_DATE), _step_date(item, STEP_STOP_DATE)
    return PipelineExecution(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item["workflowExecutionId"],
        pipeline_database_id=item["pipelineDatabaseId"],
        pipeline_id=item["pipelineId"],
        # a row VAMS wrote has no index: parse_run_steps numbers a run's steps by their chain
        step_index=int(item.get("stepIndex", 0)),
        step_definition_id=item.get("stepDefinitionId"),
        status=stored_status(_step_value(item, STEP_STATUS)) or StepStatus.NEW,
        start_date=start,
        stop_date=stop,
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


# What parse_step_head reads of a step row (SQLite selects these alone), and those of them it
# reads as present or absent, not by value alone (a null one is there: not a default, no fallback)
STEP_HEAD_ATTRIBUTES = (
    "pipelineExecutionId",
    "from_pipeline_execution_id",
    "stepIndex",
    STEP_STATUS,
    EARLIER_STEP_NAMES[STEP_STATUS],
    STEP_START_DATE,
    EARLIER_STEP_NAMES[STEP_START_DATE],
)
STEP_HEAD_PRESENCE = ("stepIndex", STEP_STATUS, STEP_START_DATE)


@row_parser("PipelineExecutionsStorageTable", "pipelineExecutionId")
def parse_step_head(item: Item) -> StepHead:
    """The StepHead of a step row (or of its STEP_HEAD_ATTRIBUTES), each attribute read as
    parse_pipeline_execution_record reads it: a row this refuses, that refuses too."""
    step_index = int(item.get("stepIndex", 0))
    if step_index < 0:
        raise ValueError(f"stepIndex is negative: {step_index}")
    return StepHead(
        pipeline_execution_id=str(item["pipelineExecutionId"]),
        from_pipeline_execution_id=item.get("from_pipeline_execution_id"),
        step_index=step_index,
        status=StepStatus(stored_status(_step_value(item, STEP_STATUS)) or StepStatus.NEW),
        start_date=_step_date(item, STEP_START_DATE),
    )


def parse_run_steps(
    items: Sequence[Item], left_out: list[UnreadableRow] | None = None
) -> list[PipelineExecution]:
    """A run's step rows in step order: by wfx's stepIndex, or, for rows VAMS wrote (which have
    none), by their chain (from_pipeline_execution_id), numbered from 0 in that order. Given
    `left_out`, a row that cannot be read is left out and named there."""
    steps = readable_rows(parse_pipeline_execution_record, items, left_out)
    if all("stepIndex" in item for item in items):
        return sorted(steps, key=lambda step: step.step_index)
    return [
        step.model_copy(update={"step_index": index})
        for index, step in enumerate(chain_order(steps))
    ]


# -- per-step input tables ---------------------------------------------------------------------


# A launch writes one a step, the same but for the step's and the run's ids: kept by every
# other field of the configuration and the secrets its handler and command were redacted of
# (compact_json.RowTemplates).
_CONFIGURATION_IDS = ("pipeline_execution_id", "workflow_execution_id")
_STEP_CONFIGURATION_ROWS = RowTemplates(("pipelineExecutionId", "workflowExecutionId"))
_step_configuration_key = itemgetter(
    *(name for name in StepInputConfiguration.model_fields if name not in _CONFIGURATION_IDS)
)
_step_configuration_ids = itemgetter(*_CONFIGURATION_IDS)


def build_step_input_configuration_record(configuration: StepInputConfiguration) -> Record:
    # its fields read from the model's own dict, as a step row's are
    config = configuration.__dict__
    key = (_step_configuration_key(config), registered_secrets())
    kept = _STEP_CONFIGURATION_ROWS.row(key, _step_configuration_ids(config))
    if kept is not None:
        item, text = kept
        return fit_item(
            item, STEP_CONFIGURATION_BUDGET, config["workflow_execution_id"], json_text=text
        )
    item = step_input_configuration_item(configuration)
    record = fit_item(item, STEP_CONFIGURATION_BUDGET, config["workflow_execution_id"])
    if record.json_text is not None and not record.offloads:  # kept only as a row holds it
        _STEP_CONFIGURATION_ROWS.keep(key, item)
    return record


def step_input_configuration_item(configuration: StepInputConfiguration) -> Item:
    """The configuration's row, built from its fields one by one."""
    config = configuration.__dict__
    item: Item = {
        "pipelineExecutionId": config["pipeline_execution_id"],
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
            "inputFileArity": str(config["input_file_arity"]),
            # wfx passes a step the asset file metadata its metadataInputs name, nothing else
            "metadataInputs": {
                "assetMetadata": False,
                "fileMetadata": bool(config["metadata_inputs"]),
                "fileAttributes": False,
                "databaseMetadata": False,
            },
        },
        "effectiveSystemConfigTruncated": False,
        "templateOverrides": {},
        "templateOverridesTruncated": False,
        # wfx's own
        "workflowExecutionId": config["workflow_execution_id"],
        "executionType": str(config["execution_type"]),
        "inputFileArity": str(config["input_file_arity"]),
        "metadataInputs": list(config["metadata_inputs"]),
        "inputFiles": list(config["input_files"]),
    }
    # copied from the workflow version into every run, and never run from: the whole policy
    if config["handler"] and (handler := redact_executable(config["handler"])):
        item["handler"] = handler
    if config["command"] is not None:
        item["command"] = [redact(part) for part in config["command"]]
    return item


def _vams_system_config(item: Item) -> Item:
    config = item.get("effectiveSystemConfig")
    return config if isinstance(config, dict) else {}


def _metadata_inputs_of(item: Item) -> tuple[str, ...]:
    """wfx's list of metadata inputs, else the keys VAMS's effective systemConfig turns on."""
    if "metadataInputs" in item:
        return tuple(item["metadataInputs"])
    gates = _vams_system_config(item).get("metadataInputs")
    return tuple(name for name, on in gates.items() if on) if isinstance(gates, dict) else ()


@row_parser("PipelineExecutionInputConfigurationStorageTable", "pipelineExecutionId")
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


def _text_pairs(values: Any) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, metadata_text(v)) for k, v in (values or {}).items()))


@row_parser(
    "PipelineExecutionInputMetadataStorageTable",
    "pipelineExecutionId",
    "databaseId:assetId:filePath",
)
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


@row_parser(
    "PipelineExecutionInputFilesStorageTable",
    "pipelineExecutionId",
    "databaseId:assetId:inputAssetFileKey",
)
def parse_pipeline_input_file_record(item: Item) -> PipelineInputFile:
    """A row as the migration writes it, or as wfx's before 0.2 did (its key without the "/")."""
    return PipelineInputFile(
        pipeline_execution_id=item["pipelineExecutionId"],
        workflow_execution_id=item["workflowExecutionId"],
        database_id=item["databaseId"],
        asset_id=item["assetId"],
        input_asset_file_key=item["inputAssetFileKey"],
    )


# -- WfxTaskExecutionsTable ----------------------------------------------------------------------


def task_execution_close_attributes(
    status: str, stop_date: datetime, error: str | None, workflow_execution_id: str
) -> tuple[Item, tuple[str, ...]]:
    """(attributes to set, names to remove) when an attempt is closed; fitted by fit_values."""
    values: Item = {"status": str(status), "stopDate": format_date(stop_date)}
    if error:
        values["errorMessage"] = redact(error)
    fitted = fit_values(values, ATTEMPT_BUDGET, workflow_execution_id)
    return fitted, _error_removals(fitted)


def task_execution_close_of(move: StepMove) -> tuple[Item, tuple[str, ...]]:
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
        "status": str(attempt.status),
        "startDate": format_date(attempt.start_date),
        "trigger": str(attempt.trigger),
    }
    if attempt.stop_date:
        item["stopDate"] = format_date(attempt.stop_date)
    if attempt.error and (error := redact(attempt.error)):
        item["errorMessage"] = error
        return fit_item(item, ATTEMPT_BUDGET, attempt.workflow_execution_id)
    # ids, a number, statuses and dates only: far below any budget (records.py), so not fitted
    return new_record(item, (), _attempt_text(item))


# A step's run writes one an attempt: the same for each run but for its ids and moments.
_ATTEMPT_VARYING = ("pipelineExecutionId", "workflowExecutionId", "startDate")
_ATTEMPT_TEXTS = IdTemplates(_ATTEMPT_VARYING)
_CLOSED_ATTEMPT_TEXTS = IdTemplates((*_ATTEMPT_VARYING, "stopDate"))


def _attempt_text(item: Item) -> str:
    """The row's JSON from a template, for an attempt with no error (the budget fits one)."""
    rest = (item["attempt"], item["status"], item["trigger"])  # the other values
    if "stopDate" in item:
        return _CLOSED_ATTEMPT_TEXTS.text(rest, item)
    return _ATTEMPT_TEXTS.text(rest, item)


@row_parser("WfxTaskExecutionsTable", "pipelineExecutionId", "attempt")
def parse_task_execution_record(item: Item) -> TaskExecution:
    values = {
        "pipeline_execution_id": item["pipelineExecutionId"],
        "workflow_execution_id": item["workflowExecutionId"],
        "attempt": int(item["attempt"]),
        "status": item["status"],
        "start_date": stored_date(item, "startDate"),
        "stop_date": optional_date(item, "stopDate"),
        "error": item.get("errorMessage"),
        "trigger": item.get("trigger", "start"),
    }
    return _as_stored_attempt().validate_python(values)


@functools.cache
def _as_stored_attempt() -> TypeAdapter[TaskExecution]:
    """The validation of an attempt read back, by TaskExecution's annotations (built once)."""
    return TypeAdapter(TaskExecution)
