"""What DynamoDbExecutionStore leaves in the tables, read back with plain boto3 scans.

Two runs go through the store the way the use cases drive it: a grouped run over two input files
of one asset with an output asset, and an ungrouped results-only run whose single step has input
arity none. Every item is then checked against seed 000's conventions.
"""

from __future__ import annotations

import collections
import itertools
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

import boto3
import pytest
from moto import mock_aws

from adapters.dynamodb.codec import check_item
from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.tables import CREATED_TABLES, TABLE_SPECS, ResourceKeys, TableNames
from application.ports.executions import AssetDirection, ExecutionRef, ListScope
from conftest import dynamodb_tables_snapshot, restore_dynamodb_tables
from domain.errors import ExecutionAlreadyExistsError, InvalidInputError
from domain.execution import (
    ExecutionConfiguration,
    ExecutionInput,
    InputSelection,
    LaunchRecords,
    OutputFile,
    OutputMetadata,
    OutputResult,
    PipelineExecution,
    StepInputConfiguration,
    StepInputMetadata,
    StepLog,
    StepOutputs,
    WorkflowExecution,
)
from domain.run import RunChange, RunGuard
from domain.statuses import ExecutionStatus, StepStatus
from domain.triggers import TriggerType
from domain.workflow import ExecutionType, InputFileArity
from tests.contract.builders import step_row_saved, write_change, write_launch

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

FAKE_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
ISO_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")  # VAMS: whole seconds
START = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
GROUPED, RESULTS_ONLY = "exec-grouped", "exec-results-only"
WORKFLOW_KEY = "db-1:wf-convert"

_prefixes = itertools.count()
EMPTY_PREFIX = "layout-"


# -- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[DynamoDBClient]:
    with pytest.MonkeyPatch.context() as env:
        for name, value in FAKE_CREDENTIALS.items():
            env.setenv(name, value)
        with mock_aws():
            yield boto3.client("dynamodb", region_name="us-east-1")


@pytest.fixture(scope="module")
def _empty_tables(dynamodb: DynamoDBClient) -> dict[str, Any]:
    """moto's model of every table named with EMPTY_PREFIX, made by `create_tables` once."""
    DynamoDbExecutionStore(dynamodb, TableNames(prefix=EMPTY_PREFIX)).create_tables()
    made = dynamodb_tables_snapshot()
    return {name: table for name, table in made.items() if name.startswith(EMPTY_PREFIX)}


@pytest.fixture
def tables(_empty_tables: dict[str, Any]) -> TableNames:
    """Every table there and empty for each test: copies of the module's, over the last test's."""
    restore_dynamodb_tables(_empty_tables)
    return TableNames(prefix=EMPTY_PREFIX)


@pytest.fixture
def store(dynamodb: DynamoDBClient, tables: TableNames) -> DynamoDbExecutionStore:
    created = DynamoDbExecutionStore(dynamodb, tables)
    created.create_tables()
    return created


class RequestCounter:
    """Counts API calls by operation name (one per call, retries not included), from any
    thread: a details read sends its requests at once."""

    def __init__(self, dynamodb: DynamoDBClient) -> None:
        self.calls: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        dynamodb.meta.events.register("before-call.dynamodb.*", self._count)

    def _count(self, model: Any, **_: Any) -> None:
        with self._lock:
            self.calls[model.name] += 1


@pytest.fixture
def requests(dynamodb: DynamoDBClient) -> Iterator[RequestCounter]:
    counter = RequestCounter(dynamodb)
    yield counter
    dynamodb.meta.events.unregister("before-call.dynamodb.*", counter._count)


# -- the two runs -------------------------------------------------------------------------------


def _execution(execution_id: str, start: datetime, group: str | None = None) -> WorkflowExecution:
    return WorkflowExecution(
        workflow_execution_id=execution_id,
        workflow_database_id="db-1",
        workflow_id="wf-convert",
        workflow_version=3,
        execution_group_id=group,
        status="RUNNING",
        execution_start_date=start,
        triggered_by_user_id="alice",
        trigger_type=TriggerType.MANUAL,
    )


