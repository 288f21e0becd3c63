"""The items wfx writes, pinned table by table against VAMS 2.6's own record builders.

VAMS_SHAPES below is declared from VAMS's facts (shared/notes/vams-items.md; VAMS's
`backend/backend/common/workflows/executionRecords.py`, whose builders write every attribute of
these tables, `""` / `false` / `[]` when it has no value): each attribute, its DynamoDB type and,
where VAMS's value has one, its format. One real run (the mesh example: three steps, an input
asset, an output asset, an execution group) goes through the local runner on each store, and
every item of every pinned table, read raw (SQLite's stored JSON, DynamoDB's wire types), must
carry each pinned attribute with its type and format.

PENDING holds VAMS's attributes that wfx does not write yet (none today). They are declared, not
asserted; move a table (or an attribute) from PENDING into VAMS_SHAPES when records.py writes it
as VAMS does. MIGRATION_SHAPES pins the one table only the V1 migration writes.
"""

from __future__ import annotations

import copy
import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import wfx_examples
import yaml
from botocore.exceptions import ClientError

from adapters.dynamodb.codec import from_wire
from adapters.migrated_rows import supporting_rows
from adapters.sqlite.schema import build_schema
from adapters.tables import TABLES, ResourceKeys, TableNames
from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.migration import migrated_run, parse_v1_item
from entrypoints.container import Container
from tests.v1_items import MIGRATED_AT, ROWS, v1_item

MESH = Path(wfx_examples.__file__).parent / "mesh"
GROUP = "nightly-batch"

# the mesh example's preview step is a command: the run spawns a process
pytestmark = pytest.mark.integration

# -- formats: a predicate on the value (and the item, for composite keys) and what it means -----


@dataclass(frozen=True)
class Format:
    meaning: str
    holds: Callable[[Any, dict[str, Any]], bool]


def _matching(pattern: str, meaning: str) -> Format:
    compiled = re.compile(pattern)
    return Format(meaning, lambda value, _: compiled.fullmatch(value) is not None)


GUID32 = _matching(r"[0-9a-f]{32}", "32 lowercase hex (VAMS's new_guid)")
ISO_S = _matching(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "YYYY-MM-DDTHH:MM:SSZ")
ISO_S_OR_EMPTY = _matching(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)?", 'YYYY-MM-DDTHH:MM:SSZ or ""')
NOT_EMPTY = Format("not empty", lambda value, _: value != "")
ARN_OR_EMPTY = _matching(r"(arn:.+)?", 'an ARN or ""')


def one_of(*values: str) -> Format:
    return Format(f"one of {values}", lambda value, _: value in values)


def joined(*parts: str) -> Format:
    """A composite key: the named attributes of the same item, colon-joined."""
    return Format(
        f"{':'.join(parts)} of the same item",
        lambda value, item: value == ":".join(str(item.get(part)) for part in parts),
    )


def _own_bus_source(value: str, item: dict[str, Any]) -> bool:
    found = re.fullmatch(
        r"[A-Za-z0-9_.-]+\.execution\.([0-9a-f]{32})\.pipeline\.([0-9a-f]{32})", value
    )
    return found is not None and found.groups() == (
        item.get("workflowExecutionId"),
        item.get("pipelineExecutionId"),
    )


# VAMS's orchestrationBusEventPrefix: the registration source of the row's own run and step
BUS_SOURCE = Format(
    "<prefix>.execution.<guid32>.pipeline.<guid32> naming the item's own ids", _own_bus_source
)
TRUE_FALSE = one_of("true", "false")
_FILE_KEY = _matching(r"/[^/].*|/", 'a file key with one leading "/" (normalize_file_key)')
# VAMS writes NEW at launch, then Step Functions' statuses
RUN_STATUSES = one_of(
    "NEW", "RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED", "PENDING_REDRIVE"
)
STEP_STATUSES = one_of("NEW", "RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED")


