"""Items of the earlier table (WorkflowExecutionsStorageTable) as VAMS 2.5.x wrote them, and the
rows the V1 migration must write for each, spelled out by hand (not through the builders).

Every date has a day of 12 or less and a month apart from it, so a day-first read would give
another date, not an error.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

ACCOUNT = "123456789012"
GLOBAL_MACHINE = "vams-global-mesh"
DB_MACHINE = "vams-db-a-thumbs"


def machine_arn(machine: str) -> str:
    return f"arn:aws:states:us-east-1:{ACCOUNT}:stateMachine:{machine}"


def execution_arn(machine: str, execution_id: str) -> str:
    return f"arn:aws:states:us-east-1:{ACCOUNT}:execution:{machine}:{execution_id}"


def v1_item(
    execution_id: str,
    database_id: str,
    asset_id: str,
    workflow: tuple[str, str],
    status: str,
    start: str,
    stop: str,
    file_key: str | None,
    machine: str,
) -> dict[str, Any]:
    """An item as that release wrote it: `$` before each part of a composite key, dates month
    first or empty, the stray `object__type`, inputAssetFileKey absent on the oldest rows."""
    workflow_database_id, workflow_id = workflow
    item: dict[str, Any] = {
        "databaseId:assetId": f"${database_id}:${asset_id}",
        "executionId": execution_id,
        "workflowDatabaseId:workflowId": f"${workflow_database_id}:${workflow_id}",
        "databaseId": database_id,
        "assetId": asset_id,
        "workflowDatabaseId": workflow_database_id,
        "workflowId": workflow_id,
        "workflow_arn": machine_arn(machine),
        "execution_arn": execution_arn(machine, execution_id),
        "executionStatus": status,
        "startDate": start,
        "stopDate": stop,
        "object__type": "execution",
    }
    if file_key is not None:
        item["inputAssetFileKey"] = file_key
    return item


GLOBAL = ("GLOBAL", "mesh-convert")
DB_WORKFLOW = ("db-a", "thumbnails")

# (id, database, asset, workflow, status, startDate, stopDate, inputAssetFileKey, machine)
ROWS: tuple[tuple[Any, ...], ...] = (
    ("e1000000-0000-4000-8000-000000000001", "db-a", "asset-1", GLOBAL, "SUCCEEDED",
     "03/04/2024, 09:30:00", "03/04/2024, 09:41:07", "models/my mesh.obj", GLOBAL_MACHINE),
    ("e1000000-0000-4000-8000-000000000002", "db-a", "asset-1", DB_WORKFLOW, "FAILED",
     "05/06/2024, 10:00:00", "05/06/2024, 10:02:00", "/", DB_MACHINE),
    ("e1000000-0000-4000-8000-000000000003", "db-a", "asset-2", GLOBAL, "ABORTED",
     "12/01/2023, 23:59:59", "12/02/2023, 00:10:00", None, GLOBAL_MACHINE),
    ("e1000000-0000-4000-8000-000000000004", "db-b", "asset-9", GLOBAL, "TIMED_OUT",
     "01/02/2024, 03:04:05", "01/02/2024, 05:04:05", "scans/part 1.e57", GLOBAL_MACHINE),
    ("e1000000-0000-4000-8000-000000000005", "db-b", "asset-8", DB_WORKFLOW, "SUCCEEDED",
     "", "07/08/2024, 11:12:13", "a.png", DB_MACHINE),
)  # fmt: skip
# Open rows: no stop date. The first Step Functions stopped (aborted) since; the second it
# no longer knows; the third still runs.
OPEN_ROWS: tuple[tuple[Any, ...], ...] = (
    ("e1000000-0000-4000-8000-000000000006", "db-b", "asset-9", GLOBAL, "RUNNING",
     "02/03/2024, 08:00:00", "", "scans/part 2.e57", GLOBAL_MACHINE),
    ("e1000000-0000-4000-8000-000000000007", "db-a", "asset-2", DB_WORKFLOW, "RUNNING",
     "04/05/2024, 06:07:08", "", None, DB_MACHINE),
    ("e1000000-0000-4000-8000-000000000008", "db-b", "asset-8", GLOBAL, "RUNNING",
     "", "", "b.png", GLOBAL_MACHINE),
)  # fmt: skip
STOPPED, UNKNOWN, STILL_RUNNING = (row[0] for row in OPEN_ROWS)
BAD_ITEM = {
    "databaseId:assetId": "$db-a:$asset-1",
    "executionId": "e1000000-0000-4000-8000-000000000099",
    "workflowDatabaseId:workflowId": "$GLOBAL:$mesh-convert",
    "executionStatus": "DONE",
    "startDate": "03/04/2024, 09:30:00",
}


def old_items(rows: tuple[tuple[Any, ...], ...] = ROWS + OPEN_ROWS) -> list[dict[str, Any]]:
    return [v1_item(*row) for row in rows]


def iso(v1_date: str) -> str:
    """`MM/DD/YYYY, HH:MM:SS` -> the builders' ISO form, by hand."""
    if not v1_date:
        return ""
    day_part, time_part = v1_date.split(", ")
    month, day, year = day_part.split("/")
    return f"{year}-{month}-{day}T{time_part}Z"


