"""A run as VAMS 2.6's own launch, tracking and completion write it, item for item, in every table
it writes (shared/notes/vams-items.md; VAMS's builders read for the facts, none of their code):
32-hex GUIDs, `YYYY-MM-DDTHH:MM:SSZ` dates, `""`/`false`/`[]` for what has no value, and none
of wfx's own attributes. Three Lambda steps chained; inputs a folder selection and one file of
asset `vamsdb/asset-a`; outputs into `vamsdb/asset-out`; launched in group `nightly`."""

from __future__ import annotations

from typing import Any

from adapters.tables import ResourceKeys

EXECUTION_ID = "5a1d8e0c3b7f4a2e9c6d0b1f2e3a4c5d"
STEPS = (
    "7b2e9f1d4c8a4b3f8d7e1c2a3b4c5d6e",
    "8c3f0a2e5d9b4c4a9e8f2d3b4c5d6e7f",
    "9d4a1b3f6e0c4d5b0f9a3e4c5d6e7f80",
)
PIPELINES = ("mesh-scan", "mesh-convert", "mesh-report")
WORKFLOW = ("vamsdb", "wf-vams")
STARTED = "2026-11-30T10:00:00Z"
STEP_DATES = (
    ("2026-11-30T10:00:01Z", "2026-11-30T10:01:00Z"),
    ("2026-11-30T10:01:01Z", "2026-11-30T10:03:00Z"),
    ("2026-11-30T10:03:01Z", "2026-11-30T10:05:00Z"),
)
STOPPED = "2026-11-30T10:05:00Z"
ACCOUNT = "arn:aws:states:us-east-1:111122223333"
STATE_MACHINE = f"{ACCOUNT}:stateMachine:vams-wf-vams"
EXECUTION_ARN = f"{ACCOUNT}:execution:vams-wf-vams:{EXECUTION_ID}"
LOG_GROUP = "arn:aws:logs:us-east-1:111122223333:log-group:/aws/vendedlogs/vams/wf-vams:*"
BUCKET = "vams-assets"
INPUT_ASSET = ("vamsdb", "asset-a")
OUTPUT_ASSET = ("vamsdb", "asset-out")
FILE_VERSION = "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY"


def _main(status: str, stopped: bool) -> dict[str, Any]:
    return {
        "workflowExecutionId": EXECUTION_ID,
        "workflowDatabaseId:workflowId": ":".join(WORKFLOW),
        "workflowId": WORKFLOW[1],
        "workflowDatabaseId": WORKFLOW[0],
        "workflow_arn": STATE_MACHINE,
        "workflow_execution_arn": EXECUTION_ARN,
        "allListPartition": "execution",
        "executionStartDate": STARTED,
        "executionStopDate": STOPPED if stopped else "",
        "executionStatus": status,
        "triggeredByUserId": "alice",
        "triggerType": "Manual",
        "executionLogGroupArn": LOG_GROUP,
        "lastSfnSyncCheckDate": "",
        "executionError": "",
        "executionLog": "run log" if stopped else "",
        "executionGroupId": "nightly",
    }


def _prefixes(index: int) -> dict[str, str]:
    base = f"pipelines/{PIPELINES[0]}/job-1/output/{EXECUTION_ID}/"
    return {
        "S3AssetPipelineBucket": BUCKET,
        "S3AssetPipelineBucketInputMetadataFilePrefix": (
            f"pipelines/workflowExecutionInputs/{EXECUTION_ID}/"
        ),
        "S3AssetPipelineBucketInputConfigurationFilePrefix": (
            f"pipelines/workflowExecutionInputs/{EXECUTION_ID}/pipeline{index}/"
        ),
        "S3AssetPipelineBucketOutputFilesPrefix": base + "files/",
        "S3AssetPipelineBucketOutputMetadataPrefix": base + "metadata/",
        "S3AssetPipelineBucketOutputPreviewPrefix": base + "previews/",
        "S3AssetPipelineBucketOutputResultsPrefix": base + "results/",
        "S3AssetAuxPipelineBucket": "vams-aux",
        "S3AssetAuxPipelineBucketPrefixTemp": f"pipelines/{PIPELINES[index]}/{EXECUTION_ID}/",
        "S3AssetAuxPipelineBucketPrefixPreview": "vamsdb/asset-a/preview",
    }