@dataclass(frozen=True)
class Attr:
    """One attribute VAMS writes: its DynamoDB type, its format, and whether it is a sparse index
    key (absent, never "", when it has no value)."""

    type: str
    format: Format | None = None
    sparse: bool = False


S, N, BOOL, L, M = "S", "N", "BOOL", "L", "M"

# -- pinned: what VAMS writes and wfx writes the same way today ----------------------------------

VAMS_SHAPES: dict[ResourceKeys, dict[str, Attr]] = {
    ResourceKeys.WORKFLOW_EXECUTIONS: {
        "workflowExecutionId": Attr(S, GUID32),
        "workflowDatabaseId:workflowId": Attr(S, joined("workflowDatabaseId", "workflowId")),
        "workflowId": Attr(S, NOT_EMPTY),
        "workflowDatabaseId": Attr(S, NOT_EMPTY),
        "workflow_arn": Attr(S, ARN_OR_EMPTY),
        "workflow_execution_arn": Attr(S, ARN_OR_EMPTY),
        "allListPartition": Attr(S, one_of("execution")),
        "executionStartDate": Attr(S, ISO_S),
        "executionStopDate": Attr(S, ISO_S_OR_EMPTY),
        "executionStatus": Attr(S, RUN_STATUSES),
        "triggeredByUserId": Attr(S, NOT_EMPTY),
        "triggerType": Attr(S, one_of("Manual", "File-Upload")),
        "executionLogGroupArn": Attr(S, ARN_OR_EMPTY),
        "lastSfnSyncCheckDate": Attr(S, ISO_S_OR_EMPTY),
        "executionError": Attr(S),
        "executionLog": Attr(S),
        "executionGroupId": Attr(S, NOT_EMPTY, sparse=True),
    },
    ResourceKeys.PIPELINE_EXECUTIONS: {
        "pipelineExecutionId": Attr(S, GUID32),
        "workflowExecutionId": Attr(S, GUID32),
        "pipelineId": Attr(S, NOT_EMPTY),
        "pipelineDatabaseId": Attr(S, NOT_EMPTY),
        "pipelineDatabaseId:pipelineId": Attr(S, joined("pipelineDatabaseId", "pipelineId")),
        "endStatePipeline": Attr(S, TRUE_FALSE),
        "from_pipeline_execution_id": Attr(S, GUID32, sparse=True),
        "S3AssetPipelineBucket": Attr(S),
        "S3AssetPipelineBucketInputMetadataFilePrefix": Attr(S),
        "S3AssetPipelineBucketInputConfigurationFilePrefix": Attr(S),
        "S3AssetPipelineBucketOutputFilesPrefix": Attr(S),
        "S3AssetPipelineBucketOutputMetadataPrefix": Attr(S),
        "S3AssetPipelineBucketOutputPreviewPrefix": Attr(S),
        "S3AssetPipelineBucketOutputResultsPrefix": Attr(S),
        "S3AssetAuxPipelineBucket": Attr(S),
        "S3AssetAuxPipelineBucketPrefixTemp": Attr(S),
        "S3AssetAuxPipelineBucketPrefixPreview": Attr(S),
        "executionStartDate": Attr(S, ISO_S_OR_EMPTY),
        "executionStopDate": Attr(S, ISO_S_OR_EMPTY),
        "executionStatus": Attr(S, STEP_STATUSES),
        "pipelineExecutionType": Attr(S, NOT_EMPTY),
        "waitForCallback": Attr(S, one_of("Enabled", "Disabled")),
        "pipelineResourceArn": Attr(S),
        "vendedRoleArn": Attr(S, ARN_OR_EMPTY),
        "s3ReadOnlyScopes": Attr(L),
        "s3ReadWriteScopes": Attr(L),
        "credentialVendingState": Attr(S, NOT_EMPTY),
        "orchestrationBusEventPrefix": Attr(S, BUS_SOURCE),
        "registeredSubExecutions": Attr(L),
        "registeredLogs": Attr(L),
    },
    # one row per selection (test_the_inputs_table_holds_one_row_per_selection)
    ResourceKeys.WORKFLOW_EXECUTION_INPUTS: {
        "workflowExecutionId": Attr(S, GUID32),
        "databaseId:assetId:inputAssetFileKey": Attr(
            S, joined("databaseId", "assetId", "inputAssetFileKey")
        ),
        "databaseId:assetId": Attr(S, joined("databaseId", "assetId")),
        "databaseId": Attr(S, NOT_EMPTY),
        "assetId": Attr(S, NOT_EMPTY),
        "inputAssetFileKey": Attr(S, _FILE_KEY),  # the bucket key, asset root included
        "s3Bucket": Attr(S, NOT_EMPTY),
        "assetRootS3Key": Attr(S, NOT_EMPTY),
        "versionId": Attr(S),  # "" for a folder or whole asset
        "executionStartDate": Attr(S, ISO_S),
        "workflowId": Attr(S, NOT_EMPTY),
        "workflowDatabaseId": Attr(S, NOT_EMPTY),
    },
    ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION: {
        "workflowExecutionId": Attr(S, GUID32),
        "recordType": Attr(S, one_of("configuration")),
        "executionStartDate": Attr(S, ISO_S),
        # VAMS writes both as "" for a results-only run, wfx leaves them out: this run has an output
        "outputDatabaseId": Attr(S, NOT_EMPTY),
        "outputAssetId": Attr(S, NOT_EMPTY),
        "outputDatabaseId:outputAssetId": Attr(
            S, joined("outputDatabaseId", "outputAssetId"), sparse=True
        ),
        "inputMetadata": Attr(S),
        "inputMetadataTruncated": Attr(BOOL),
        "specifiedPipelinesSnapshot": Attr(L),
        "specifiedPipelinesSnapshotTruncated": Attr(BOOL),
        "outputLocationType": Attr(S, NOT_EMPTY),
        "outputFileBaseExecutionPathExtension": Attr(S, _matching(r"/(.*/)?", "/ or /x/")),
        "inputMetadataDatabaseId": Attr(S),
        "inputMetadataFileS3Key": Attr(S),
        "metadataSourceAssets": Attr(L),
        "metadataSourceAssetsTruncated": Attr(BOOL),
        "metadataSourceDatabases": Attr(L),
        "metadataSourceDatabasesTruncated": Attr(BOOL),
    },
    ResourceKeys.PIPELINE_INPUT_CONFIGURATION: {
        "pipelineExecutionId": Attr(S, GUID32),
        "recordType": Attr(S, one_of("configuration")),
        "inputConfiguration": Attr(S),
        "inputConfigurationTruncated": Attr(BOOL),
        "inputConfigurationFileS3Key": Attr(S),
        "templateId": Attr(S),
        "templateSchemaVersion": Attr(S),
        "tagSchemaVersion": Attr(S),
        "templateTags": Attr(L),
        "templateTagsTruncated": Attr(BOOL),
        "customTemplateOverrideUsed": Attr(BOOL),
        "customTemplateOverride": Attr(S),
        "customTemplateOverrideTruncated": Attr(BOOL),
        "configFormat": Attr(S),
        "effectiveSystemConfig": Attr(M),
        "effectiveSystemConfigTruncated": Attr(BOOL),
        "templateOverrides": Attr(M),
        "templateOverridesTruncated": Attr(BOOL),
    },
    ResourceKeys.PIPELINE_OUTPUT_FILES: {
        "pipelineExecutionId": Attr(S, GUID32),
        "fileType:relativeFilePath": Attr(S, joined("fileType", "relativeFilePath")),
        # VAMS: file or preview; wfx also records the step's metadata files (a difference, docs)
        "fileType": Attr(S, one_of("file", "preview", "metadata")),
        # relative to its kind's folder: a preview's to the previews, never led by "preview/"
        "relativeFilePath": Attr(S, _matching(r"(?!preview/|metadata/)[^/].*", "kind-relative")),
        "s3Bucket": Attr(S, NOT_EMPTY),
        "s3Key": Attr(S, NOT_EMPTY),
        "fileSize": Attr(N),
        "contentType": Attr(S),
        "s3VersionId": Attr(S),
    },
    ResourceKeys.PIPELINE_INPUT_METADATA: {
        "pipelineExecutionId": Attr(S, GUID32),
        "databaseId:assetId:filePath": Attr(S, joined("databaseId", "assetId", "filePath")),
        "assetId": Attr(S),  # "" on a database-scope row
        "databaseId": Attr(S, NOT_EMPTY),
        "filePath": Attr(S, _FILE_KEY),
        "scope": Attr(S, one_of("asset", "database")),
        "metadata": Attr(M),
        "metadataTruncated": Attr(BOOL),
        "attributes": Attr(M),
        "attributesTruncated": Attr(BOOL),
        "sourceInputMetadataFileS3Key": Attr(S),
    },
    ResourceKeys.PIPELINE_OUTPUT_METADATA: {
        "pipelineExecutionId": Attr(S, GUID32),
        "targetFilePath:metadataKey": Attr(S, joined("targetFilePath", "metadataKey")),
        "targetFilePath": Attr(S, _FILE_KEY),  # "/" is the asset itself
        "metadataKey": Attr(S, NOT_EMPTY),
        "metadataValue": Attr(S),  # VAMS keeps a value's own type; text in the common case
        "sourceMetadataFileRelativePath": Attr(S),
    },
    ResourceKeys.PIPELINE_OUTPUT_RESULTS: {
        "pipelineExecutionId": Attr(S, GUID32),
        "relativeFilePath": Attr(S, _FILE_KEY),
        "resultsContent": Attr(S),
        "resultsContentTruncated": Attr(BOOL),
        "s3Key": Attr(S),
    },
    ResourceKeys.PIPELINE_LOGS: {
        "pipelineExecutionId": Attr(S, GUID32),
        "logType": Attr(S, one_of("summary")),
        "resultLog": Attr(S),
        "resultLogTruncated": Attr(BOOL),
        "errorLog": Attr(S),
        "errorLogTruncated": Attr(BOOL),
        "logGroupArn": Attr(S),
        "logStreamName": Attr(S),
    },
}

