"""The details list the run's selections as the launch stored them (VAMS's `inputFiles`), read
from the selections' own table: a selection is never lost behind the bound on resolved files."""

from __future__ import annotations

from application.detail_bounds import bound_details
from application.detail_collections import MAX_INPUTS, ROW_READ_LIMIT
from application.ports.executions import ExecutionStore
from application.use_cases.get_execution_metadata import (
    GetExecutionMetadata,
    GetExecutionMetadataQuery,
)
from domain.execution import ExecutionInput, InputSelection, selection_file_key
from entrypoints.vams_details import VamsExecutionDetails
from tests.contract.builders import a_launch, a_selection, write_launch


def _folder(row: InputSelection, folder: str | None) -> InputSelection:
    """The selection of `folder` (None: the whole asset) in the asset `row` names."""
    key = selection_file_key(row.asset_root_key, folder)
    return row.model_copy(update={"input_asset_file_key": key, "version_id": ""})


def test_a_run_of_more_files_than_the_bound_keeps_both_its_selections(
    execution_store: ExecutionStore,
) -> None:
    files = [("db1:asset1", f"scans/s-{n:03d}.obj") for n in range(120)]
    files += [("db1:asset2", f"m-{n:03d}.glb") for n in range(40)]
    launch = a_launch("r1", inputs=files)
    execution = launch.execution
    selections = (
        _folder(a_selection(execution, "db1:asset1", "x"), "scans/"),
        _folder(a_selection(execution, "db1:asset2", "x"), None),
    )
    # each file names the selection it was resolved from, as a launch records it
    by_asset = {row.asset_id: row.input_asset_file_key for row in selections}
    inputs = tuple(
        row.model_copy(update={"selection_key": by_asset[row.asset_id]}) for row in launch.inputs
    )
    write_launch(
        execution_store, launch.model_copy(update={"selections": selections, "inputs": inputs})
    )

    read = execution_store.get_details("r1", row_limit=ROW_READ_LIMIT)
    assert len(read.inputs) == ROW_READ_LIMIT  # the resolved files: one past their bound
    document = VamsExecutionDetails.of(bound_details(read)).dump()

    assert [
        (f["assetId"], f["inputAssetFileKey"], f["versionId"]) for f in document["inputFiles"]
    ] == [
        ("asset1", "/assets/db1/asset1/scans/", ""),
        ("asset2", "/assets/db1/asset2/", ""),
    ]
    # what was cut is the resolved files, wfx's own list, not VAMS's inputFiles
    cut = document["truncatedCollections"]
    assert "resolvedInputFiles" in cut and "inputFiles" not in cut
    assert len(document["resolvedInputFiles"]) == MAX_INPUTS


def test_selections_past_the_bound_are_cut_and_named(execution_store: ExecutionStore) -> None:
    files = [("db1:asset1", f"f-{n:03d}.obj") for n in range(MAX_INPUTS + 5)]
    write_launch(execution_store, a_launch("r1", inputs=files))

    read = execution_store.get_details("r1", row_limit=ROW_READ_LIMIT)
    assert len(read.selections) == ROW_READ_LIMIT  # one past the bound: more exist
    bounded = bound_details(read)
    document = VamsExecutionDetails.of(bounded).dump()

    keys = [f["inputAssetFileKey"] for f in document["inputFiles"]]
    assert keys == [f"/assets/db1/asset1/f-{n:03d}.obj" for n in range(MAX_INPUTS)]
    assert {"inputFiles", "resolvedInputFiles"} <= set(document["truncatedCollections"])
    # seed 000: what was cut pages on through details/metadata, from where the answer stopped
    [cut] = [c for c in bounded.truncated_collections if c.collection == "inputSelections"]
    query = GetExecutionMetadataQuery(
        workflow_execution_id="r1", collection=cut.collection, starting_token=cut.next_token
    )
    rest = GetExecutionMetadata(execution_store).execute(query)
    assert [row.input_asset_file_key for row in rest.items if isinstance(row, ExecutionInput)] == [
        f"/assets/db1/asset1/f-{n:03d}.obj" for n in range(MAX_INPUTS, MAX_INPUTS + 5)
    ]
    assert rest.next_token is None


def test_without_a_row_limit_every_selection_is_read(execution_store: ExecutionStore) -> None:
    files = [("db1:asset1", f"f-{n:03d}.obj") for n in range(7)]
    write_launch(execution_store, a_launch("r1", inputs=files))

    assert len(execution_store.get_details("r1").selections) == 7