def _step(
    execution_id: str,
    step_id: str,
    index: int,
    previous: str | None,
    end_state: bool,
    arity: InputFileArity = InputFileArity.MANY,
) -> PipelineExecution:
    base = f"executions/{execution_id}"
    return PipelineExecution(
        pipeline_execution_id=step_id,
        workflow_execution_id=execution_id,
        pipeline_database_id="db-1",
        pipeline_id=f"pipe-{index}",
        step_index=index,
        execution_type=ExecutionType.PYTHON,
        input_file_arity=arity,
        from_pipeline_execution_id=previous,
        end_state=end_state,
        input_path=f"{base}/input/",
        output_files_path=f"{base}/output/",
        output_preview_path=f"{base}/output/preview/",
        output_metadata_path=f"{base}/output/metadata/",
        auxiliary_path=f"{base}/auxiliary/{step_id}/",
    )


def _step_configuration(step: PipelineExecution, files: tuple[str, ...]) -> StepInputConfiguration:
    return StepInputConfiguration(
        pipeline_execution_id=step.pipeline_execution_id,
        workflow_execution_id=step.workflow_execution_id,
        execution_type=ExecutionType.PYTHON,
        handler="wfx_examples.convert:run",
        input_file_arity=step.input_file_arity,
        metadata_inputs=("units",),
        input_files=files,
    )


def grouped_launch(
    execution_id: str = GROUPED, start: datetime = START, metadata_rows: int = 1
) -> LaunchRecords:
    first = _step(execution_id, f"{execution_id}-step-1", 0, None, end_state=False)
    second = _step(
        execution_id, f"{execution_id}-step-2", 1, first.pipeline_execution_id, end_state=True
    )
    files = ("scans/a.obj", "scans/b.obj")
    return LaunchRecords(
        execution=_execution(execution_id, start, group="group-7"),
        inputs=tuple(
            ExecutionInput(
                workflow_execution_id=execution_id,
                workflow_key=WORKFLOW_KEY,
                database_id="db-1",
                asset_id="asset-in",
                input_asset_file_key=key,
                bucket="assets-bucket",
                asset_root_key="assets/db-1/asset-in/",
                version_id=f"v-{key}",
                execution_start_date=start,
                selection_key="/assets/db-1/asset-in/",
            )
            for key in files
        ),
        selections=(
            InputSelection(
                workflow_execution_id=execution_id,
                workflow_database_id="db-1",
                workflow_id="wf-convert",
                database_id="db-1",
                asset_id="asset-in",
                input_asset_file_key="/assets/db-1/asset-in/",
                bucket="assets-bucket",
                asset_root_key="assets/db-1/asset-in/",
                version_id="",
                execution_start_date=start,
            ),
        ),
        configuration=ExecutionConfiguration(
            workflow_execution_id=execution_id,
            workflow_key=WORKFLOW_KEY,
            workflow_version=3,
            execution_start_date=start,
            output_database_id="db-1",
            output_asset_id="asset-out",
            input_selections=("db-1/asset-in",),
            execution_group_id="group-7",
        ),
        steps=(first, second),
        step_configurations=(_step_configuration(first, files), _step_configuration(second, ())),
        step_metadata=tuple(
            StepInputMetadata(
                pipeline_execution_id=first.pipeline_execution_id,
                workflow_execution_id=execution_id,
                database_id="db-1",
                asset_id="asset-in",
                file_path=f"scans/{n}.obj",
                metadata=(("units", "mm"),),
            )
            for n in range(metadata_rows)
        ),
    )


def results_only_launch(
    execution_id: str = RESULTS_ONLY, start: datetime = START + timedelta(minutes=5)
) -> LaunchRecords:
    only = _step(
        execution_id, f"{execution_id}-step-1", 0, None, end_state=True, arity=InputFileArity.NONE
    )
    return LaunchRecords(
        execution=_execution(execution_id, start),
        inputs=(),
        configuration=ExecutionConfiguration(
            workflow_execution_id=execution_id,
            workflow_key=WORKFLOW_KEY,
            workflow_version=3,
            execution_start_date=start,
        ),
        steps=(only,),
        step_configurations=(_step_configuration(only, ()),),
    )