# -- pending: VAMS writes these, wfx does not yet (or not in VAMS's form); not asserted ------------

PENDING: dict[ResourceKeys, dict[str, Attr]] = {}  # every table VAMS writes is pinned

# -- the V1 migration's rows: the one table no run writes (seed 000) ------------------------------

MIGRATION_SHAPES: dict[ResourceKeys, dict[str, Attr]] = {
    ResourceKeys.PIPELINE_INPUT_FILES: {
        # the migration keeps the V1 run's id, and derives its one step's (the same every run)
        "pipelineExecutionId": Attr(S, NOT_EMPTY),
        "databaseId:assetId:inputAssetFileKey": Attr(
            S, joined("databaseId", "assetId", "inputAssetFileKey")
        ),
        "databaseId:assetId": Attr(S, joined("databaseId", "assetId")),
        "assetId": Attr(S, NOT_EMPTY),
        "databaseId": Attr(S, NOT_EMPTY),
        "inputAssetFileKey": Attr(S, _FILE_KEY),
        "workflowExecutionId": Attr(S, NOT_EMPTY),
    },
}

SEED_TABLES = {spec.key for spec in TABLES if spec.from_seed} - {
    ResourceKeys.WORKFLOW_EXECUTIONS_V1  # the migration's read source: wfx never writes it
}


