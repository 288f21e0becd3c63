"""Stores an earlier wfx wrote (tests/fixtures/wfx_0_1: made at a231dab, before the items took
VAMS 2.6's shapes) move forward losing nothing: SQLite when the file is first opened, a copy kept
beside it; DynamoDB through `wfx migrate items`, resumable and guarded against another writer."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from adapters.dynamodb.codec import from_wire
from adapters.dynamodb.item_upgrade import DynamoDbItemShapes
from adapters.input_regroup import is_earlier_input_row
from adapters.item_shapes_version import ITEM_SHAPES_VERSION
from adapters.item_upgrade import UPGRADED_TABLES, upgraded_item
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.item_upgrade import SqliteItemShapes, backup_path, upgrade_items
from adapters.sqlite.schema import build_schema
from adapters.step_records import EARLIER_STEP_NAMES
from adapters.tables import NOT_CREATED, TABLES, ResourceKeys, TableNames
from application.ports.executions import ListScope
from tests import vams_items as vams

FIXTURES = Path(__file__).parents[1] / "fixtures" / "wfx_0_1"
TABLE_DATE = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
# what the fixture's five runs are, as `wfx executions list` showed them when they were made
RUNS = {
    "mesh-report": ["SUCCEEDED", "SUCCEEDED"],
    "failing": ["FAILED"],
    "registering": ["SUCCEEDED"],
    "sleeping": ["ABORTED"],
}


def _sqlite_items(path: Path) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    with sqlite3.connect(path) as connection:
        for spec in TABLES:
            name = TableNames().get_table_name(spec.key)
            if connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
            ).fetchone():
                rows = connection.execute(f'SELECT item FROM "{name}"').fetchall()
                found[spec.key.value] = [json.loads(text) for (text,) in rows]
    return found


def _summary(store: Any) -> dict[str, list[str]]:
    """Each workflow's runs' statuses, newest first, and each run's steps in chain order."""
    page = store.list_executions(ListScope.ALL, None, 50, None)
    runs: dict[str, list[str]] = {}
    for execution in page.items:
        runs.setdefault(execution.workflow_id, []).append(execution.status.value)
        steps = store.list_steps(execution.workflow_execution_id)
        assert [s.step_index for s in steps] == list(range(len(steps)))
        assert steps[0].from_pipeline_execution_id is None
    return runs


def _a_table_date_or_empty(text: str) -> bool:
    return text == "" or re.fullmatch(TABLE_DATE, text) is not None


def _assert_current_shapes(items: dict[str, list[dict[str, Any]]]) -> None:
    for step in items[ResourceKeys.PIPELINE_EXECUTIONS.value]:
        assert not set(EARLIER_STEP_NAMES.values()) & set(step)
        assert step["executionStatus"] in {"NEW", "SUCCEEDED", "FAILED", "ABORTED"}
        assert _a_table_date_or_empty(step["executionStartDate"])
        assert _a_table_date_or_empty(step["executionStopDate"])
    for main in items[ResourceKeys.WORKFLOW_EXECUTIONS.value]:
        for empty in ("workflow_arn", "workflow_execution_arn", "executionLogGroupArn"):
            assert main[empty] == ""
        assert "stateMachineArn" not in main and "executionArn" not in main
        assert re.fullmatch(TABLE_DATE, main["executionStartDate"])
        assert re.fullmatch(TABLE_DATE, main["executionStopDate"])  # all five have ended
    for output in items[ResourceKeys.PIPELINE_OUTPUT_FILES.value]:
        # a preview's path relative to the previews, as VAMS records it; the key follows
        path = output["relativeFilePath"]
        assert not path.startswith(f"{output['fileType']}/")
        assert output["fileType:relativeFilePath"] == f"{output['fileType']}:{path}"
        assert output["s3Key"].endswith(
            f"/output/{output['fileType']}/{path}".replace("/file/", "/")
        )
    for result in items[ResourceKeys.PIPELINE_OUTPUT_RESULTS.value]:
        assert result["relativeFilePath"].startswith("/")
        assert result["s3Key"].endswith(f"/output{result['relativeFilePath']}")
    for metadata in items[ResourceKeys.PIPELINE_OUTPUT_METADATA.value]:
        target = metadata["targetFilePath"]
        assert target.startswith("/") and not target.startswith("//")
        assert metadata["targetFilePath:metadataKey"] == f"{target}:{metadata['metadataKey']}"
        assert metadata["sourceMetadataFileRelativePath"].endswith(f"/output/metadata{target}.json")


INPUTS = ResourceKeys.WORKFLOW_EXECUTION_INPUTS.value
RESOLVED = ResourceKeys.RESOLVED_INPUT_FILES.value