def _step(index: int, status: str) -> dict[str, Any]:
    started, stopped = STEP_DATES[index]
    item: dict[str, Any] = {
        "pipelineExecutionId": STEPS[index],
        "workflowExecutionId": EXECUTION_ID,
        "pipelineId": PIPELINES[index],
        "pipelineDatabaseId": "vamsdb",
        "pipelineDatabaseId:pipelineId": f"vamsdb:{PIPELINES[index]}",
        "endStatePipeline": "true" if index == len(STEPS) - 1 else "false",
        **_prefixes(index),
        "executionStartDate": "" if status == "NEW" else started,
        "executionStopDate": stopped if status in {"SUCCEEDED", "FAILED", "ABORTED"} else "",
        "executionStatus": status,
        "pipelineExecutionType": "Lambda",
        "waitForCallback": "Enabled",
        "pipelineResourceArn": (
            f"arn:aws:lambda:us-east-1:111122223333:function:vams-{PIPELINES[index]}"
        ),
        "vendedRoleArn": "",
        "s3ReadOnlyScopes": [],
        "s3ReadWriteScopes": [],
        "credentialVendingState": "notVended",
        "orchestrationBusEventPrefix": (f"vams.execution.{EXECUTION_ID}.pipeline.{STEPS[index]}"),
        "registeredSubExecutions": [],
        "registeredLogs": [],
    }
    if index:
        item["from_pipeline_execution_id"] = STEPS[index - 1]
    return item


def _input(file_key: str, version: str) -> dict[str, Any]:
    database, asset = INPUT_ASSET
    return {
        "workflowExecutionId": EXECUTION_ID,
        "databaseId:assetId:inputAssetFileKey": f"{database}:{asset}:{file_key}",
        "databaseId:assetId": f"{database}:{asset}",
        "assetId": asset,
        "databaseId": database,
        "inputAssetFileKey": file_key,
        "s3Bucket": BUCKET,
        "assetRootS3Key": "asset-a/",
        "versionId": version,
        "executionStartDate": STARTED,
        "workflowId": WORKFLOW[1],
        "workflowDatabaseId": WORKFLOW[0],
    }


def _configuration() -> dict[str, Any]:
    return {
        "workflowExecutionId": EXECUTION_ID,
        "recordType": "configuration",
        "inputMetadata": "",
        "inputMetadataTruncated": False,
        # the workflow's pipeline references as launched (VAMS's build_specified_pipeline_ref)
        "specifiedPipelinesSnapshot": [
            {
                "pipelineDatabaseId": "vamsdb",
                "pipelineId": p,
                "pipelineDatabaseId:pipelineId": f"vamsdb:{p}",
                "jobName": f"job-{index + 1}",
                "defaultTemplateId": "",
            }
            for index, p in enumerate(PIPELINES)
        ],
        "specifiedPipelinesSnapshotTruncated": False,
        "outputLocationType": "asset",
        "outputAssetId": OUTPUT_ASSET[1],
        "outputDatabaseId": OUTPUT_ASSET[0],
        "outputFileBaseExecutionPathExtension": "/",
        "executionStartDate": STARTED,
        "inputMetadataDatabaseId": "",
        "inputMetadataFileS3Key": f"pipelines/workflowExecutionInputs/{EXECUTION_ID}/metadata.json",
        "metadataSourceAssets": [],
        "metadataSourceAssetsTruncated": False,
        "metadataSourceDatabases": ["vamsdb"],
        "metadataSourceDatabasesTruncated": False,
        "outputDatabaseId:outputAssetId": ":".join(OUTPUT_ASSET),
    }


def _step_configuration(index: int) -> dict[str, Any]:
    return {
        "pipelineExecutionId": STEPS[index],
        "recordType": "configuration",
        "inputConfiguration": '{"scale": 1}',
        "inputConfigurationTruncated": False,
        "inputConfigurationFileS3Key": (
            f"pipelines/workflowExecutionInputs/{EXECUTION_ID}/pipeline{index}/config.json"
        ),
        "templateId": "",
        "templateSchemaVersion": "",
        "tagSchemaVersion": "",
        "templateTags": [],
        "templateTagsTruncated": False,
        "customTemplateOverrideUsed": False,
        "customTemplateOverride": "",
        "customTemplateOverrideTruncated": False,
        "configFormat": "json",
        "effectiveSystemConfig": {
            "inputFileArity": "many" if index == 0 else "none",
            "metadataInputs": {
                "assetMetadata": True,
                "fileMetadata": True,
                "fileAttributes": False,
                "databaseMetadata": index == 0,
            },
        },
        "effectiveSystemConfigTruncated": False,
        "templateOverrides": {},
        "templateOverridesTruncated": False,
    }