# -- reading every item raw: (DynamoDB type, plain value) per attribute --------------------------


def _json_type(value: Any) -> str:
    """The DynamoDB type a stored JSON value takes on the wire (the codec's own mapping)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int | float):
        return N
    if isinstance(value, str):
        return S
    if isinstance(value, list):
        return L
    if isinstance(value, dict):
        return M
    return "NULL"


RawItem = dict[str, tuple[str, Any]]


def _raw_items(container: Container) -> Iterator[tuple[ResourceKeys, RawItem]]:
    tables = TableNames()
    if container.config.store() == "dynamodb":
        client = container.dynamodb_client()
        for key in ResourceKeys:
            try:
                pages = list(
                    client.get_paginator("scan").paginate(TableName=tables.get_table_name(key))
                )
            except ClientError:
                continue  # a table this deployment does not create
            for page in pages:
                for wire in page["Items"]:
                    plain = from_wire(wire)
                    yield key, {name: (next(iter(wire[name])), plain[name]) for name in wire}
        return
    schema = build_schema(tables)
    with sqlite3.connect(Path(container.config.sqlite_path())) as connection:
        made = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        for key, table in schema.tables.items():
            if table.name in made:
                for (text,) in connection.execute(f'SELECT item FROM "{table.name}"'):
                    item = json.loads(text)
                    yield key, {name: (_json_type(value), value) for name, value in item.items()}


def _mismatches(table: ResourceKeys, raw: RawItem, shape: dict[str, Attr]) -> list[str]:
    plain = {name: value for name, (_, value) in raw.items()}
    found = []
    for name, attr in shape.items():
        if name not in raw:
            if not attr.sparse:
                found.append(f"{table.name}.{name}: missing")
            continue
        kind, value = raw[name]
        if kind != attr.type:
            found.append(f"{table.name}.{name}: type {kind}, VAMS writes {attr.type}")
        elif attr.sparse and value == "":
            found.append(f"{table.name}.{name}: an empty sparse key (VAMS leaves it out)")
        elif attr.format is not None and not attr.format.holds(value, plain):
            found.append(f"{table.name}.{name}: {value!r} is not {attr.format.meaning}")
    return found


# -- the run ---------------------------------------------------------------------------------------


RunItems = dict[ResourceKeys, list[RawItem]]
# The run's items per store, kept by the first test on it: the run (a spawned step among them)
# is the same for every test, and each test reads its own copy.
_RUN_ITEMS: dict[str, RunItems] = {}


@pytest.fixture
def run_items(inline_container: Container) -> RunItems:
    """Every item one finished mesh-report run wrote, per table, on the container's store (its
    first step reading the input file's metadata)."""
    store = str(inline_container.config.store())
    if store not in _RUN_ITEMS:
        _RUN_ITEMS[store] = _mesh_run_items(inline_container)
    return copy.deepcopy(_RUN_ITEMS[store])