def _selection_rows(before: dict[str, list[dict[str, Any]]]) -> set[tuple[str, str, str]]:
    """VAMS's rows for the fixture's selections (a whole asset `demo/scans`, its file
    `bunny.obj`): (run, sort key, version), a file keeping its version, the asset none."""
    rows = set()
    for configuration in before[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION.value]:
        run = configuration["workflowExecutionId"]
        for text in configuration["inputSelections"]:
            assert text in ("demo/scans", "demo/scans/bunny.obj")
            file_key = text.removeprefix("demo/scans").lstrip("/")
            version = next(
                (
                    row["versionId"]
                    for row in before[INPUTS]
                    if row["workflowExecutionId"] == run and row["inputAssetFileKey"] == file_key
                ),
                "",
            )
            rows.add((run, f"demo:scans:/assets/demo/scans/{file_key}", version))
    assert {version == "" for _, _, version in rows} == {True, False}  # both kinds
    return rows


def _assert_inputs_regrouped(
    before: dict[str, list[dict[str, Any]]], after: dict[str, list[dict[str, Any]]]
) -> None:
    """Every earlier input row is in wfx's resolved files' table as it was, naming its
    selection; VAMS's table holds one row per selection, in VAMS's shape."""
    selections = after[INPUTS]
    assert {
        (row["workflowExecutionId"], row["databaseId:assetId:inputAssetFileKey"], row["versionId"])
        for row in selections
    } == _selection_rows(before)
    for row in selections:
        assert row["inputAssetFileKey"].startswith("/assets/demo/scans/")
        assert (row["workflowDatabaseId"], row["workflowId"]) == ("demo", "mesh-report")
        assert re.fullmatch(TABLE_DATE, row["executionStartDate"])
    named = {(row["workflowExecutionId"], row["inputAssetFileKey"]) for row in selections}
    resolved = after[RESOLVED]
    assert sorted(
        ({k: v for k, v in row.items() if k != "selectionKey"} for row in resolved),
        key=json.dumps,
    ) == sorted(before[INPUTS], key=json.dumps)
    assert all((row["workflowExecutionId"], row["selectionKey"]) in named for row in resolved)


def _assert_details_show_the_resolved_files(
    store: Any, before: dict[str, list[dict[str, Any]]]
) -> None:
    """Each run's details show the files it read, at the versions it read (what its redrive
    reads again), as before the upgrade."""
    for run in {row["workflowExecutionId"] for row in before[INPUTS]}:
        shown = {
            (row.input_asset_file_key, row.version_id) for row in store.get_details(run).inputs
        }
        assert shown == {
            (row["inputAssetFileKey"], row["versionId"])
            for row in before[INPUTS]
            if row["workflowExecutionId"] == run
        }


