"""A whole run on the production parts, all on moto in this process: DynamoDB tables, a
versioned S3 bucket as the object store, the generated state machine on Step Functions' ASL
interpreter, and wfx's real Lambda handlers (played through SQS, as in
test_state_machine_with_handlers_on_moto.py).

The workflow's own function stands for a pipeline on AWS: it writes its files to the bucket
under the `outputPrefix` its Payload names. The tracking handler records each step's new
versions, the completion handler the last step's and the results as new versions of the output
asset; every version id is S3's.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

from application.state_machines import HandlerArns, build_state_machine
from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT, versioned_bucket
from domain.execution import ExecutionDetails, execution_output_prefix
from domain.statuses import ExecutionStatus
from entrypoints.container import create_all_tables
from tests.integration.test_state_machine_with_handlers_on_moto import lambda_calls_through_sqs

# one worker runs the module, so its one run is made once
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("whole-run-on-aws")]

BUCKET = "team-assets"
HANDLERS = HandlerArns(tracking="wfx-track-step", completion="wfx-complete", error="wfx-error")
WORKFLOW = {
    "databaseId": "db1",
    "workflowId": "convert",
    "steps": [
        {"pipelineId": f"pipe{index}", "executionType": "lambda", "functionName": "mesh-convert"}
        for index in range(2)
    ],
}
# What the workflow's function writes, per step: the second rewrites stats.json.
STEP_OUTPUTS = [
    {"normalized/mesh.obj": b"v 0 0 0\n", "stats.json": b'{"vertices": 1}'},
    {"preview/mesh.svg": b"<svg/>", "stats.json": b'{"vertices": 1, "faces": 0}'},
]


@dataclass(frozen=True)
class Finished:
    status: str
    details: ExecutionDetails
    imported_versions: dict[str, str]  # file key -> the S3 version id the import wrote
    versions: list[dict[str, Any]]  # every S3 version in the bucket
    asset_files: dict[str, str]  # the output asset's files in the catalog: file key -> version


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Finished]:
    """One run for the module's tests, which read only what was captured here: under xdist
    another test's `mock_aws()` may reset moto's backends between two tests of this module."""
    home = tmp_path_factory.mktemp("whole-run")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {
            **FAKE_AWS_ENVIRONMENT,
            "WFX_HOME": str(home / "home"),
            "WFX_STORE": "dynamodb",
            "WFX_RUNNER": "stepfunctions",
            "WFX_OBJECT_STORE": "s3",
            "WFX_S3_BUCKET": BUCKET,
        }.items():
            patch.setenv(name, value)
        patch.delenv("WFX_TABLE_PREFIX", raising=False)
        with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
            handlers = importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))
            create_all_tables(handlers.container)
            versioned_bucket(boto3.client("s3", region_name=AWS_REGION), BUCKET)
            yield _run(handlers, home)


def _run(handlers: ModuleType, home: Path) -> Finished:
    container = handlers.container
    document = parse_workflow_document(WORKFLOW)
    version = container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=document)
    )
    sqs = boto3.client("sqs", region_name=AWS_REGION)
    sfn = boto3.client("stepfunctions", region_name=AWS_REGION)
    queue_url = sqs.create_queue(QueueName="lambda-invocations")["QueueUrl"]
    machine = sfn.create_state_machine(
        name="wfx-db1-convert-v1",
        definition=json.dumps(
            lambda_calls_through_sqs(build_state_machine(version.version, HANDLERS), queue_url)
        ),
        roleArn="arn:aws:iam::123456789012:role/wfx",
    )
    container.workflow_catalog().record_deployment("db1", "convert", 1, machine["stateMachineArn"])
    source = home / "bunny.obj"
    source.write_bytes(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    imported = container.import_asset_files().execute(
        ImportAssetFilesCommand(
            database_id="db1",
            asset_id="meshes",
            files=(ImportedFile(file_key="bunny.obj", path=source),),
        )
    )

    launched = container.launch_execution().execute(
        LaunchExecutionCommand(
            workflow_database_id="db1",
            workflow_id="convert",
            inputs=("db1/meshes",),
            output="db1/results",
            user_id="alice",
        )
    )
    execution_arn = launched.execution.execution_arn
    assert execution_arn is not None
    deadline = time.monotonic() + 20
    written = 0
    while sfn.describe_execution(executionArn=execution_arn)["status"] == "RUNNING":
        assert time.monotonic() < deadline, "the run is still RUNNING after 20 s"
        for message in sqs.receive_message(QueueUrl=queue_url).get("Messages", []):
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
            body = json.loads(message["Body"])
            if body["functionName"] == "mesh-convert":
                _write_outputs(body["payload"]["outputPrefix"], STEP_OUTPUTS[written])
                written += 1
                result: dict[str, Any] = {}
            else:
                result = _handler(handlers, body["functionName"])(body["payload"], None)
            sfn.send_task_success(taskToken=body["invocationToken"], output=json.dumps(result))
        time.sleep(0.02)

    execution_id = launched.execution.workflow_execution_id
    s3 = boto3.client("s3", region_name=AWS_REGION)
    return Finished(
        status=sfn.describe_execution(executionArn=execution_arn)["status"],
        details=container.execution_store().get_details(execution_id),
        imported_versions={f.file_key: f.version_id for f in imported},
        versions=s3.list_object_versions(Bucket=BUCKET)["Versions"],
        asset_files={
            f.file_key: f.version_id for f in container.asset_catalog().list_files("db1", "results")
        },
    )


def _write_outputs(prefix: str, files: dict[str, bytes]) -> None:
    s3 = boto3.client("s3", region_name=AWS_REGION)
    for relative, body in files.items():
        s3.put_object(Bucket=BUCKET, Key=f"{prefix}{relative}", Body=body)


def _handler(handlers: ModuleType, function: str) -> Any:
    return {
        HANDLERS.tracking: handlers.track_step,
        HANDLERS.completion: handlers.complete_execution,
        HANDLERS.error: handlers.handle_execution_error,
    }[function]


def _s3_versions(finished: Finished, prefix: str) -> set[tuple[str, str]]:
    """(path under the prefix, version id) of every S3 version under it."""
    return {
        (v["Key"][len(prefix) :], v["VersionId"])
        for v in finished.versions
        if v["Key"].startswith(prefix)
    }


def test_the_run_succeeds_in_step_functions_and_in_the_store(finished: Finished) -> None:
    assert finished.status == "SUCCEEDED"
    assert finished.details.execution.status is ExecutionStatus.SUCCEEDED


def test_each_input_row_names_the_bucket_the_asset_root_and_s3s_version(
    finished: Finished,
) -> None:
    (row,) = finished.details.inputs
    assert (row.bucket, row.asset_root_key, row.input_asset_file_key) == (
        BUCKET,
        "assets/db1/meshes/",
        "bunny.obj",
    )
    assert row.version_id == finished.imported_versions["bunny.obj"]
    assert (f"{row.asset_root_key}{row.input_asset_file_key}", row.version_id) in {
        (v["Key"], v["VersionId"]) for v in finished.versions
    }


def test_each_step_records_the_versions_it_added_under_the_executions_prefix(
    finished: Finished,
) -> None:
    prefix = execution_output_prefix(finished.details.execution.workflow_execution_id)
    in_s3 = _s3_versions(finished, prefix)
    recorded = [
        {(f.relative_file_path, f.version_id) for f in step.outputs.files}
        for step in finished.details.steps
    ]

    assert [{path for path, _ in rows} for rows in recorded] == [
        {"normalized/mesh.obj", "stats.json"},
        {"preview/mesh.svg", "stats.json"},  # the rewritten stats.json: a new version
    ]
    assert recorded[0] | recorded[1] == in_s3  # every version in S3, each recorded once
    for step in finished.details.steps:
        assert step.step.output_files_path == prefix


def test_the_results_are_new_versions_of_the_output_asset(finished: Finished) -> None:
    end = finished.details.steps[-1]
    in_s3 = _s3_versions(finished, "assets/db1/results/")
    results = {r.relative_file_path: r.asset_version_id for r in end.outputs.results}

    assert set(results) == {"normalized/mesh.obj", "preview/mesh.svg", "stats.json"}
    assert set(results.items()) == in_s3
    assert finished.asset_files == results  # the catalog points at the versions written
