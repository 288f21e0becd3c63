"""A step's output rows: files, artifacts, metadata, results and logs. Item shapes as
adapters/records.py describes."""

from __future__ import annotations

from adapters.compact_json import IdTemplates
from adapters.item_budget import (
    Item,
    Record,
    fit_item,
)
from adapters.records import (
    OUTPUT_METADATA_BUDGET,
    STEP_LOG_BUDGET,
    format_date,
    metadata_text,
    parse_date,
    put_present,
    row_parser,
)
from adapters.tables import ARTIFACT_KEY
from domain.execution import (
    Artifact,
    OutputFile,
    OutputMetadata,
    OutputResult,
    StepLog,
    execution_output_prefix,
    shared_folder_path,
)
from domain.redaction import REDACTED, is_secret_name, redact
from domain.result_text import ResultText

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
        "contentType": row.content_type,
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


@row_parser(
    "PipelineExecutionOutputFilesStorageTable", "pipelineExecutionId", "fileType:relativeFilePath"
)
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
        content_type=item.get("contentType", ""),
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


@row_parser("WfxArtifactsTable", "pipelineExecutionId", ARTIFACT_KEY)
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


@row_parser(
    "PipelineExecutionOutputMetadataStorageTable",
    "pipelineExecutionId",
    "targetFilePath:metadataKey",
)
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
        value=metadata_text(item["metadataValue"]),
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
    return put_present(
        item,
        outputDatabaseId=row.output_database_id,
        outputAssetId=row.output_asset_id,
        assetVersionId=row.asset_version_id,
    )


@row_parser("PipelineExecutionOutputResultsStorageTable", "pipelineExecutionId", "relativeFilePath")
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
    values = row.__dict__  # its fields from the model's dict: one hooked read, not eight
    failed = values["status"] != "SUCCEEDED"
    message = redact(values["message"])
    item = {
        "pipelineExecutionId": values["pipeline_execution_id"],
        "logType": values["log_type"],
        "resultLog": "" if failed else message,
        "resultLogTruncated": False,
        "errorLog": message if failed else "",
        "errorLogTruncated": False,
        "logGroupArn": "",
        "logStreamName": "",
        # wfx's own
        "workflowExecutionId": values["workflow_execution_id"],
        "status": values["status"],
        "logLocation": values["log_location"],
    }
    # its text from a template, for the budget to size and the row to keep: every other value
    # follows from the log's type and status (the template checks it)
    text = _STEP_LOG_TEXTS.text((values["log_type"], values["status"]), item)
    return fit_item(item, STEP_LOG_BUDGET, values["workflow_execution_id"], json_text=text)


# A run's end writes one a step: the same but for its ids, its log and the log's location.
_STEP_LOG_TEXTS = IdTemplates(
    ("pipelineExecutionId", "resultLog", "errorLog", "workflowExecutionId", "logLocation")
)


@row_parser("PipelineExecutionLogsStorageTable", "pipelineExecutionId", "logType")
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