def _counts_after_regrouping(before: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    counts = {table: len(items) for table, items in before.items()}
    return counts | {INPUTS: len(_selection_rows(before)), RESOLVED: len(before[INPUTS])}


def test_an_earlier_sqlite_file_is_upgraded_when_opened_and_a_copy_kept(tmp_path: Path) -> None:
    path = tmp_path / "wfx.db"
    shutil.copy(FIXTURES / "wfx.db", path)
    before = _sqlite_items(path)

    database = SqliteDatabase(path)
    schema = build_schema(TableNames())
    rewritten = upgrade_items(database, schema)

    after = _sqlite_items(path)
    assert {table: len(items) for table, items in after.items()} == _counts_after_regrouping(before)
    regrouped = len(before[INPUTS])
    assert rewritten == sum(len(before[key.value]) for key in UPGRADED_TABLES) + regrouped
    _assert_current_shapes(after)
    _assert_inputs_regrouped(before, after)
    # the copy is the file as it was
    assert _sqlite_items(backup_path(path)) == before
    # a second open writes nothing; the check finds nothing left
    assert upgrade_items(database, schema) == 0
    assert all(t.rewritten == 0 for t in SqliteItemShapes(database, schema).verify())
    assert _summary(SqliteExecutionStore(database, TableNames())) == RUNS
    _assert_details_show_the_resolved_files(SqliteExecutionStore(database, TableNames()), before)


def test_a_new_sqlite_file_is_marked_current_and_has_no_copy(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "new.db")
    assert upgrade_items(database, build_schema(TableNames())) == 0
    assert not backup_path(tmp_path / "new.db").exists()
    with sqlite3.connect(tmp_path / "new.db") as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == ITEM_SHAPES_VERSION


_LOADED: dict[str, Any] = {}  # moto's tables as the first load in this process left them


def _load_dump(client: Any) -> dict[str, list[dict[str, Any]]]:
    """The dump's items put in the (empty) tables: by the first test of this process, then for
    every later one a copy of the tables that load left (209 puts each, a third of a test)."""
    from conftest import dynamodb_tables_snapshot, restore_dynamodb_tables

    dump = json.loads((FIXTURES / "dynamodb.json").read_text())
    kept = _LOADED.get("tables")
    if kept is not None:
        restore_dynamodb_tables(kept)
    else:
        names = TableNames()
        for key, items in dump.items():
            for item in items:
                client.put_item(TableName=names.get_table_name(ResourceKeys(key)), Item=item)
        _LOADED["tables"] = dynamodb_tables_snapshot()
    return {key: [from_wire(item) for item in items] for key, items in dump.items()}


def _dynamodb_items(client: Any) -> dict[str, list[dict[str, Any]]]:
    names = TableNames()
    found = {}
    for spec in TABLES:
        if spec.key in NOT_CREATED:
            continue
        pages = client.get_paginator("scan").paginate(TableName=names.get_table_name(spec.key))
        items = [from_wire(item) for page in pages for item in page["Items"]]
        if items:
            found[spec.key.value] = items
    return found


def test_earlier_dynamodb_tables_are_upgraded_by_migrate_items(
    moto_dynamodb_tables: Any, dynamodb_execution_store: Any
) -> None:
    before = _load_dump(moto_dynamodb_tables)
    before = {key: items for key, items in before.items() if items}
    read_before = _summary(dynamodb_execution_store)
    shapes = DynamoDbItemShapes(moto_dynamodb_tables, TableNames())

    planned = shapes.upgrade(dry_run=True)
    assert _dynamodb_items(moto_dynamodb_tables) == before  # a dry run writes nothing
    done = shapes.upgrade(dry_run=False)

    assert [t.rewritten for t in done] == [t.rewritten for t in planned]
    assert [t.rewritten for t in done] == [
        *(len(before.get(key.value, [])) for key in UPGRADED_TABLES),
        len(before[INPUTS]),  # the earlier input rows, regrouped
    ]
    after = _dynamodb_items(moto_dynamodb_tables)
    assert {k: len(v) for k, v in after.items()} == _counts_after_regrouping(before)
    _assert_current_shapes(after)
    _assert_inputs_regrouped(before, after)
    for key in set(before) - {k.value for k in UPGRADED_TABLES} - {INPUTS}:
        assert after[key] == before[key]  # wfx's own tables are left as they are
    assert all(t.rewritten == 0 for t in shapes.verify())
    assert all(t.rewritten == 0 for t in shapes.upgrade(dry_run=False))  # resumable: nothing left
    # reads give the same runs before the upgrade (earlier names read) and after
    assert read_before == RUNS
    assert _summary(dynamodb_execution_store) == RUNS
    _assert_details_show_the_resolved_files(dynamodb_execution_store, before)


class _WriterMeanwhile:
    """The client, with another writer changing a step row between the scan and the first
    rewrite of it (what a run still going would do)."""

    def __init__(self, client: Any) -> None:
        self._client, self.struck = client, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def update_item(self, **request: Any) -> Any:
        if not self.struck and request["TableName"].startswith("PipelineExecutionsStorage"):
            self.struck = True
            self._client.update_item(
                TableName=request["TableName"],
                Key=request["Key"],
                UpdateExpression="SET registrationVersion = :v",
                ExpressionAttributeValues={":v": {"N": "7"}},
            )
        return self._client.update_item(**request)


def test_a_row_another_writer_changes_meanwhile_keeps_the_change(
    moto_dynamodb_tables: Any,
) -> None:
    _load_dump(moto_dynamodb_tables)
    client = _WriterMeanwhile(moto_dynamodb_tables)

    done = DynamoDbItemShapes(client, TableNames()).upgrade(dry_run=False)

    assert client.struck and all(t.conflicts == 0 for t in done)
    steps = _dynamodb_items(moto_dynamodb_tables)[ResourceKeys.PIPELINE_EXECUTIONS.value]
    assert [s.get("registrationVersion") for s in steps].count(7) == 1
    assert all(upgraded_item(ResourceKeys.PIPELINE_EXECUTIONS, s) is None for s in steps)


class _WriterBeforeMove:
    """The client, with another writer changing an output file row between the scan and its
    move to its new key."""

    def __init__(self, client: Any) -> None:
        self._client, self.struck = client, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def transact_write_items(self, **request: Any) -> Any:
        delete = request["TransactItems"][1]["Delete"]
        if not self.struck and delete["TableName"].startswith("PipelineExecutionOutputFiles"):
            self.struck = True
            self._client.update_item(
                TableName=delete["TableName"],
                Key=delete["Key"],
                UpdateExpression="SET etag = :e",
                ExpressionAttributeValues={":e": {"S": "written-meanwhile"}},
            )
        return self._client.transact_write_items(**request)


def test_a_row_moving_to_its_new_key_keeps_a_change_made_meanwhile(
    moto_dynamodb_tables: Any,
) -> None:
    before = _load_dump(moto_dynamodb_tables)
    client = _WriterBeforeMove(moto_dynamodb_tables)

    done = DynamoDbItemShapes(client, TableNames()).upgrade(dry_run=False)

    assert client.struck and all(t.conflicts == 0 for t in done)
    files = _dynamodb_items(moto_dynamodb_tables)[ResourceKeys.PIPELINE_OUTPUT_FILES.value]
    assert len(files) == len(before[ResourceKeys.PIPELINE_OUTPUT_FILES.value])
    assert [f["etag"] for f in files].count("written-meanwhile") == 1
    assert all(upgraded_item(ResourceKeys.PIPELINE_OUTPUT_FILES, f) is None for f in files)


def test_rows_vams_wrote_are_never_rewritten() -> None:
    for status, steps in (
        ("SUCCEEDED", ("SUCCEEDED",) * 3),
        ("RUNNING", ("RUNNING", "NEW", "NEW")),
    ):
        for table, items in vams.vams_run(status, steps).items():
            assert all(upgraded_item(table, item) is None for item in items), table
        selections = vams.vams_run(status, steps)[ResourceKeys.WORKFLOW_EXECUTION_INPUTS]
        assert selections and not any(map(is_earlier_input_row, selections))  # never regrouped


class _CutShort:
    """The client, failing the first delete: the upgrade stops after writing a run's regrouped
    rows and before deleting its earlier ones."""

    def __init__(self, client: Any) -> None:
        self._client, self.cut = client, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def delete_item(self, **request: Any) -> Any:
        if not self.cut:
            self.cut = True
            raise ConnectionError("the connection dropped")
        return self._client.delete_item(**request)


def test_input_regrouping_cut_short_is_finished_by_running_again(
    moto_dynamodb_tables: Any,
) -> None:
    before = _load_dump(moto_dynamodb_tables)
    client = _CutShort(moto_dynamodb_tables)
    with pytest.raises(ConnectionError):
        DynamoDbItemShapes(client, TableNames()).upgrade(dry_run=False)
    assert any(t.rewritten for t in DynamoDbItemShapes(client, TableNames()).verify())

    DynamoDbItemShapes(client, TableNames()).upgrade(dry_run=False)

    after = _dynamodb_items(moto_dynamodb_tables)
    _assert_inputs_regrouped(before, after)
    assert len(after[RESOLVED]) == len(before[INPUTS])  # nothing written twice
    assert all(t.rewritten == 0 for t in DynamoDbItemShapes(client, TableNames()).verify())


def test_an_earlier_input_metadata_row_moves_to_its_slash_led_key() -> None:
    """The fixture's runs read no metadata: a row as wfx 0.1 wrote it, rebuilt in VAMS's form."""
    run, step = "0" * 32, "1" * 32
    earlier = {
        "pipelineExecutionId": step,
        "databaseId:assetId:filePath": "demo:meshes:scans/a.obj",
        "workflowExecutionId": run,
        "databaseId": "demo",
        "assetId": "meshes",
        "filePath": "scans/a.obj",
        "metadata": {"scanner": "lidar"},
    }
    upgraded = upgraded_item(ResourceKeys.PIPELINE_INPUT_METADATA, earlier)

    assert upgraded is not None
    assert upgraded["databaseId:assetId:filePath"] == "demo:meshes:/scans/a.obj"
    assert upgraded["filePath"] == "/scans/a.obj"
    assert (upgraded["scope"], upgraded["attributes"], upgraded["attributesTruncated"]) == (
        "asset",
        {},
        False,
    )
    assert upgraded["metadata"] == {"scanner": "lidar"}
    assert upgraded_item(ResourceKeys.PIPELINE_INPUT_METADATA, upgraded) is None


def test_an_earlier_migrated_input_file_row_moves_to_its_slash_led_key() -> None:
    """wfx's migration wrote the V1 key as given; VAMS's upgrade leads it with "/": the item
    upgrade moves wfx's row, and leaves one in VAMS's form as it is."""
    earlier = {
        "pipelineExecutionId": "p-1",
        "databaseId:assetId:inputAssetFileKey": "db:a:scans/x.laz",
        "databaseId:assetId": "db:a",
        "workflowExecutionId": "e-1",
        "databaseId": "db",
        "assetId": "a",
        "inputAssetFileKey": "scans/x.laz",
    }
    upgraded = upgraded_item(ResourceKeys.PIPELINE_INPUT_FILES, earlier)

    assert upgraded == {
        **earlier,
        "databaseId:assetId:inputAssetFileKey": "db:a:/scans/x.laz",
        "inputAssetFileKey": "/scans/x.laz",
    }
    assert upgraded_item(ResourceKeys.PIPELINE_INPUT_FILES, upgraded) is None
