"""A run with every kind of row, exported from SQLite, imported into DynamoDB (moto), exported
again and imported into a second SQLite: verified identical at each step, item by item."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers

from adapters.archive_file import read_runs, write_header, write_run
from application.ports.costs import CostScope
from application.ports.migration import ArchivedRun, RejectedRun
from application.use_cases.complete_execution import CompleteExecutionCommand
from application.use_cases.export_executions import ExportExecutionsCommand
from application.use_cases.register_pipeline_execution import RegisterPipelineExecutionCommand
from application.use_cases.retry_step import RetryStepCommand
from application.use_cases.step_tracking import FinishStepCommand, StartStepCommand
from domain.approvals import ApprovalRequest
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from entrypoints.container import build_container, create_all_tables
from tests.contract.builders import (
    a_launch,
    a_version,
    an_asset_file,
    at,
    publish,
    some_outputs,
    step_id,
    write_launch,
)
from tests.home_settings import home_settings

pytestmark = pytest.mark.integration

RUN = "run-1"
ROOT = step_id(RUN, 0)
SELECTIONS = tuple(f"db1:asset1/{'folder/' * 40}{n}.obj" for n in range(2000))
EVERY_TABLE = {
    "WORKFLOW_EXECUTIONS",
    "PIPELINE_EXECUTIONS",
    "PIPELINE_INPUT_CONFIGURATION",
    "PIPELINE_INPUT_METADATA",
    "PIPELINE_OUTPUT_FILES",
    "PIPELINE_OUTPUT_METADATA",
    "PIPELINE_OUTPUT_RESULTS",
    "PIPELINE_LOGS",
    "WORKFLOW_EXECUTION_INPUTS",
    "WORKFLOW_EXECUTION_CONFIGURATION",
    "WORKFLOW_DEFINITIONS",
    "WORKFLOW_VERSIONS",
    "STEP_DEFINITIONS",
    "ASSET_FILES",
    "TASK_EXECUTIONS",
    "EXECUTION_EVENTS",
    "COST_LEDGER",
    "APPROVAL_REQUESTS",
    "ARTIFACTS",
    "RESOLVED_INPUT_FILES",
}


def _container(store: str, home: Path, client: Any = None) -> Any:
    settings = home_settings(home, store=store)
    container = build_container(settings, runner_mode="inline")
    if client is not None:
        container.dynamodb_client.override(providers.Object(client))
    create_all_tables(container)
    return container


def _a_run_with_every_kind_of_row(container: Any) -> None:
    publish(container.workflow_definitions(), a_version(1))
    container.asset_catalog().put_files([an_asset_file("scan.obj")])
    launch = a_launch(RUN, group="nightly")
    # over the item budget: the selections go to the object store, the row keeps a cut
    configuration = launch.configuration.model_copy(update={"input_selections": SELECTIONS})
    write_launch(
        container.execution_store(), launch.model_copy(update={"configuration": configuration})
    )
    start = StartStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT)
    container.start_step().execute(start)
    registration = RegisterPipelineExecutionCommand.model_validate(
        {
            "source": f"wfx.execution.{RUN}.pipeline.{ROOT}",
            "detail-type": "pipeline.execution.register",
            "detail": {
                "pipelineExecutionId": ROOT,
                "subExecutions": [{"resourceType": "localProcess", "resourceId": "4242"}],
                "logs": [
                    {"logGroupArn": "arn:aws:logs:us-east-1:1:log-group:g", "logStreamPrefix": "s/"}
                ],
            },
        }
    )
    container.register_pipeline_execution().execute(registration)
    retry = RetryStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT, error="once")
    container.retry_step().execute(retry)
    container.execution_store().add_step_outputs(some_outputs(RUN, 0, attempt=2))
    finish = FinishStepCommand(
        workflow_execution_id=RUN, pipeline_execution_id=ROOT, status=StepStatus.SUCCEEDED
    )
    container.finish_step().execute(finish)
    container.execution_store().commit(
        RunWrite.opening(
            ApprovalRequest(
                approval_id="approval-1",
                workflow_execution_id=RUN,
                pipeline_execution_id=step_id(RUN, 1),
                attempt=1,
                pipeline_id="sign-off",
                workflow_database_id="db1",
                workflow_id="wf1",
                approvers=("carol",),
                message="sign it off",
                requested_at=at(4),
                expires_at=at(4) + timedelta(hours=1),
            )
        )
    )
    complete = CompleteExecutionCommand(
        workflow_execution_id=RUN, status=ExecutionStatus.FAILED, error="the second step failed"
    )
    container.complete_execution().execute(complete)


def _export(container: Any) -> list[ArchivedRun]:
    return list(container.export_executions().execute(ExportExecutionsCommand()))


def _through_a_file(runs: list[ArchivedRun]) -> list[ArchivedRun | RejectedRun]:
    stream = io.StringIO()
    write_header(stream)
    for run in runs:
        write_run(stream, run)
    return list(read_runs(io.StringIO(stream.getvalue())))


def _content(runs: list[ArchivedRun]) -> Any:
    return [
        (
            run.workflow_execution_id,
            sorted(json.dumps([i.table, i.item], sort_keys=True) for i in run.items),
            sorted((b.key, b.data) for b in run.bodies),
        )
        for run in runs
    ]


@pytest.fixture
def three_stores(tmp_path: Path, moto_dynamodb_client: Any) -> Iterator[tuple[Any, Any, Any]]:
    yield (
        _container("sqlite", tmp_path / "first"),
        _container("dynamodb", tmp_path / "aws", moto_dynamodb_client),
        _container("sqlite", tmp_path / "second"),
    )


def test_a_run_moves_from_sqlite_to_dynamodb_and_back_identical(
    three_stores: tuple[Any, Any, Any],
) -> None:
    sqlite, dynamodb, second = three_stores
    _a_run_with_every_kind_of_row(sqlite)
    exported = _export(sqlite)
    (run,) = exported
    assert {item.table for item in run.items} == EVERY_TABLE
    assert run.items[-1].table == "WORKFLOW_EXECUTIONS"
    assert len(run.bodies) >= 1

    from_file = _through_a_file(exported)
    result = dynamodb.import_executions().execute(from_file)
    assert (result.runs, result.items_written, result.rejected) == (1, len(run.items), ())
    assert dynamodb.verify_executions().execute(from_file) == []
    again = dynamodb.import_executions().execute(from_file)
    assert (again.items_written, again.items_unchanged) == (0, len(run.items))

    back = _export(dynamodb)
    assert _content(back) == _content(exported)
    second.import_executions().execute(_through_a_file(back))
    assert second.verify_executions().execute(_through_a_file(back)) == []
    assert _content(_export(second)) == _content(exported)

    # the copy reads as the original does, through the use cases' ports
    store = dynamodb.execution_store()
    assert store.get_execution(RUN).status is ExecutionStatus.FAILED
    assert [a.attempt for a in store.list_attempts([ROOT])] == [1, 2]
    assert store.get_step(ROOT).registered_sub_executions[0].resource_id == "4242"
    configuration = store.get_configuration(RUN)
    assert configuration is not None and configuration.input_selections == SELECTIONS
    assert len(dynamodb.approvals().list_for_execution(RUN)) == 1
    entries = dynamodb.cost_ledger().list_entries(CostScope.EXECUTION, RUN)
    assert entries == sqlite.cost_ledger().list_entries(CostScope.EXECUTION, RUN)
    events = dynamodb.execution_events().events_after(RUN, 0, 1000)
    assert events == sqlite.execution_events().events_after(RUN, 0, 1000)