def _run_to_completion(store: DynamoDbExecutionStore, launch: LaunchRecords) -> None:
    """Drive each step NEW -> RUNNING -> SUCCEEDED and record its outputs."""
    for n, step in enumerate(launch.steps):
        started = step.model_copy(
            update={"status": StepStatus.RUNNING, "start_date": START + timedelta(seconds=n)}
        )
        assert step_row_saved(store, started, frozenset({StepStatus.NEW}))
        finished = started.model_copy(
            update={"status": StepStatus.SUCCEEDED, "stop_date": START + timedelta(seconds=n + 1)}
        )
        assert step_row_saved(store, finished, frozenset({StepStatus.RUNNING}))
        ids = {
            "pipeline_execution_id": step.pipeline_execution_id,
            "workflow_execution_id": step.workflow_execution_id,
        }
        store.add_step_outputs(
            StepOutputs(
                files=(
                    OutputFile(
                        **ids,
                        file_type="file",
                        relative_file_path="mesh.glb",
                        version_id="v1",
                        size=2048,
                        etag="e1",
                    ),
                    OutputFile(
                        **ids,
                        file_type="preview",
                        relative_file_path="preview/mesh.png",
                        version_id="v1",
                        size=64,
                        etag="e2",
                    ),
                ),
                metadata=(
                    OutputMetadata(
                        **ids, target_file_path="mesh.glb", metadata_key="vertices", value="1024"
                    ),
                ),
                results=(OutputResult(**ids, relative_file_path="mesh.glb", version_id="v1"),),
                logs=(StepLog(**ids, status="SUCCEEDED", message="done"),),
            )
        )


@pytest.fixture(scope="module")
def completed(dynamodb: DynamoDBClient) -> TableNames:
    """The tables of the two runs, written and run to their ends once per module in tables of
    their own: the tests that read them only scan and query (none writes)."""
    tables = TableNames(prefix=f"layout{next(_prefixes)}-")
    store = DynamoDbExecutionStore(dynamodb, tables)
    store.create_tables()
    endings = {
        GROUPED: (ExecutionStatus.SUCCEEDED, None),
        RESULTS_ONLY: (ExecutionStatus.FAILED, "boom"),
    }
    for launch in (grouped_launch(), results_only_launch()):
        write_launch(store, launch)
        _run_to_completion(store, launch)
        status, error = endings[launch.execution.workflow_execution_id]
        finished = launch.execution.complete(status, START + timedelta(minutes=9), "log", error)
        assert write_change(store, RunChange(launch.execution, finished, RunGuard()))
    return tables


def scan(dynamodb: DynamoDBClient, tables: TableNames, key: ResourceKeys) -> list[dict[str, Any]]:
    """Every item of a table as plain values (numbers as int)."""
    from boto3.dynamodb.types import TypeDeserializer

    deserialize = TypeDeserializer().deserialize
    pages = dynamodb.get_paginator("scan").paginate(TableName=tables.get_table_name(key))
    return [
        {name: deserialize(value) for name, value in item.items()}
        for page in pages
        for item in page["Items"]
    ]


def scan_index(
    dynamodb: DynamoDBClient, tables: TableNames, key: ResourceKeys, index: str
) -> list[dict[str, Any]]:
    pages = dynamodb.get_paginator("scan").paginate(
        TableName=tables.get_table_name(key), IndexName=index
    )
    return [item for page in pages for item in page["Items"]]


def by(items: list[dict[str, Any]], attribute: str) -> dict[str, dict[str, Any]]:
    return {item[attribute]: item for item in items}


# -- main rows ----------------------------------------------------------------------------------


