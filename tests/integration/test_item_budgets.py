"""Items over DynamoDB's 400 KB limit, on both stores: cut on the row, whole in the object store.

A 1 MB executionLog, a 600 KB configuration and a launch over 20,000 input files: every item
stays under the limit (by our count, and DynamoDB on moto, which refuses items over ~405,000
bytes, accepts them), each cut field is flagged, its body is in the object store, and every
reader gets the complete value back.

moto serializes each attribute of each answer slowly (~290 s to write and read 20,000 input rows
back): on DynamoDB the launches write the rows of only their first MOTO_ROWS files unless
WFX_FULL_SIZE=1. The items at stake, the configuration bodies listing every file, are whole on
both stores; an input row is a few hundred bytes whatever the run's size.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from adapters.dynamodb.codec import from_wire
from adapters.item_budget import ITEM_BUDGET, ITEM_SIZE_LIMIT, item_size
from adapters.sqlite.schema import build_schema
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import RowCollection
from application.run_metadata_pages import StepRow
from application.use_cases.delete_execution import DeleteExecutionCommand
from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from application.use_cases.get_execution_logs import GetExecutionLogsQuery
from application.use_cases.get_execution_metadata import GetExecutionMetadataQuery
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.assets import AssetFile, asset_object_key
from domain.execution import (
    ExecutionConfiguration,
    ExecutionInput,
    LaunchRecords,
    PipelineExecution,
    StepInputConfiguration,
    StepInputMetadata,
    WorkflowExecution,
    execution_object_prefix,
)
from domain.run import RunChange, RunGuard
from domain.statuses import ExecutionStatus
from entrypoints.container import Container
from tests.contract.builders import MONDAY, an_execution, at, write_change, write_launch

RUN = "big-run"
STEP = "big-step"
FILES = 20_000
MOTO_ROWS = 1000


@pytest.fixture
def rows(container: Container) -> int | None:
    """How many input rows a launch writes (None: one per file)."""
    full = container.config.store() != "dynamodb" or os.environ.get("WFX_FULL_SIZE") == "1"
    return None if full else MOTO_ROWS


@pytest.fixture
def container(inline_container: Container) -> Container:
    return inline_container


def _step(execution_id: str, step_id: str) -> PipelineExecution:
    prefix = f"executions/{execution_id}/output/"
    return PipelineExecution(
        pipeline_execution_id=step_id,
        workflow_execution_id=execution_id,
        pipeline_database_id="db1",
        pipeline_id="p",
        step_index=0,
        execution_type="python",
        input_file_arity="many",
        end_state=True,
        input_path="",
        output_files_path=prefix,
        output_preview_path=f"{prefix}preview/",
        output_metadata_path=f"{prefix}metadata/",
        auxiliary_path=f"executions/{execution_id}/auxiliary/{step_id}/",
    )


def _launch(execution_id: str, files: int, rows: int | None = None) -> LaunchRecords:
    """What LaunchExecution writes for a run over `files` files of one asset, each selected
    (the input rows of only the first `rows` of them, if given)."""
    execution = an_execution(execution_id)
    # labels of 50 bytes, as a render farm names its frames
    keys = [f"renders/sequence-{n % 100:03d}/shot-frame-{n:06d}.exr" for n in range(files)]
    inputs = tuple(
        ExecutionInput(
            workflow_execution_id=execution_id,
            workflow_key=execution.workflow_key,
            database_id="db1",
            asset_id="big",
            input_asset_file_key=key,
            bucket="wfx-local",
            asset_root_key="assets/db1/big/",
            version_id=f"v-{n}",
            execution_start_date=MONDAY,
        )
        for n, key in enumerate(keys[:rows])
    )
    labels = tuple(f"db1/big/{key}" for key in keys)
    return LaunchRecords(
        execution=execution,
        inputs=inputs,
        configuration=ExecutionConfiguration(
            workflow_execution_id=execution_id,
            workflow_key=execution.workflow_key,
            workflow_version=1,
            execution_start_date=MONDAY,
            input_selections=labels,
        ),
        steps=(_step(execution_id, f"{execution_id}-step"),),
        step_configurations=(
            StepInputConfiguration(
                pipeline_execution_id=f"{execution_id}-step",
                workflow_execution_id=execution_id,
                execution_type="python",
                handler="pkg.module:handler",
                input_file_arity="many",
                metadata_inputs=("db1",),
                input_files=labels,
            ),
        ),
        step_metadata=(
            StepInputMetadata(
                pipeline_execution_id=f"{execution_id}-step",
                workflow_execution_id=execution_id,
                database_id="db1",
                asset_id="big",
                file_path="renders/sequence-000/shot-frame-000000.exr",
                # 500 KB of metadata on one file
                metadata=tuple((f"key-{n:05d}", "m" * 100) for n in range(5000)),
            ),
        ),
    )


def _all_items(container: Container) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every stored item of every seed table, as stored (nothing restored)."""
    tables = TableNames()
    if container.config.store() == "dynamodb":
        client = container.dynamodb_client()
        for key in ResourceKeys:
            paginator = client.get_paginator("scan")
            try:
                for page in paginator.paginate(TableName=tables.get_table_name(key)):
                    for item in page["Items"]:
                        yield key.name, from_wire(item)
            except ClientError:
                continue  # a table this deployment has not created
        return
    schema = build_schema(tables)
    with sqlite3.connect(Path(container.config.sqlite_path())) as connection:
        made = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
        for key, table in schema.tables.items():
            if table.name not in made:
                continue  # a table this store does not make (the earlier one)
            for (text,) in connection.execute(f"SELECT item FROM {table.name}"):
                yield key.name, json.loads(text)


