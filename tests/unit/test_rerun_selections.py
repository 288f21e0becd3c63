"""The selection a rerun launches again, from each form an input row takes (VAMS's bucket-relative
keys with one leading `/`, wfx 0.1's asset-relative ones)."""

from __future__ import annotations

import pytest

from application.use_cases.rerun_execution import selection_of
from domain.execution import ExecutionInput


@pytest.mark.parametrize(
    ("key", "root", "selection"),
    [
        ("/asset-a/bunny.obj", "asset-a/", "db/asset-a/bunny.obj"),  # VAMS: a file
        ("/asset-a/meshes/", "asset-a/", "db/asset-a/meshes/"),  # VAMS: a folder
        ("/asset-a/", "asset-a/", "db/asset-a"),  # VAMS: the whole asset
        ("/", "asset-a/", "db/asset-a"),  # VAMS: the whole asset, as its request names it
        ("meshes/bunny.obj", "assets/db/asset-a/", "db/asset-a/meshes/bunny.obj"),  # wfx 0.1
    ],
)
def test_an_input_row_gives_back_the_selection_it_records(
    key: str, root: str, selection: str
) -> None:
    row = ExecutionInput(
        workflow_execution_id="e",
        workflow_key="db:wf",
        database_id="db",
        asset_id="asset-a",
        input_asset_file_key=key,
        bucket="b",
        asset_root_key=root,
        version_id="",
        execution_start_date="2026-11-30T10:00:00Z",
    )

    assert selection_of(row) == selection
