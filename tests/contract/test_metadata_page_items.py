"""details/metadata's items are the details document's (both stores): a collection's first page
holds the same items, key for key, as the details answer shows, so a client paging on after the
details reads one shape. The keys are VAMS 2.6's (executionService's scrubbed rows, each with the
`pipelineId` of its step) and wfx's `pipelineExecutionId` beside them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adapters.system import SystemClock
from application.ports.executions import ExecutionStore
from application.use_cases.get_execution_details import (
    GetExecutionDetails,
    GetExecutionDetailsQuery,
)
from application.use_cases.get_execution_metadata import (
    GetExecutionMetadata,
    GetExecutionMetadataQuery,
)
from domain.execution import StepInputMetadata
from entrypoints.metadata_page import MetadataPage
from entrypoints.vams_details import VamsDetailsAnswer
from tests.contract.builders import a_launch, some_outputs, step_id, write_launch

RUN = "r1"
INPUTS = (("db1:asset1", "a.obj"), ("db1:asset1", "b.obj"), ("db1:asset1", "c.obj"))
INPUT_METADATA = {"databaseId", "assetId", "filePath", "scope", "metadata", "attributes"}
OUTPUT_METADATA = {"targetFilePath", "metadataKey", "metadataValue"}
# with the output asset named beside each file (VAMS's enrichment) and wfx's etag and attempt
OUTPUT_FILE = {"relativeFilePath", "fileType", "fileSize", "contentType", "s3VersionId"}
OUTPUT_FILE |= {"databaseId", "assetId"}
OUTPUT_FILE |= {"etag", "attempt"}
INPUT_FILE = {"databaseId", "assetId", "inputAssetFileKey", "versionId"}
OF_A_STEP = {"pipelineId", "pipelineExecutionId"}

Document = dict[str, Any]


@pytest.fixture
def store(execution_store: ExecutionStore) -> ExecutionStore:
    launch = a_launch(RUN, inputs=INPUTS, steps=2)
    # each step also read a metadata source database's own metadata (VAMS's inputDatabase)
    database_rows = tuple(
        StepInputMetadata(
            pipeline_execution_id=step.pipeline_execution_id,
            workflow_execution_id=RUN,
            database_id="db1",
            asset_id="",
            file_path="/",
            metadata=(("owner", "lab"),),
            scope="database",
        )
        for step in launch.steps
    )
    write_launch(
        execution_store,
        launch.model_copy(update={"step_metadata": launch.step_metadata + database_rows}),
    )
    for index in range(2):
        outputs = some_outputs(RUN, index)
        faces = outputs.metadata[0]
        vertices = faces.model_copy(update={"metadata_key": "vertices"})
        mesh = outputs.files[0]
        files = (mesh, mesh.model_copy(update={"relative_file_path": "mesh.obj"}))
        execution_store.add_step_outputs(
            outputs.model_copy(update={"metadata": (faces, vertices), "files": files})
        )
    return execution_store


def _details(store: ExecutionStore) -> Document:
    query = GetExecutionDetailsQuery(workflow_execution_id=RUN)
    details = GetExecutionDetails(store, clock=SystemClock()).execute(query)
    message: Document = VamsDetailsAnswer.of(details).dump()["message"]
    return message


def _page(store: ExecutionStore, collection: str, size: int = 100) -> Document:
    query = GetExecutionMetadataQuery(
        workflow_execution_id=RUN, collection=collection, max_items=size
    )
    return MetadataPage.of(GetExecutionMetadata(store).execute(query), collection).dump()


def _of_step(index: int, rows: list[Document]) -> list[Document]:
    return [row for row in rows if row["pipelineExecutionId"] == step_id(RUN, index)]


COLLECTIONS: dict[str, tuple[Callable[[Document], list[Document]], set[str]]] = {
    "input": (lambda d: d["inputMetadata"], INPUT_METADATA | OF_A_STEP),
    "inputDatabase": (lambda d: d["inputDatabaseMetadata"], INPUT_METADATA | OF_A_STEP),
    "output": (lambda d: d["outputs"]["metadata"], OUTPUT_METADATA | OF_A_STEP),
    "inputSelections": (lambda d: d["inputFiles"], INPUT_FILE),
    # a step's own, as truncatedCollectionPages names them: the same rows of that step
    f"pipelineExecutions[{step_id(RUN, 1)}].inputMetadata": (
        # the table's rows in key order: the database's own ("db1::/") before its asset's
        lambda d: _of_step(1, d["inputDatabaseMetadata"] + d["inputMetadata"]),
        INPUT_METADATA | OF_A_STEP,
    ),
    f"pipelineExecutions[{step_id(RUN, 1)}].outputFiles": (
        lambda d: _of_step(1, d["outputs"]["files"]),
        OUTPUT_FILE | OF_A_STEP,
    ),
    f"pipelineExecutions[{step_id(RUN, 1)}].outputMetadata": (
        lambda d: _of_step(1, d["outputs"]["metadata"]),
        OUTPUT_METADATA | OF_A_STEP,
    ),
}


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_a_collection_s_first_page_holds_the_details_items(
    store: ExecutionStore, collection: str
) -> None:
    in_details, keys = COLLECTIONS[collection]
    shown = in_details(_details(store))
    assert len(shown) >= 2, shown  # a collection with rows, and more than one short page holds

    first = _page(store, collection)
    assert first["Items"] == shown
    assert "NextToken" not in first
    assert [set(item) for item in first["Items"]] == [keys] * len(shown)

    short = _page(store, collection, size=1)
    assert short["Items"] == shown[:1]
    assert "NextToken" in short


def test_a_page_names_each_row_s_pipeline(store: ExecutionStore) -> None:
    items = _page(store, "input")["Items"]
    assert [(item["pipelineId"], item["pipelineExecutionId"]) for item in items] == [
        (f"pipe{index}", step_id(RUN, index)) for index in range(2) for _ in INPUTS
    ]
    assert {item["scope"] for item in _page(store, "inputDatabase")["Items"]} == {"database"}
