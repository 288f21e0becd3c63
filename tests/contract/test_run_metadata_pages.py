"""details/metadata's VAMS collections on every store: `input` and `output` page every step's
rows in chain order (or one pipeline's), across step boundaries, each with its step;
`inputDatabase` is empty."""

from __future__ import annotations

import pytest

from application.ports.executions import ExecutionStore, RowCollection
from application.run_metadata_pages import StepRow, row_text_size
from application.use_cases.get_execution_metadata import (
    GetExecutionMetadata,
    GetExecutionMetadataQuery,
)
from domain.errors import InvalidInputError
from domain.execution import OutputMetadata, StepInputMetadata
from domain.paging import PAGE_TEXT_BUDGET
from tests.contract.builders import a_launch, some_outputs, step_id, write_launch

RUN = "m1"
# three input files: each of the three steps gets a metadata row for each
INPUTS = (("db1:asset1", "a.obj"), ("db1:asset1", "b.obj"), ("db1:asset1", "c.obj"))


@pytest.fixture
def store(execution_store: ExecutionStore) -> ExecutionStore:
    write_launch(execution_store, a_launch(RUN, inputs=INPUTS, steps=3))
    for index in range(3):
        execution_store.add_step_outputs(some_outputs(RUN, index))
    return execution_store


def _walk(
    store: ExecutionStore, text_budget: int = PAGE_TEXT_BUDGET, **query: object
) -> list[list[tuple[str, str]]]:
    read = GetExecutionMetadata(store, text_budget=text_budget)
    pages: list[list[tuple[str, str]]] = []
    token: str | None = None
    while True:
        page = read.execute(
            GetExecutionMetadataQuery(workflow_execution_id=RUN, starting_token=token, **query)
        )
        pages.append(
            [
                (item.step.pipeline_execution_id, item.row.row_key)
                for item in page.items
                if isinstance(item, StepRow)
                and isinstance(item.row, StepInputMetadata | OutputMetadata)
                # each row comes with the step it belongs to
                and item.row.pipeline_execution_id == item.step.pipeline_execution_id
            ]
        )
        assert len(pages[-1]) == len(page.items)
        token = page.next_token
        if token is None:
            return pages
        assert len(pages) < 20, "the collection never ends"


def test_input_pages_every_step_s_rows_across_steps(store: ExecutionStore) -> None:
    every = [(step_id(RUN, i), f"db1:asset1:/{name}.obj") for i in range(3) for name in "abc"]
    assert [
        row for page in _walk(store, collection="input", max_items=100) for row in page
    ] == every
    pages = _walk(store, collection="input", max_items=2)
    assert [row for page in pages for row in page] == every
    assert all(len(page) == 2 for page in pages[:-1])


def test_a_page_holds_no_more_row_text_than_its_budget_and_still_moves_on(
    store: ExecutionStore,
) -> None:
    """VAMS caps a metadata page's rows at 4 MiB so that the answer fits a Lambda's: pages of a
    smaller budget hold what fits, cut inside a step or at its start, and lose no row."""
    every = [(step_id(RUN, i), f"db1:asset1:/{name}.obj") for i in range(3) for name in "abc"]
    rows = store.list_rows(RowCollection.INPUT_METADATA, step_id(RUN, 0), None, 10)
    size = max(row_text_size(row) for row in rows)
    for budget in (1, size * 2 + size // 2, size * 4):
        pages = _walk(store, text_budget=budget, collection="input", max_items=100)
        assert [row for page in pages for row in page] == every, budget
        assert max(len(page) for page in pages) == max(1, budget // size), budget
        # one step's rows paged alone are cut the same way
        step_pages = _walk(
            store,
            text_budget=budget,
            collection=f"pipelineExecutions[{step_id(RUN, 0)}].inputMetadata",
            max_items=100,
        )
        assert [row for page in step_pages for row in page] == every[:3], budget
        assert max(len(page) for page in step_pages) == min(3, max(1, budget // size)), budget


def test_pipeline_id_keeps_that_pipeline_s_rows(store: ExecutionStore) -> None:
    rows = [row for page in _walk(store, collection="output", pipeline_id="pipe1") for row in page]
    assert [step for step, _ in rows] == [step_id(RUN, 1)]
    assert _walk(store, collection="output", pipeline_id="nope") == [[]]


def test_input_database_is_empty(store: ExecutionStore) -> None:
    assert _walk(store, collection="inputDatabase") == [[]]


def test_a_token_of_another_collection_is_refused(store: ExecutionStore) -> None:
    read = GetExecutionMetadata(store)
    first = read.execute(
        GetExecutionMetadataQuery(workflow_execution_id=RUN, collection="input", max_items=1)
    )
    assert first.next_token is not None
    for query in ({"collection": "output"}, {"collection": "input", "pipeline_id": "pipe0"}):
        with pytest.raises(InvalidInputError, match="startingToken"):
            read.execute(
                GetExecutionMetadataQuery(
                    workflow_execution_id=RUN, starting_token=first.next_token, **query
                )
            )
    with pytest.raises(InvalidInputError, match="pipelineId"):
        read.execute(
            GetExecutionMetadataQuery(
                workflow_execution_id=RUN, collection="inputs", pipeline_id="p"
            )
        )