def _mesh_run_items(container: Container) -> RunItems:
    raw = yaml.safe_load((MESH / "workflow.yaml").read_text())
    raw["steps"][0]["metadataInputs"] = ["scanner"]  # the first step reads the file's metadata
    document = parse_workflow_document(raw)
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    container.import_asset_files().execute(
        ImportAssetFilesCommand(
            database_id="demo",
            asset_id="meshes",
            files=(ImportedFile(file_key="icosphere.obj", path=MESH / "assets" / "icosphere.obj"),),
            metadata=(("scanner", "lidar"), ("owner", "alice")),
        )
    )
    command = LaunchExecutionCommand(
        workflow_database_id="demo",
        workflow_id="mesh-report",
        inputs=("demo/meshes",),
        output="demo/reports",
        execution_group_id=GROUP,
        user_id="alice",
    )
    run = container.launch_execution().execute(command).execution
    stored = container.execution_store().get_execution(run.workflow_execution_id)
    assert stored.status.value == "SUCCEEDED", stored.execution_error
    items: RunItems = {}
    for key, item in _raw_items(container):
        items.setdefault(key, []).append(item)
    return items


def test_every_item_of_the_pinned_tables_has_vams_attributes_types_and_formats(
    run_items: RunItems,
) -> None:
    mismatches = []
    for table, shape in VAMS_SHAPES.items():
        assert run_items.get(table), f"the run wrote no {table.name} item"
        for item in run_items[table]:
            mismatches.extend(_mismatches(table, item, shape))
    assert mismatches == []


