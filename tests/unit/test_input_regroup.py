"""An earlier run's file rows regroup into the rows a launch writes now: one per selection in
VAMS's inputs table, every file (as it was, naming its selection) in wfx's own."""

from __future__ import annotations

from typing import Any

from adapters.input_regroup import is_earlier_input_row, regroup_inputs

ROOT = "assets/db/a/"


def _earlier(file_key: str) -> dict[str, Any]:
    """A row as wfx 0.1/0.2 wrote it: one per file, asset-relative key, always a version."""
    return {
        "workflowExecutionId": "run-1",
        "databaseId:assetId:inputAssetFileKey": f"db:a:{file_key}",
        "databaseId:assetId": "db:a",
        "executionStartDate": "2026-12-03T09:43:01.938726Z",
        "workflowDatabaseId:workflowId": "wfdb:wf",
        "databaseId": "db",
        "assetId": "a",
        "inputAssetFileKey": file_key,
        "s3Bucket": "bucket",
        "assetRootS3Key": ROOT,
        "versionId": f"v-{file_key}",
    }


def _keys(rows: tuple[dict[str, Any], ...]) -> dict[str, str]:
    return {row["inputAssetFileKey"]: row["versionId"] for row in rows}


def test_a_folder_and_a_file_in_it_are_two_selections_and_each_file_is_kept_once() -> None:
    rows = [_earlier("parts/x.obj"), _earlier("parts/y.obj")]

    regrouped = regroup_inputs(rows, ["db/a/parts/", "db/a/parts/x.obj"])

    assert _keys(regrouped.selections) == {
        f"/{ROOT}parts/": "",
        f"/{ROOT}parts/x.obj": "v-parts/x.obj",
    }
    for selection in regrouped.selections:
        assert (selection["workflowDatabaseId"], selection["workflowId"]) == ("wfdb", "wf")
        assert selection["executionStartDate"] == "2026-12-03T09:43:01Z"
        assert not is_earlier_input_row(selection)
    # the first selection naming a file is the one it came from, as the launch had it
    assert [row["selectionKey"] for row in regrouped.resolved] == [f"/{ROOT}parts/"] * 2
    assert [{k: v for k, v in r.items() if k != "selectionKey"} for r in regrouped.resolved] == rows


def test_with_no_selection_named_each_file_is_a_selection_of_its_own() -> None:
    regrouped = regroup_inputs([_earlier("x.obj"), _earlier("y.obj")], [])

    assert _keys(regrouped.selections) == {f"/{ROOT}x.obj": "v-x.obj", f"/{ROOT}y.obj": "v-y.obj"}


def test_a_whole_asset_selection_is_its_root() -> None:
    regrouped = regroup_inputs([_earlier("x.obj"), _earlier("y.obj")], ["db/a"])

    assert _keys(regrouped.selections) == {f"/{ROOT}": ""}
    assert [row["databaseId:assetId:inputAssetFileKey"] for row in regrouped.selections] == [
        f"db:a:/{ROOT}"
    ]