def test_main_rows_are_workflow_keyed_with_a_colon_joined_sort_key(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    rows = by(scan(dynamodb, completed, ResourceKeys.WORKFLOW_EXECUTIONS), "workflowExecutionId")
    assert set(rows) == {GROUPED, RESULTS_ONLY}
    for row in rows.values():
        assert row["workflowDatabaseId:workflowId"] == "db-1:wf-convert"
        assert (row["workflowDatabaseId"], row["workflowId"]) == ("db-1", "wf-convert")
        assert row["allListPartition"] == "execution"
        assert ISO_UTC.match(row["executionStartDate"])
        assert row["triggerType"] == "Manual"
        # seed 000: asset linkage lives in the input and configuration rows, never here
        assert not {"databaseId", "assetId", "databaseId:assetId"} & set(row)


def test_a_completed_main_row_has_a_stop_date_and_an_error_only_when_it_failed(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    rows = by(scan(dynamodb, completed, ResourceKeys.WORKFLOW_EXECUTIONS), "workflowExecutionId")
    for row in rows.values():
        assert row["executionStopDate"] == "2024-05-01T12:09:00Z"
        assert row["executionLog"] == "log"
    assert rows[GROUPED]["executionStatus"] == "SUCCEEDED"
    assert rows[GROUPED]["executionError"] == ""  # VAMS's empty value: no failure
    assert (rows[RESULTS_ONLY]["executionStatus"], rows[RESULTS_ONLY]["executionError"]) == (
        "FAILED",
        "boom",
    )


def test_only_the_grouped_run_carries_an_execution_group_id(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    rows = by(scan(dynamodb, completed, ResourceKeys.WORKFLOW_EXECUTIONS), "workflowExecutionId")
    assert rows[GROUPED]["executionGroupId"] == "group-7"
    assert "executionGroupId" not in rows[RESULTS_ONLY]
    in_group_index = scan_index(
        dynamodb, completed, ResourceKeys.WORKFLOW_EXECUTIONS, "WorkflowExecutionsByGroupGSI"
    )
    assert [item["workflowExecutionId"]["S"] for item in in_group_index] == [GROUPED]


def test_every_main_row_is_in_the_global_newest_first_index(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    response = dynamodb.query(
        TableName=completed.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS),
        IndexName="WorkflowExecutionsByDateGSI",
        KeyConditionExpression="allListPartition = :p",
        ExpressionAttributeValues={":p": {"S": "execution"}},
        ScanIndexForward=False,
    )
    ids = [item["workflowExecutionId"]["S"] for item in response["Items"]]
    assert ids == [RESULTS_ONLY, GROUPED]


# -- inputs and configuration ------------------------------------------------------------------


def test_input_rows_are_one_per_selection_and_the_files_keep_their_versions(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    (selection,) = scan(dynamodb, completed, ResourceKeys.WORKFLOW_EXECUTION_INPUTS)
    assert (
        selection["databaseId:assetId:inputAssetFileKey"] == "db-1:asset-in:/assets/db-1/asset-in/"
    )
    assert selection["versionId"] == ""  # a whole asset: no single version
    assert (selection["workflowDatabaseId"], selection["workflowId"]) == ("db-1", "wf-convert")
    rows = scan(dynamodb, completed, ResourceKeys.RESOLVED_INPUT_FILES)
    assert sorted(row["databaseId:assetId:inputAssetFileKey"] for row in rows) == [
        "db-1:asset-in:scans/a.obj",
        "db-1:asset-in:scans/b.obj",
    ]
    for row in [selection, *rows]:
        assert row["workflowExecutionId"] == GROUPED
        assert row["databaseId:assetId"] == "db-1:asset-in"
        assert row["executionStartDate"] == "2024-05-01T12:00:00Z"
        assert row["s3Bucket"] == "assets-bucket"
        assert row["assetRootS3Key"] == "assets/db-1/asset-in/"
    for row in rows:
        assert row["versionId"] == f"v-{row['inputAssetFileKey']}"
        assert row["selectionKey"] == selection["inputAssetFileKey"]


def test_only_the_asset_targeted_run_has_an_output_asset_key(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    rows = by(
        scan(dynamodb, completed, ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION),
        "workflowExecutionId",
    )
    assert {row["recordType"] for row in rows.values()} == {"configuration"}
    assert rows[GROUPED]["outputDatabaseId:outputAssetId"] == "db-1:asset-out"
    assert ISO_UTC.match(rows[GROUPED]["executionStartDate"])
    assert "outputDatabaseId:outputAssetId" not in rows[RESULTS_ONLY]  # sparse: absent
    assert rows[RESULTS_ONLY]["outputDatabaseId"] == rows[RESULTS_ONLY]["outputAssetId"] == ""
    absent = {"outputDatabaseId:outputAssetId"}
    assert not absent & set(rows[RESULTS_ONLY])
    by_output = scan_index(
        dynamodb,
        completed,
        ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
        "WorkflowExecConfigByOutputAssetGSI",
    )
    assert [item["workflowExecutionId"]["S"] for item in by_output] == [GROUPED]


# -- steps ----------------------------------------------------------------------------------------


def test_step_rows_chain_from_the_root_which_has_no_predecessor_attribute(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    rows = by(scan(dynamodb, completed, ResourceKeys.PIPELINE_EXECUTIONS), "pipelineExecutionId")
    assert len(rows) == 3
    assert "from_pipeline_execution_id" not in rows[f"{GROUPED}-step-1"]
    assert "from_pipeline_execution_id" not in rows[f"{RESULTS_ONLY}-step-1"]
    assert rows[f"{GROUPED}-step-2"]["from_pipeline_execution_id"] == f"{GROUPED}-step-1"
    chain = scan_index(
        dynamodb, completed, ResourceKeys.PIPELINE_EXECUTIONS, "PipelineExecChainGSI"
    )
    assert [item["pipelineExecutionId"]["S"] for item in chain] == [f"{GROUPED}-step-2"]


def test_step_rows_carry_keys_dates_and_the_reserved_credential_fields(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    rows = by(scan(dynamodb, completed, ResourceKeys.PIPELINE_EXECUTIONS), "pipelineExecutionId")
    for row in rows.values():
        assert row["pipelineDatabaseId:pipelineId"] == f"db-1:{row['pipelineId']}"
        assert row["credentialVendingState"] == "notVended"
        assert row["executionStatus"] == "SUCCEEDED"
        assert ISO_UTC.match(row["executionStartDate"]) and ISO_UTC.match(row["executionStopDate"])
    assert {step_id: row["endStatePipeline"] for step_id, row in rows.items()} == {
        f"{GROUPED}-step-1": "false",
        f"{GROUPED}-step-2": "true",
        f"{RESULTS_ONLY}-step-1": "true",
    }
    assert rows[f"{RESULTS_ONLY}-step-1"]["inputFileArity"] == "none"


def test_each_step_has_its_own_input_configuration_and_metadata(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    configurations = scan(dynamodb, completed, ResourceKeys.PIPELINE_INPUT_CONFIGURATION)
    assert sorted((c["pipelineExecutionId"], c["recordType"]) for c in configurations) == [
        (f"{GROUPED}-step-1", "configuration"),
        (f"{GROUPED}-step-2", "configuration"),
        (f"{RESULTS_ONLY}-step-1", "configuration"),
    ]
    metadata = scan(dynamodb, completed, ResourceKeys.PIPELINE_INPUT_METADATA)
    assert [(m["pipelineExecutionId"], m["databaseId:assetId:filePath"]) for m in metadata] == [
        (f"{GROUPED}-step-1", "db-1:asset-in:/scans/0.obj")
    ]
    assert metadata[0]["metadata"] == {"units": "mm"}


def test_output_rows_use_their_composite_sort_keys(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    files = scan(dynamodb, completed, ResourceKeys.PIPELINE_OUTPUT_FILES)
    assert sorted({f["fileType:relativeFilePath"] for f in files}) == [
        "file:mesh.glb",
        "preview:mesh.png",  # relative to the previews, as VAMS keys it
    ]
    assert len(files) == 6
    assert {f["fileSize"] for f in files} == {2048, 64}
    metadata = scan(dynamodb, completed, ResourceKeys.PIPELINE_OUTPUT_METADATA)
    assert {m["targetFilePath:metadataKey"] for m in metadata} == {"/mesh.glb:vertices"}
    results = scan(dynamodb, completed, ResourceKeys.PIPELINE_OUTPUT_RESULTS)
    assert {r["relativeFilePath"] for r in results} == {"/mesh.glb"}
    assert all("outputDatabaseId" not in r and "assetVersionId" not in r for r in results)
    logs = scan(dynamodb, completed, ResourceKeys.PIPELINE_LOGS)
    assert {(log["logType"], log["status"]) for log in logs} == {("summary", "SUCCEEDED")}
    assert len(logs) == 3


def test_no_run_time_path_writes_the_per_pipeline_input_files_or_the_earlier_table(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    assert scan(dynamodb, completed, ResourceKeys.PIPELINE_INPUT_FILES) == []
    earlier = completed.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS_V1)
    assert earlier not in dynamodb.list_tables()["TableNames"]  # not even made


def test_no_key_attribute_of_any_item_is_an_empty_string(
    dynamodb: DynamoDBClient, completed: TableNames
) -> None:
    for spec in CREATED_TABLES:
        for item in scan(dynamodb, completed, spec.key):
            for attribute in spec.all_key_attributes:
                assert item.get(attribute.name, "absent") != "", (spec.key, attribute.name)


# -- writes: atomicity, guards, request shapes ----------------------------------------------------


def test_a_small_launch_is_one_transaction_and_nothing_else(
    store: DynamoDbExecutionStore, requests: RequestCounter
) -> None:
    write_launch(store, grouped_launch())
    assert dict(requests.calls) == {"TransactWriteItems": 1}


def test_a_second_launch_of_the_same_id_is_refused_and_changes_nothing(
    store: DynamoDbExecutionStore, dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    write_launch(store, grouped_launch())
    again = grouped_launch()
    changed = again.model_copy(
        update={"inputs": (again.inputs[0].model_copy(update={"version_id": "changed"}),)}
    )
    with pytest.raises(ExecutionAlreadyExistsError):
        write_launch(store, changed)
    inputs = scan(dynamodb, tables, ResourceKeys.RESOLVED_INPUT_FILES)
    versions = {row["versionId"] for row in inputs}
    assert versions == {"v-scans/a.obj", "v-scans/b.obj"}


def test_a_launch_too_big_for_one_transaction_writes_every_row_main_row_last(
    store: DynamoDbExecutionStore,
    dynamodb: DynamoDBClient,
    tables: TableNames,
    requests: RequestCounter,
) -> None:
    write_launch(store, grouped_launch(metadata_rows=120))
    # the supporting rows, 25 to a request, but the steps and attempts, which a runner changes
    # later: those in one transaction on condition they are absent (another launch of the id may
    # have landed them and started a step); then the main row with its first event
    assert requests.calls["BatchWriteItem"] == 6
    assert (requests.calls["TransactWriteItems"], requests.calls["PutItem"]) == (2, 0)
    assert len(scan(dynamodb, tables, ResourceKeys.PIPELINE_INPUT_METADATA)) == 120
    assert store.get_execution(GROUPED).workflow_execution_id == GROUPED
    with pytest.raises(ExecutionAlreadyExistsError):
        write_launch(store, grouped_launch(metadata_rows=120))


def test_an_empty_key_is_refused_before_anything_is_written(
    store: DynamoDbExecutionStore, dynamodb: DynamoDBClient, tables: TableNames
) -> None:
    launch = grouped_launch()
    broken = launch.model_copy(
        update={"steps": (launch.steps[0].model_copy(update={"pipeline_execution_id": ""}),)}
    )
    with pytest.raises(ValueError, match=r"PipelineExecutionsStorageTable.*pipelineExecutionId"):
        write_launch(store, broken)
    assert scan(dynamodb, tables, ResourceKeys.WORKFLOW_EXECUTIONS) == []


@pytest.mark.parametrize(
    ("attribute", "value", "complaint"),
    [
        ("executionGroupId", "", "must not be an empty string"),
        ("allListPartition", "", "must not be an empty string"),
        ("executionStartDate", 20240501, "must be a string"),
    ],
)
def test_the_guard_names_the_table_and_the_index_key_it_refuses(
    attribute: str, value: object, complaint: str
) -> None:
    item = {
        "workflowExecutionId": "exec-1",
        "workflowDatabaseId:workflowId": "db-1:wf",
        attribute: value,
    }
    with pytest.raises(ValueError, match=f"MainTable: key attribute '{attribute}' {complaint}"):
        check_item("MainTable", TABLE_SPECS[ResourceKeys.WORKFLOW_EXECUTIONS], item)


def test_each_list_page_is_one_query_on_the_date_index(
    store: DynamoDbExecutionStore, requests: RequestCounter
) -> None:
    for n in range(3):
        write_launch(store, results_only_launch(f"exec-{n}", START + timedelta(hours=n)))
    requests.calls.clear()
    first = store.list_executions(ListScope.ALL, None, 2, None)
    assert [e.workflow_execution_id for e in first.items] == ["exec-2", "exec-1"]
    assert first.next_token is not None
    second = store.list_executions(ListScope.ALL, None, 2, first.next_token)
    assert [e.workflow_execution_id for e in second.items] == ["exec-0"]
    assert second.next_token is None
    assert dict(requests.calls) == {"Query": 2}


def test_a_token_from_another_list_is_refused(store: DynamoDbExecutionStore) -> None:
    for n in range(2):
        write_launch(store, grouped_launch(f"exec-{n}", START + timedelta(hours=n)))
    page = store.list_executions(ListScope.GROUP, "group-7", 1, None)
    assert page.next_token is not None
    with pytest.raises(InvalidInputError, match=r"^startingToken: "):
        store.list_executions(ListScope.GROUP, "group-8", 1, page.next_token)
    with pytest.raises(InvalidInputError, match=r"^startingToken: "):
        store.list_executions(ListScope.ALL, None, 1, page.next_token)
    with pytest.raises(InvalidInputError, match=r"^startingToken: "):
        store.list_executions(ListScope.GROUP, "group-7", 1, "%%% not base64 %%%")


class TiesAscendingClient:
    """The moto client, but index Queries list rows that share a sort key in ascending id order.

    DynamoDB leaves the order of index rows with equal sort keys unspecified. moto orders them by
    table key, which for a newest-first read is exactly the wanted id order and would hide a tie
    split across pages; this serves the same rows in the least helpful order instead.
    """

    def __init__(self, client: DynamoDBClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def query(self, **request: Any) -> dict[str, Any]:
        if "IndexName" not in request:
            return dict(self._client.query(**request))
        limit = request.pop("Limit")
        start = request.pop("ExclusiveStartKey", None)
        pages = self._client.get_paginator("query").paginate(**request)
        rows = [row for page in pages for row in page["Items"]]
        rows.sort(key=lambda row: row["workflowExecutionId"]["S"])
        rows.sort(key=lambda row: row["executionStartDate"]["S"], reverse=True)
        offset = int(start["offset"]["N"]) if start else 0
        response: dict[str, Any] = {"Items": rows[offset : offset + limit]}
        if offset + limit < len(rows):
            response["LastEvaluatedKey"] = {"offset": {"N": str(offset + limit)}}
        return response


@pytest.mark.parametrize("tie_order", ["moto", "ascending ids"])
def test_asset_refs_never_split_executions_that_share_a_start_date(
    dynamodb: DynamoDBClient, tables: TableNames, tie_order: str
) -> None:
    # Pages of two rows: each execution has two input rows, and three executions start together,
    # so the rows of one date are spread over several pages.
    client = dynamodb if tie_order == "moto" else TiesAscendingClient(dynamodb)
    store = DynamoDbExecutionStore(cast("DynamoDBClient", client), tables, query_page_size=2)
    store.create_tables()
    same_start = START + timedelta(days=1)
    for execution_id in ("exec-b", "exec-c", "exec-a"):
        write_launch(store, grouped_launch(execution_id, same_start))
    write_launch(store, grouped_launch("exec-old", START))

    first = store.asset_execution_refs("db-1:asset-in", AssetDirection.INPUT, None, 2)
    assert [r.workflow_execution_id for r in first] == ["exec-c", "exec-b"]
    rest = store.asset_execution_refs("db-1:asset-in", AssetDirection.INPUT, first[-1], 5)
    assert [r.workflow_execution_id for r in rest] == ["exec-a", "exec-old"]
    assert rest[0] == ExecutionRef("2024-05-02T12:00:00Z", "exec-a", "db-1:wf-convert")
    outputs = store.asset_execution_refs("db-1:asset-out", AssetDirection.OUTPUT, first[0], 10)
    assert [r.workflow_execution_id for r in outputs] == ["exec-b", "exec-a", "exec-old"]