def test_a_1_mb_log_a_600_kb_configuration_and_20000_files_fit_and_read_back_whole(
    container: Container, rows: int | None
) -> None:
    records = _launch(RUN, FILES, rows)
    store = container.execution_store()
    write_launch(store, records)  # DynamoDB refused this item before: ValidationException
    log = "".join(f"{n:07d} step output, nothing secret here\n" for n in range(25_000))  # 1 MB
    error = "StepFailedError: " + "the reason at length. " * 10_000  # 220 KB
    execution = store.get_execution(RUN)
    ended = execution.complete(ExecutionStatus.FAILED, at(5), log=log, error=error)
    assert write_change(store, RunChange(execution, ended, RunGuard())) is not None

    items = list(_all_items(container))
    assert len(items) > len(records.inputs)
    assert max(item_size(item) for _, item in items) <= ITEM_BUDGET
    flagged = {
        (table, name)
        for table, item in items
        for name, value in item.items()
        if name.endswith("Truncated") and value is True
    }
    assert flagged == {
        ("WORKFLOW_EXECUTIONS", "executionLogTruncated"),
        ("WORKFLOW_EXECUTIONS", "executionErrorTruncated"),
        ("WORKFLOW_EXECUTION_CONFIGURATION", "inputSelectionsTruncated"),
        ("PIPELINE_INPUT_CONFIGURATION", "inputFilesTruncated"),
        ("PIPELINE_INPUT_METADATA", "metadataTruncated"),
        # the run's terminal event carries its error too, cut as the main row's is
        ("EXECUTION_EVENTS", "errorTruncated"),
    }
    objects = container.object_store()
    stored_keys = {o.key for o in objects.list_latest(execution_object_prefix(RUN))}
    named = {
        value for _, item in items for name, value in item.items() if name.endswith("ObjectKey")
    }
    assert named and named <= stored_keys

    labels = records.configuration.input_selections
    assert item_size({"inputSelections": list(labels)}) > 600 * 1024
    details = container.get_execution_details().execute(
        GetExecutionDetailsQuery(workflow_execution_id=RUN)
    )
    assert details.configuration is not None
    assert details.configuration.input_selections == labels
    step_configuration = details.steps[0].configuration
    assert step_configuration is not None and step_configuration.input_files == labels
    assert details.execution.execution_error == error
    # the row keeps the log's tail; the whole log is the logs route's
    assert details.execution.execution_log is not None and log.endswith(
        details.execution.execution_log
    )
    logs = container.get_execution_logs().execute(GetExecutionLogsQuery(workflow_execution_id=RUN))
    assert logs.run_log == log

    collection = f"pipelineExecutions[{RUN}-step].{RowCollection.INPUT_METADATA.value}"
    page = container.get_execution_metadata().execute(
        GetExecutionMetadataQuery(workflow_execution_id=RUN, collection=collection)
    )
    (paged,) = page.items
    assert isinstance(paged, StepRow)
    metadata = paged.row
    assert isinstance(metadata, StepInputMetadata)
    assert metadata.metadata == records.step_metadata[0].metadata

    # what the runner reads before it runs the steps
    seen = store.get_details(RUN, include_outputs=False)
    runner_configuration = seen.steps[0].configuration
    assert runner_configuration is not None and runner_configuration.input_files == labels
    assert len(seen.inputs) == len(records.inputs) == (rows or FILES)

    # a permanent delete takes the bodies with the rows
    container.delete_execution().execute(DeleteExecutionCommand(workflow_execution_id=RUN))
    assert objects.list_latest(execution_object_prefix(RUN)) == []