def test_the_run_writes_each_sparse_key_it_has_a_value_for(
    run_items: RunItems,
) -> None:
    """A grouped run with an output asset and three chained steps fills every sparse key: the
    first step alone has no from_pipeline_execution_id."""
    (main,) = run_items[ResourceKeys.WORKFLOW_EXECUTIONS]
    assert main["executionGroupId"] == (S, GROUP)
    assert main["executionLogGroupArn"] == (S, "")  # a local run logs to no log group
    (configuration,) = run_items[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION]
    assert configuration["outputDatabaseId:outputAssetId"] == (S, "demo:reports")
    # the steps as launched, each as VAMS references a workflow's pipeline
    snapshot = configuration["specifiedPipelinesSnapshot"][1]
    assert [entry["pipelineDatabaseId:pipelineId"] for entry in snapshot] == [
        "demo:mesh-statistics",
        "demo:mesh-normalize",
        "demo:mesh-preview",
    ]
    assert all(
        set(entry)
        == {"pipelineDatabaseId", "pipelineId", "pipelineDatabaseId:pipelineId"}
        | {"jobName", "defaultTemplateId"}
        for entry in snapshot
    )
    steps = run_items[ResourceKeys.PIPELINE_EXECUTIONS]
    chained = [step for step in steps if "from_pipeline_execution_id" in step]
    assert len(steps) == 3 and len(chained) == 2


def test_the_declared_lists_cover_every_seed_table_and_agree_where_they_overlap() -> None:
    """Each of the eleven tables has a declared list; an attribute both pinned and pending (a
    format wfx does not follow yet) keeps one type."""
    assert set(VAMS_SHAPES) | set(PENDING) | set(MIGRATION_SHAPES) == SEED_TABLES
    for table, pending in PENDING.items():
        for name, attr in pending.items():
            pinned = VAMS_SHAPES.get(table, {}).get(name)
            assert pinned is None or pinned.type == attr.type, f"{table.name}.{name}"


def test_the_inputs_table_holds_one_row_per_selection(
    run_items: RunItems,
) -> None:
    """The run selected one whole asset: VAMS's table holds one row for it, keyed by the asset's
    root with no version; each file it resolved to is in wfx's own table, at its version."""
    (selection,) = run_items[ResourceKeys.WORKFLOW_EXECUTION_INPUTS]
    assert selection["databaseId:assetId:inputAssetFileKey"] == (
        S,
        "demo:meshes:/assets/demo/meshes/",
    )
    assert selection["versionId"] == (S, "")
    assert selection["workflowDatabaseId:workflowId"] == (S, "demo:mesh-report")  # wfx's too
    (resolved,) = run_items[ResourceKeys.RESOLVED_INPUT_FILES]
    assert resolved["inputAssetFileKey"] == (S, "icosphere.obj")
    assert resolved["selectionKey"] == (S, "/assets/demo/meshes/")
    assert resolved["versionId"][1] != ""


@pytest.mark.parametrize("file_key", ["scans/a.obj", "/scans/a.obj", None])
def test_the_migrations_input_file_rows_have_vams_attributes_types_and_formats(
    file_key: str | None,
) -> None:
    """A V1 row naming a file (with or without its "/") or none (the whole asset, "/")."""
    execution_id, database_id, asset_id, workflow, status, start, stop, _, machine = ROWS[0]
    item = v1_item(
        execution_id, database_id, asset_id, workflow, status, start, stop, file_key, machine
    )
    run = migrated_run(parse_v1_item(item), migrated_at=MIGRATED_AT)
    mismatches = []
    for table, row in supporting_rows(run):
        if table in MIGRATION_SHAPES:
            raw = {name: (_json_type(value), value) for name, value in row.items()}
            mismatches.extend(_mismatches(table, raw, MIGRATION_SHAPES[table]))
            assert row["inputAssetFileKey"] == ("/scans/a.obj" if file_key else "/")
    assert mismatches == []