def _input_metadata(scope: str, asset: str, path: str, metadata: dict[str, Any]) -> dict[str, Any]:
    return {
        "pipelineExecutionId": STEPS[0],
        "databaseId:assetId:filePath": f"vamsdb:{asset}:{path}",
        "assetId": asset,
        "databaseId": "vamsdb",
        "filePath": path,
        "scope": scope,
        "metadata": metadata,
        "metadataTruncated": False,
        "attributes": {},
        "attributesTruncated": False,
        "sourceInputMetadataFileS3Key": (
            f"pipelines/workflowExecutionInputs/{EXECUTION_ID}/metadata.json"
        ),
    }


def _output_file(kind: str, path: str, size: int, content_type: str) -> dict[str, Any]:
    prefix = "files" if kind == "file" else "previews"
    return {
        "pipelineExecutionId": STEPS[2],
        "fileType:relativeFilePath": f"{kind}:{path}",
        "fileType": kind,
        "relativeFilePath": path,
        "s3Bucket": BUCKET,
        "s3Key": f"pipelines/{PIPELINES[0]}/job-1/output/{EXECUTION_ID}/{prefix}/{path}",
        "fileSize": size,
        "contentType": content_type,
        "s3VersionId": f"v-{path}",
    }


def _output_metadata(target: str, key: str, value: str) -> dict[str, Any]:
    # the source is the metadata file's whole key: `asset.metadata.json` for the asset itself
    source = "asset" if target == "/" else target.lstrip("/")
    return {
        "pipelineExecutionId": STEPS[2],
        "targetFilePath:metadataKey": f"{target}:{key}",
        "targetFilePath": target,
        "metadataKey": key,
        "metadataValue": value,
        "sourceMetadataFileRelativePath": (
            f"pipelines/{PIPELINES[0]}/job-1/output/{EXECUTION_ID}/metadata/{source}.metadata.json"
        ),
    }


def vams_run(
    status: str = "SUCCEEDED", step_statuses: tuple[str, ...] = ("SUCCEEDED",) * 3
) -> dict[ResourceKeys, list[dict[str, Any]]]:
    """Every item VAMS writes for the run, by table; an open run (`RUNNING`) has no outputs."""
    stopped = status != "RUNNING"
    items: dict[ResourceKeys, list[dict[str, Any]]] = {
        ResourceKeys.WORKFLOW_EXECUTIONS: [_main(status, stopped)],
        ResourceKeys.PIPELINE_EXECUTIONS: [_step(i, s) for i, s in enumerate(step_statuses)],
        ResourceKeys.WORKFLOW_EXECUTION_INPUTS: [
            _input("/asset-a/meshes/", ""),  # a folder selection: one row, no single version
            _input("/asset-a/bunny.obj", FILE_VERSION),
        ],
        ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION: [_configuration()],
        ResourceKeys.PIPELINE_INPUT_CONFIGURATION: [_step_configuration(i) for i in range(3)],
        ResourceKeys.PIPELINE_INPUT_METADATA: [
            _input_metadata("database", "", "/", {"region": "emea"}),
            _input_metadata("asset", "asset-a", "/", {"owner": "alice"}),
            _input_metadata("asset", "asset-a", "/bunny.obj", {"scale": 2, "tags": ["scan"]}),
        ],
    }
    if stopped:
        items[ResourceKeys.PIPELINE_OUTPUT_FILES] = [
            _output_file("file", "bunny.glb", 52311, "model/gltf-binary"),
            _output_file("preview", "bunny.png", 9120, "image/png"),
        ]
        items[ResourceKeys.PIPELINE_OUTPUT_METADATA] = [
            _output_metadata("/", "polycount", "69451"),
            _output_metadata("/bunny.glb", "format", "glb"),
        ]
        items[ResourceKeys.PIPELINE_OUTPUT_RESULTS] = [
            {
                "pipelineExecutionId": STEPS[2],
                "relativeFilePath": "/report.txt",  # relative to the results folder, "/"-led
                "resultsContent": "69451 faces",
                "resultsContentTruncated": False,
                "s3Key": f"pipelines/{PIPELINES[0]}/job-1/output/{EXECUTION_ID}/results/report.txt",
            }
        ]
        items[ResourceKeys.PIPELINE_LOGS] = [
            {
                "pipelineExecutionId": STEPS[2],
                "logType": "summary",
                "resultLog": "converted 1 mesh",
                "resultLogTruncated": False,
                "errorLog": "",
                "errorLogTruncated": False,
                "logGroupArn": LOG_GROUP,
                "logStreamName": f"states/{EXECUTION_ID}",
            }
        ]
    return items