# The migration's own time, as the tests' clock gives it: the start estimated for a run that
# recorded none, stopped never, and whose workflow is not known.
MIGRATED_AT = datetime(2024, 9, 1, 12, 0, tzinfo=UTC)
MIGRATED_AT_ISO = "2024-09-01T12:00:00Z"
PIPELINE_NAMESPACE = uuid.UUID("6b0f7a52-1d3e-4c1a-9a57-2f5d8e0c4b91")
TERMINAL = ("SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT")


class MigrationClock:
    def now(self) -> datetime:
        return MIGRATED_AT


def expected_rows(
    row: tuple[Any, ...],
    status: str | None = None,
    stop: str | None = None,
    error: str | None = None,
    start: str | None = None,
    estimated: str | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Every item the migration writes for `row`, by table name, as VAMS 2.6's upgrade writes
    them (main, input, one end-state step, its input file, the run's and the step's configuration)
    plus wfx's own attributes; `status`/`stop`/`error` as reconciled (default: as the row has
    them); `start` is Step Functions' for a row with none; `estimated` the start estimated for a
    run that recorded none (default: its stop date, else the migration's time)."""
    execution_id, database_id, asset_id, workflow, old_status, old_start, old_stop = row[:7]
    key, machine = row[7:]
    status = status or old_status
    stop_iso = iso(old_stop) if stop is None else stop
    start_iso = iso(old_start) or start
    is_estimated = not start_iso
    if not start_iso:
        start_iso = estimated or stop_iso or MIGRATED_AT_ISO
    if not stop_iso and status in TERMINAL:
        stop_iso = start_iso  # an ended run with no stop ended, as far as is known, as it started
    file_key = key if key is not None else "/"
    slash_key = "/" + file_key.lstrip("/")
    workflow_key = f"{workflow[0]}:{workflow[1]}"
    main: dict[str, Any] = {
        "workflowExecutionId": execution_id,
        "workflowDatabaseId:workflowId": workflow_key,
        "workflowDatabaseId": workflow[0],
        "workflowId": workflow[1],
        "workflowVersion": 0,
        "executionStartDate": start_iso,
        "triggeredByUserId": "SYSTEM_USER",
        "triggerType": "Manual",
        "orchestrator": "stepfunctions",
        "allListPartition": "execution",
        "executionStatus": status,
        "workflow_execution_arn": execution_arn(machine, execution_id),
        "workflow_arn": machine_arn(machine),
        "executionLogGroupArn": "",
        "executionStopDate": stop_iso or "",
        "lastSfnSyncCheckDate": "",
        "executionError": "",
        "executionLog": "",
        "redriveCount": 0,
    }
    if is_estimated:
        main["startDateEstimated"] = True  # VAMS's flag: a date derived, not recorded
    if error and status in ("FAILED", "ABORTED", "TIMED_OUT"):
        main["executionError"] = error  # seed 000: never the status name
    pipeline_id = str(uuid.uuid5(PIPELINE_NAMESPACE, f"v1:{execution_id}"))
    step: dict[str, Any] = {
        "pipelineExecutionId": pipeline_id,
        "workflowExecutionId": execution_id,
        # the old row names no pipeline: VAMS's name for a pipeline it cannot find
        "pipelineDatabaseId:pipelineId": f"{workflow[0]}:DELETED",
        "pipelineDatabaseId": workflow[0],
        "pipelineId": "DELETED",
        "endStatePipeline": "true",
        "executionStatus": status,
        "executionStartDate": start_iso,
        "executionStopDate": stop_iso or "",
        "pipelineExecutionType": "Lambda",
        "waitForCallback": "Disabled",
        "pipelineResourceArn": "",
        "vendedRoleArn": "",
        "s3ReadOnlyScopes": [],
        "s3ReadWriteScopes": [],
        "credentialVendingState": "notVended",
        "orchestrationBusEventPrefix": "",
        "registeredSubExecutions": [],
        "registeredLogs": [],
        **{
            name: ""
            for name in (
                "S3AssetPipelineBucket",
                "S3AssetPipelineBucketInputMetadataFilePrefix",
                "S3AssetPipelineBucketInputConfigurationFilePrefix",
                "S3AssetPipelineBucketOutputFilesPrefix",
                "S3AssetPipelineBucketOutputMetadataPrefix",
                "S3AssetPipelineBucketOutputPreviewPrefix",
                "S3AssetPipelineBucketOutputResultsPrefix",
                "S3AssetAuxPipelineBucket",
                "S3AssetAuxPipelineBucketPrefixTemp",
                "S3AssetAuxPipelineBucketPrefixPreview",
            )
        },
        # wfx's own
        "stepIndex": 0,
        "executionType": "lambda",
        "inputFileArity": "many",
        "inputS3AssetFilePath": "",
    }
    selection = "/" + file_key.lstrip("/")
    return {
        "WorkflowExecutionsStorageTableV2": [main],
        # the run's one selection, as VAMS writes it: its key "/"-led
        "WorkflowExecutionInputsStorageTable": [
            {
                "workflowExecutionId": execution_id,
                "databaseId:assetId:inputAssetFileKey": f"{database_id}:{asset_id}:{selection}",
                "databaseId:assetId": f"{database_id}:{asset_id}",
                "executionStartDate": start_iso,
                "workflowDatabaseId:workflowId": workflow_key,
                "workflowDatabaseId": workflow_key.split(":")[0],
                "workflowId": workflow_key.split(":")[1],
                "databaseId": database_id,
                "assetId": asset_id,
                "inputAssetFileKey": selection,
                "s3Bucket": "",
                "assetRootS3Key": "",
                "versionId": "",
            }
        ],
        "PipelineExecutionsStorageTable": [step],
        # the key led by "/", as VAMS 2.6's upgrade writes it (normalize_file_key)
        "PipelineExecutionInputFilesStorageTable": [
            {
                "pipelineExecutionId": pipeline_id,
                "databaseId:assetId:inputAssetFileKey": f"{database_id}:{asset_id}:{slash_key}",
                "databaseId:assetId": f"{database_id}:{asset_id}",
                "workflowExecutionId": execution_id,
                "databaseId": database_id,
                "assetId": asset_id,
                "inputAssetFileKey": slash_key,
            }
        ],
        "WorkflowExecutionConfigurationStorageTable": [
            {
                "workflowExecutionId": execution_id,
                "recordType": "configuration",
                # VAMS's rows miss it; the by-output-asset list sorts on it
                "executionStartDate": start_iso,
                "inputMetadata": "",
                "inputMetadataTruncated": False,
                "specifiedPipelinesSnapshot": [],
                "specifiedPipelinesSnapshotTruncated": False,
                "outputLocationType": "asset",
                # that release wrote a run's output back to its input asset
                "outputDatabaseId": database_id,
                "outputAssetId": asset_id,
                "outputFileBaseExecutionPathExtension": "/",
                "inputMetadataDatabaseId": "",
                "inputMetadataFileS3Key": "",
                "metadataSourceAssets": [],
                "metadataSourceAssetsTruncated": False,
                "metadataSourceDatabases": [],
                "metadataSourceDatabasesTruncated": False,
                "workflowDatabaseId:workflowId": workflow_key,
                "workflowVersion": 0,
                "inputSelections": [],
                "outputDatabaseId:outputAssetId": f"{database_id}:{asset_id}",
            }
        ],
        "PipelineExecutionInputConfigurationStorageTable": [
            {
                "pipelineExecutionId": pipeline_id,
                "recordType": "configuration",
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
                    "inputFileArity": "many",
                    "metadataInputs": {
                        "assetMetadata": False,
                        "fileMetadata": False,
                        "fileAttributes": False,
                        "databaseMetadata": False,
                    },
                },
                "effectiveSystemConfigTruncated": False,
                "templateOverrides": {},
                "templateOverridesTruncated": False,
                "workflowExecutionId": execution_id,
                "executionType": "lambda",
                "inputFileArity": "many",
                "metadataInputs": [],
                "inputFiles": [],
            }
        ],
    }


def merged(*expectations: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    tables: dict[str, list[dict[str, Any]]] = {}
    for expectation in expectations:
        for table, items in expectation.items():
            tables.setdefault(table, []).extend(items)
    return tables
