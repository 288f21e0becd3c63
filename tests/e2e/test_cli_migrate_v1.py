"""`wfx migrate v1 --from-file` as a SQLite user runs it: the earlier table exported as a Scan
answer (DynamoDB-typed), a dry run, the run, a second run, and a file it cannot read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import Wfx, assert_bad_input
from tests.v1_items import BAD_ITEM, ROWS, iso, old_items

pytestmark = pytest.mark.xdist_group("e2e-cli-migrate")


def _exported(tmp_path: Path) -> Path:
    """`aws dynamodb scan --table-name WorkflowExecutionsStorageTable > scan.json`."""
    items = [*old_items(ROWS), BAD_ITEM]
    typed = [{name: {"S": value} for name, value in item.items()} for item in items]
    path = tmp_path / "scan.json"
    path.write_text(json.dumps({"Items": typed, "Count": len(typed)}))
    return path


def _ids(page: Any) -> list[str]:
    return [record["workflowExecutionId"] for record in page["Items"]]


def test_migrating_an_export_dry_run_then_for_real_then_again(wfx: Wfx, tmp_path: Path) -> None:
    exported = str(_exported(tmp_path))
    checkpoint = tmp_path / "migrate.checkpoint"

    dry = wfx.json("migrate", "v1", "--from-file", exported, "--dry-run", "--offline")
    assert dry["dryRun"] is True
    assert dry["counts"]["migrated"] == len(ROWS) and dry["counts"]["skipped"] == 1
    (skipped,) = [i for i in dry["items"] if i["outcome"] == "skipped"]
    assert "executionStatus" in skipped["detail"]
    assert wfx.json("executions", "list")["Items"] == []

    done = wfx.ok("migrate", "v1", "--from-file", exported, "--checkpoint", str(checkpoint))
    assert f"{len(ROWS) + 1} items read:" in done.stdout
    assert f"migrated: {len(ROWS)}" in done.stdout
    assert "skipped: 1" in done.stdout
    assert checkpoint.read_text().strip().endswith(BAD_ITEM["executionId"])

    newest_first = [r[0] for r in sorted(ROWS, key=lambda r: iso(r[5]) or iso(r[6]))][::-1]
    assert _ids(wfx.json("executions", "list")) == newest_first
    on_workflow = _ids(wfx.json("executions", "list", "--workflow", "db-a/thumbnails"))
    assert on_workflow == [
        i for i in newest_first if i in {r[0] for r in ROWS if r[3][0] == "db-a"}
    ]
    on_asset = _ids(wfx.json("executions", "list", "--asset", "db-a/asset-1"))
    assert set(on_asset) == {r[0] for r in ROWS if r[2] == "asset-1"}
    shown = wfx.json("executions", "show", ROWS[0][0])
    assert shown["inputFiles"][0]["inputAssetFileKey"] == "/models/my mesh.obj"  # VAMS's key
    assert shown["executionStartDate"] == "2024-03-04T09:30:00Z"
    assert "startDateEstimated" not in shown
    (step,) = shown["pipelines"]  # the run's one step, as the run ended
    assert step["pipelineId"] == "DELETED"
    assert step["executionStatus"] == "SUCCEEDED"
    assert step["executionStopDate"] == "2024-03-04T09:41:07Z"
    assert step["inputConfiguration"]["executionType"] == "lambda"
    assert shown["configuration"]["outputAssetId"] == "asset-1"
    # a row without a start: dated from its stop (its workflow is not known here), flagged
    no_start = wfx.json("executions", "show", ROWS[4][0])
    assert no_start["executionStartDate"] == "2024-07-08T11:12:13Z"
    assert no_start["startDateEstimated"] is True
    printed = wfx.ok("executions", "show", ROWS[4][0]).stdout
    assert "(estimated)" in printed and "DELETED" in printed

    again = wfx.json("migrate", "v1", "--from-file", exported)
    assert again["counts"]["alreadyMigrated"] == len(ROWS)
    assert again["counts"]["migrated"] == 0
    assert _ids(wfx.json("executions", "list")) == newest_first


def test_a_file_that_is_not_an_export_is_refused_naming_it(wfx: Wfx, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"Items": [{"executionId": ')
    not_a_list = tmp_path / "object.json"
    not_a_list.write_text('{"executionId": "e1"}')

    assert_bad_input(wfx("migrate", "v1", "--from-file", str(broken)), "--from-file", "not JSON")
    assert_bad_input(
        wfx("migrate", "v1", "--from-file", str(not_a_list)), "--from-file", "JSON list"
    )
    assert_bad_input(wfx("migrate", "v1"), "--from-file", "SQLite")
    # valid JSON, but no text: stored, it ended the migration in a traceback
    surrogate = tmp_path / "surrogate.json"
    item = {**old_items(ROWS)[0], "inputAssetFileKey": "models/my\ud800 mesh.obj"}
    surrogate.write_text(json.dumps({"Items": [{k: {"S": v} for k, v in item.items()}]}))
    assert_bad_input(
        wfx("migrate", "v1", "--from-file", str(surrogate), "--offline"),
        "--from-file",
        "item 0",
        "inputAssetFileKey",
        "\\ud800",
    )
    assert wfx.json("executions", "list")["Items"] == []


def test_runs_kept_running_offline_still_list_without_aws(wfx: Wfx, tmp_path: Path) -> None:
    """A SQLite user with no AWS access: the list reads the stored row of a run Step Functions
    cannot be asked about (no credentials), rather than failing the whole list."""
    running = {
        "databaseId:assetId": "$db-x:$asset-x",
        "executionId": "7a7a7a7a-0000-4000-8000-000000000001",
        "databaseId": "db-x",
        "assetId": "asset-x",
        "workflowDatabaseId": "db-x",
        "workflowId": "wf-x",
        "workflow_arn": "arn:aws:states:us-east-1:123456789012:stateMachine:wf-x",
        "execution_arn": "arn:aws:states:us-east-1:123456789012:execution:wf-x:7a7a7a7a",
        "inputAssetFileKey": "a.obj",
        "executionStatus": "RUNNING",
        "startDate": "03/04/2024, 09:30:00",
        "stopDate": "",
    }
    path = tmp_path / "running.json"
    path.write_text(json.dumps([running]))
    wfx.ok("migrate", "v1", "--from-file", str(path), "--offline")

    listed = wfx.json("executions", "list")
    assert [(r["workflowExecutionId"], r["executionStatus"]) for r in listed["Items"]] == [
        (running["executionId"], "RUNNING")
    ]
    described = wfx("executions", "describe", running["executionId"])
    assert described.code == 3 and "credentials" in described.stderr, str(described)


MALFORMED_TYPED_VALUES = {
    "a number that is none": {"N": "abc"},
    "a number that is a map": {"N": {"a": 1}},
    "a list that is a number": {"L": 5},
    "a set that is a number": {"SS": 5},
    "a map that is a list": {"M": [1]},
    "a flag that is text": {"BOOL": "yes"},
    "text that is a number": {"S": 5},
}


@pytest.mark.parametrize("value", MALFORMED_TYPED_VALUES.values(), ids=MALFORMED_TYPED_VALUES)
def test_a_malformed_typed_value_is_refused_naming_the_item_and_attribute(
    wfx: Wfx, tmp_path: Path, value: dict[str, Any]
) -> None:
    """Before, a decimal.InvalidOperation, TypeError or AttributeError traceback."""
    items = [{k: {"S": v} for k, v in item.items()} for item in old_items(ROWS)[:2]]
    items[1]["startDate"] = value
    file = tmp_path / "typed.json"
    file.write_text(json.dumps({"Items": items}), encoding="utf-8")

    outcome = wfx("migrate", "v1", "--from-file", str(file), "--offline")

    assert_bad_input(outcome, "--from-file", "item 1", "startDate", next(iter(value)))
    assert wfx.json("executions", "list")["Items"] == []


def test_a_file_that_never_ends_is_refused_past_the_bound(wfx: Wfx) -> None:
    """Before, /dev/zero was read until memory ran out."""
    outcome = wfx("migrate", "v1", "--from-file", "/dev/zero", "--offline", timeout=20)
    assert_bad_input(outcome, "--from-file", "/dev/zero", "MiB")