def test_a_launch_over_9000_files_is_written(container: Container, rows: int | None) -> None:
    """Before item budgets, DynamoDB refused the step's configuration item ("Item size has
    exceeded the maximum allowed size"): 9,000 labels are about 400 KB."""
    records = _launch("nine-thousand", 9000, rows)
    assert item_size({"inputFiles": list(records.configuration.input_selections)}) > ITEM_SIZE_LIMIT
    store = container.execution_store()
    write_launch(store, records)
    configuration = store.get_details("nine-thousand", include_outputs=False).steps[0].configuration
    assert configuration is not None
    assert configuration.input_files == records.step_configurations[0].input_files


def test_moto_refuses_an_item_over_the_limit(container: Container) -> None:
    """The check above means something: moto enforces DynamoDB's limit on a plain put."""
    if container.config.store() != "dynamodb":
        pytest.skip("DynamoDB's own limit")
    client = container.dynamodb_client()
    table = TableNames().get_table_name(ResourceKeys.PIPELINE_INPUT_CONFIGURATION)
    item = {
        "pipelineExecutionId": {"S": "p"},
        "recordType": {"S": "configuration"},
        "inputFiles": {"L": [{"S": "x" * 100}] * 4200},
    }
    with pytest.raises(ClientError, match="Item size has exceeded"):
        client.put_item(TableName=table, Item=item)


# -- a real run whose step configuration is cut ----------------------------------------------------

COUNTED: list[int] = []


def count_inputs(input_files: list[str], output_dir: str, **_: object) -> None:
    """The step: it must be handed every one of its files, each readable."""
    assert all(Path(path).read_bytes() == b"body" for path in input_files)
    COUNTED.append(len(input_files))


def test_a_run_gets_every_input_file_when_its_step_configuration_was_cut(
    container: Container,
) -> None:
    document = parse_workflow_document(
        {
            "databaseId": "db1",
            "workflowId": "wide",
            "steps": [
                {
                    "pipelineId": "count",
                    "executionType": "python",
                    "handler": f"{__name__}:count_inputs",
                    "inputFileArity": "many",
                }
            ],
        }
    )
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    # 400 files with keys of ~900 bytes (a sort key takes at most 1024): their list is ~370 KB
    objects = container.object_store()
    files = []
    for n in range(400):
        key = "/".join([f"{n:04d}-" + "d" * 95] * 9) + ".bin"
        stored = objects.put_bytes(asset_object_key("db1", "wide-asset", key), b"body")
        files.append(
            AssetFile(
                database_id="db1",
                asset_id="wide-asset",
                file_key=key,
                version_id=stored.version_id,
                size=4,
                etag=stored.etag,
                bucket=objects.bucket,
                asset_root_key="assets/db1/wide-asset/",
                modified_at=MONDAY,
            )
        )
    container.asset_catalog().put_files(files)
    COUNTED.clear()
    command = LaunchExecutionCommand(
        workflow_database_id="db1", workflow_id="wide", inputs=("db1/wide-asset",), user_id="alice"
    )
    execution: WorkflowExecution = container.launch_execution().execute(command).execution
    stored_run = container.execution_store().get_execution(execution.workflow_execution_id)
    assert stored_run.status is ExecutionStatus.SUCCEEDED
    assert COUNTED == [400]
    cut = [
        item
        for table, item in _all_items(container)
        if table == "PIPELINE_INPUT_CONFIGURATION" and item.get("inputFilesTruncated") is True
    ]
    assert len(cut) == 1 and len(cut[0]["inputFiles"]) < 400
