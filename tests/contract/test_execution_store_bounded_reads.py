"""Bounded reads of a run's row collections: get_details(row_limit) and list_rows paging."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from adapters.output_records import (
    build_artifact_record,
    build_output_file_record,
    build_output_metadata_record,
    build_output_result_record,
    build_step_log_record,
)
from adapters.records import Item
from adapters.row_collections import ROW_TABLES
from adapters.run_records import (
    build_execution_input_record,
    build_input_selection_record,
    parse_execution_input_record,
)
from adapters.step_records import build_step_input_metadata_record
from adapters.tables import TABLE_SPECS
from application.ports.executions import ExecutionStore, Row, RowCollection
from domain.execution import OutputFile, StepOutputs
from tests.contract.builders import a_launch, some_outputs, step_id, write_launch

# Keys that sort differently by byte than by insertion order, with a shared prefix and a colon.
FILE_KEYS = [f"scan-{n:02d}.obj" for n in (7, 3, 11, 0, 5, 9, 1)] + ["scan:extra.obj", "Zed.obj"]


@pytest.fixture
def wide_run(execution_store: ExecutionStore) -> ExecutionStore:
    """Run r1: nine inputs, and nine output files on its first step."""
    launch = a_launch("r1", inputs=[("db1:asset1", key) for key in FILE_KEYS])
    write_launch(execution_store, launch)
    template = some_outputs("r1", 0).files[0]
    files = tuple(
        template.model_copy(update={"relative_file_path": f"mesh-{key}"}) for key in FILE_KEYS
    )
    execution_store.add_step_outputs(StepOutputs(files=files))
    return execution_store


def every_page(
    store: ExecutionStore, collection: RowCollection, partition: str, limit: int
) -> list[list[Row]]:
    pages: list[list[Row]] = []
    after: str | None = None
    while True:
        page = store.list_rows(collection, partition, after, limit)
        pages.append(page)
        if len(page) < limit:
            return pages
        after = page[-1].row_key


def test_list_rows_pages_every_input_once_in_sort_key_order(wide_run: ExecutionStore) -> None:
    pages = every_page(wide_run, RowCollection.INPUTS, "r1", 4)

    keys = [row.row_key for page in pages for row in page]
    assert [len(page) for page in pages] == [4, 4, 1]
    assert keys == sorted(f"db1:asset1:{key}" for key in FILE_KEYS)


def test_list_rows_pages_a_steps_output_files(wide_run: ExecutionStore) -> None:
    pages = every_page(wide_run, RowCollection.OUTPUT_FILES, step_id("r1", 0), 5)

    rows = [row for page in pages for row in page]
    assert all(isinstance(row, OutputFile) for row in rows)
    assert [row.row_key for row in rows] == sorted(f"file:mesh-{key}" for key in FILE_KEYS)


def test_list_rows_of_an_unknown_partition_is_empty(wide_run: ExecutionStore) -> None:
    assert wide_run.list_rows(RowCollection.LOGS, "no-such-step", None, 10) == []


def test_details_with_a_row_limit_hold_the_first_rows_by_sort_key(
    wide_run: ExecutionStore,
) -> None:
    details = wide_run.get_details("r1", row_limit=3)

    assert [row.row_key for row in details.inputs] == sorted(
        f"db1:asset1:{key}" for key in FILE_KEYS
    )[:3]
    first = details.steps[0] if details.steps[0].step.step_index == 0 else details.steps[1]
    assert [f.row_key for f in first.outputs.files] == sorted(
        f"file:mesh-{key}" for key in FILE_KEYS
    )[:3]
    assert len(first.input_metadata) == 3
    assert first.configuration is not None  # a single row: never bounded


def test_details_without_a_row_limit_hold_every_row(wide_run: ExecutionStore) -> None:
    details = wide_run.get_details("r1")

    assert len(details.inputs) == len(FILE_KEYS)


def test_the_row_key_is_the_stored_sort_key() -> None:
    """The domain's paging cursor and the record's sort key must never drift apart."""
    launch = a_launch("r1")
    outputs = some_outputs("r1", 0)
    selection = build_input_selection_record(launch.selections[0])
    cases: list[tuple[RowCollection, Any, Callable[[Any], Item]]] = [
        (RowCollection.INPUTS, launch.inputs[0], build_execution_input_record),
        # a selection is read back as an input row: its key is the stored one
        (
            RowCollection.SELECTIONS,
            parse_execution_input_record(selection),
            lambda _: selection,
        ),
        (RowCollection.INPUT_METADATA, launch.step_metadata[0], build_step_input_metadata_record),
        (RowCollection.OUTPUT_FILES, outputs.files[0], build_output_file_record),
        (RowCollection.OUTPUT_METADATA, outputs.metadata[0], build_output_metadata_record),
        (RowCollection.OUTPUT_RESULTS, outputs.results[0], build_output_result_record),
        (RowCollection.LOGS, outputs.logs[0], build_step_log_record),
        (RowCollection.ARTIFACTS, outputs.artifacts[0], build_artifact_record),
    ]
    assert {collection for collection, _, _ in cases} == set(RowCollection)
    for collection, row, build in cases:
        sort = TABLE_SPECS[ROW_TABLES[collection]].sort
        assert sort is not None
        assert row.row_key == build(row)[sort.name]
