"""Moving between stores: export, import into the other kind of store, and the backfill."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dependency_injector import providers
from pytest_bdd import given, parsers, then, when
from tests.home_settings import home_settings

from adapters.tables import ResourceKeys
from application.ports.executions import ListScope
from application.ports.migration import ArchivedRun
from application.use_cases.backfill_list_partition import BackfillListPartitionCommand
from application.use_cases.export_executions import ExportExecutionsCommand
from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from domain.execution import ExecutionDetails
from entrypoints.container import Container, build_container, create_all_tables
from features.steps.world import World

_OTHER = {"sqlite": "dynamodb", "dynamodb": "sqlite"}


def _other_container(storage: str, tmp_path: Path, request: pytest.FixtureRequest) -> Container:
    other = _OTHER[storage]
    home = tmp_path / "other"
    settings = home_settings(home, store=other)
    container = build_container(settings, runner_mode="inline")
    if other == "dynamodb":
        client = request.getfixturevalue("moto_dynamodb_client")
        container.dynamodb_client.override(providers.Object(client))
    create_all_tables(container)
    return container


@when(
    "every run is exported and imported into an empty store of the other kind",
    target_fixture="moved",
)
def _(
    container: Container, storage: str, tmp_path: Path, request: pytest.FixtureRequest
) -> tuple[Container, list[ArchivedRun]]:
    exported = list(container.export_executions().execute(ExportExecutionsCommand()))
    other = _other_container(storage, tmp_path, request)
    result = other.import_executions().execute(exported)
    assert result.rejected == () and result.conflicts == ()
    assert result.items_written == sum(len(run.items) for run in exported)
    return other, exported


@then("the other store holds every item of the export")
def _(moved: tuple[Container, list[ArchivedRun]]) -> None:
    other, exported = moved
    assert other.verify_executions().execute(exported) == []


def _shown(container: Container) -> list[Any]:
    page = container.execution_store().list_executions(ListScope.ALL, None, 100, None)
    details = container.get_execution_details()
    # the export carries a run's records, not its output files: results' texts stay behind
    return [
        _without_result_texts(
            details.execute(GetExecutionDetailsQuery(workflow_execution_id=e.workflow_execution_id))
        )
        for e in page.items
    ]


def _without_result_texts(details: ExecutionDetails) -> ExecutionDetails:
    steps = tuple(step.model_copy(update={"result_texts": ()}) for step in details.steps)
    return details.model_copy(update={"steps": steps})


@then("the other store lists and shows every run as this one does")
def _(container: Container, moved: tuple[Container, list[ArchivedRun]]) -> None:
    other, _ = moved
    assert _shown(other) == _shown(container)


@then("importing the export again into the other store writes nothing new")
def _(moved: tuple[Container, list[ArchivedRun]]) -> None:
    other, exported = moved
    again = other.import_executions().execute(exported)
    assert (again.items_written, again.conflicts) == (0, ())
    assert again.items_unchanged == sum(len(run.items) for run in exported)


@given(parsers.parse('run "{label}" lost its global-list partition'))
def _(container: Container, storage: str, world: World, label: str) -> None:
    execution = container.execution_store().get_execution(world.run(label))
    if storage == "sqlite":
        with container.sqlite_database().write() as connection:
            connection.execute(
                'UPDATE "WorkflowExecutionsStorageTableV2" SET "allListPartition" = NULL, '
                "item = json_remove(item, '$.\"allListPartition\"') "
                'WHERE "workflowExecutionId" = ?',
                (execution.workflow_execution_id,),
            )
        return
    container.dynamodb_client().update_item(
        TableName=container.tables().get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS),
        Key={
            "workflowExecutionId": {"S": execution.workflow_execution_id},
            "workflowDatabaseId:workflowId": {"S": execution.workflow_key},
        },
        UpdateExpression="REMOVE allListPartition",
    )


@when("the global-list partition is backfilled")
def _(container: Container) -> None:
    result = container.backfill_list_partition().execute(BackfillListPartitionCommand())
    assert result.stamped == 1


@then("backfilling again stamps nothing")
def _(container: Container) -> None:
    result = container.backfill_list_partition().execute(BackfillListPartitionCommand())
    assert (result.stamped, result.missing) == (0, 0)
