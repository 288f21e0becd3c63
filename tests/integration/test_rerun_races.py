"""A rerun racing a permanent delete of the run it reruns, on SQLite (a file) and DynamoDB (moto).

The delete is injected between the rerun's read of the run (ended, so it may be rerun) and its
launch: the rows the rerun then reads to rebuild the launch are gone, and a launch made of
them would be a new run with no inputs. It must be refused, and write nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import wfx_examples
import yaml

from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.tables import ResourceKeys
from application.ports.executions import ExecutionStore, RowCollection
from application.use_cases.delete_execution import DeleteExecutionCommand
from application.use_cases.get_execution import GetExecution, GetExecutionQuery
from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.use_cases.rerun_execution import RerunExecution, RerunExecutionCommand
from application.workflow_documents import parse_workflow_document
from domain.errors import ExecutionNotFoundError
from domain.execution import WorkflowExecution
from domain.run_write import RunWrite
from tests.contract.builders import a_launch, write_launch
from tests.integration.stored_items import stored_items

MESH = Path(wfx_examples.__file__).parent / "mesh"


class _DeletedAfterTheRead(GetExecution):
    """GetExecution, after whose read another process deletes the run for good."""

    def __init__(self, container: Any) -> None:  # every read goes to the container's own
        self._container = container

    def execute(self, query: GetExecutionQuery) -> WorkflowExecution:
        execution: WorkflowExecution = self._container.get_execution().execute(query)
        self._container.delete_execution().execute(
            DeleteExecutionCommand(workflow_execution_id=query.workflow_execution_id)
        )
        return execution


class _DeletedAfterTheConfiguration:
    """The execution store, through which another process deletes the run for good once the
    rerun has read its configuration, before its input rows and its main row."""

    def __init__(self, container: Any) -> None:
        self._container, self._store = container, container.execution_store()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get_configuration(self, workflow_execution_id: str) -> Any:
        configuration = self._store.get_configuration(workflow_execution_id)
        self._container.delete_execution().execute(
            DeleteExecutionCommand(workflow_execution_id=workflow_execution_id)
        )
        return configuration


def _ended_run(container: Any) -> str:
    document = parse_workflow_document(yaml.safe_load((MESH / "workflow.yaml").read_text()))
    container.publish_workflow_version().execute(PublishWorkflowVersionCommand(document=document))
    container.import_asset_files().execute(
        ImportAssetFilesCommand(
            database_id="demo",
            asset_id="scans",
            files=(ImportedFile(file_key="a.obj", path=MESH / "assets" / "icosphere.obj"),),
        )
    )
    command = LaunchExecutionCommand(
        workflow_database_id="demo",
        workflow_id="mesh-report",
        inputs=("demo/scans/a.obj",),
        output="demo/reports",
        user_id="alice",
    )
    run = container.launch_execution().execute(command).execution
    assert container.execution_store().get_execution(run.workflow_execution_id).is_terminal
    return str(run.workflow_execution_id)


def test_a_run_deleted_between_the_rerun_s_read_and_its_launch_is_not_rerun(
    inline_container: Any,
) -> None:
    container = inline_container
    run_id = _ended_run(container)
    rerun = RerunExecution(
        _DeletedAfterTheRead(container), container.execution_store(), container.launch_execution()
    )

    with pytest.raises(ExecutionNotFoundError, match=run_id):
        rerun.execute(RerunExecutionCommand(workflow_execution_id=run_id, user_id="alice"))

    _nothing_stored(container)


def test_a_run_deleted_while_the_rerun_reads_its_rows_is_not_rerun(inline_container: Any) -> None:
    container = inline_container
    run_id = _ended_run(container)
    rerun = RerunExecution(
        container.get_execution(),
        _DeletedAfterTheConfiguration(container),
        container.launch_execution(),
    )

    with pytest.raises(ExecutionNotFoundError, match=run_id):
        rerun.execute(RerunExecutionCommand(workflow_execution_id=run_id, user_id="alice"))

    _nothing_stored(container)


def _nothing_stored(container: Any) -> None:
    for table in (
        ResourceKeys.WORKFLOW_EXECUTIONS,
        ResourceKeys.WORKFLOW_EXECUTION_INPUTS,
        ResourceKeys.PIPELINE_EXECUTIONS,
    ):
        assert stored_items(container, table) == [], table


@pytest.mark.parametrize("backend", ["sqlite_file", "dynamodb"])
def test_a_rerun_s_launch_holds_only_while_the_run_it_reruns_is_there(
    request: pytest.FixtureRequest, backend: str
) -> None:
    """Through the ports: the run is deleted by another process (on DynamoDB another store,
    which shares none of this one's kept keys) after this store has seen it."""
    store: ExecutionStore = request.getfixturevalue(f"{backend}_execution_store")
    other = store
    if backend == "dynamodb":
        client = request.getfixturevalue("moto_dynamodb_client")
        other = DynamoDbExecutionStore(client, request.getfixturevalue("dynamodb_table_names"))
    write_launch(store, a_launch("original"))
    other.delete_execution("original")
    records = a_launch("rerun")
    execution = records.execution.model_copy(update={"rerun_of_execution_id": "original"})

    with pytest.raises(ExecutionNotFoundError, match="original"):
        store.commit(RunWrite.launched(records._replace(execution=execution)))

    with pytest.raises(ExecutionNotFoundError):
        store.get_execution("rerun")
    assert store.list_rows(RowCollection.INPUTS, "rerun", None, 10) == []
