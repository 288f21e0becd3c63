"""VAMS 2.6's web client, replayed against a real `wfx serve` on each store (a SQLite file;
DynamoDB on moto's server over HTTP): the calls its orchestration pages make, with the query
parameters and bodies they send, and the answers read as the client reads them (`{"message":
...}` unwrapped, pages followed by `NextToken` until there is none), their keys and types as
its types declare (tests/vams_web_types.py). Nothing VAMS withholds may appear in any answer.

One service per store serves the whole replay; every call runs in the module fixture and the
tests read what it captured (under xdist another test's `mock_aws()` may reset moto's shared
backends between two tests, never inside a fixture).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conftest import restore_dynamodb_tables
from tests.e2e.cli import FAKE_AWS, MESH_ASSETS, MESH_FILES, USER, Wfx
from tests.e2e.served import serving
from tests.integration.moto_server import moto_server
from tests.vams_web_types import (
    DETAIL_INPUT_FILE,
    DETAIL_INPUT_METADATA,
    DETAIL_OUTPUT_FILE,
    DETAIL_OUTPUT_METADATA,
    DETAIL_OUTPUT_RESULT,
    DETAIL_OUTPUTS,
    DETAIL_PIPELINE,
    EXECUTE_RESPONSE,
    EXECUTION,
    EXECUTION_DETAIL,
    LIST_PAGE,
    LOG_EVENT,
    LOGS_FULL,
    LOGS_TRUNCATED_RUN,
    LOGS_TRUNCATED_STEP,
    NON_TERMINAL,
    STATUSES,
    Document,
)
from tests.withheld import withheld

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("vams-web-client-replay")]

DATABASE = "demo"
SAID = "said by the step"
# The step says a line, then writes one output file per input it read.
ECHOING = f"""
import os, pathlib
print({SAID!r}, flush=True)
for path in open(os.environ["WFX_INPUT_LIST"], encoding="utf-8").read().splitlines():
    name = pathlib.Path(path).stem + ".txt"
    pathlib.Path(os.environ["WFX_OUTPUT_DIR"], name).write_text("seen", encoding="utf-8")
"""
CLI_RUNS = 2
# The aborted steps sleep, and SIGTERM ends them: the service's abort need not wait the grace
# it gives a step that ignores SIGTERM (5 s by default, which an abort on moto waited out).
QUICK_STOP = {"WFX_STOP_GRACE_SECONDS": "0.5"}
PAGE_SIZE = "2"  # smaller than the runs, so the board pages


@dataclass
class Call:
    """One call of the client and what it was answered: `shown` is the document the client
    works with (`message` unwrapped, as client.ts's unwrapMessage does)."""

    what: str
    status: int
    body: Any

    @property
    def shown(self) -> Any:
        body = self.body
        return body["message"] if isinstance(body, dict) and "message" in body else body


@dataclass
class Replay:
    calls: list[Call] = field(default_factory=list)
    cli_ids: list[str] = field(default_factory=list)
    launched: Call | None = None
    launched_id: str = ""
    board: list[Call] = field(default_factory=list)  # the unfiltered board, page by page
    filtered: dict[str, list[str]] = field(default_factory=dict)  # filter -> ids listed
    asset_board: list[Call] = field(default_factory=list)
    details: Call | None = None
    metadata: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # collection -> rows
    logs: dict[str, Call] = field(default_factory=dict)
    aborted: dict[str, Call] = field(default_factory=dict)
    aborted_runs: dict[str, Call] = field(default_factory=dict)  # details once aborted
    reruns: dict[str, Call] = field(default_factory=dict)
    rerun_runs: dict[str, Call] = field(default_factory=dict)
    deleted: Call | None = None
    deleted_after: Call | None = None

    def call(self, client: httpx.Client, what: str, method: str, path: str, **kw: Any) -> Call:
        answer = client.request(method, path, **kw)
        call = Call(what, answer.status_code, answer.json())
        self.calls.append(call)
        return call


def _publish(wfx: Wfx, workflow_id: str, code: str, arity: str) -> None:
    step = {
        "pipelineId": "step",
        "executionType": "command",
        "command": [sys.executable, "-c", code],
        "inputFileArity": arity,
    }
    document = {"databaseId": DATABASE, "workflowId": workflow_id, "steps": [step]}
    path = wfx.home / f"{workflow_id}.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def _execute(workflow_id: str, group: str | None = None) -> dict[str, Any]:
    """An ExecuteRequest as the execute wizard sends it."""
    body: dict[str, Any] = {
        "inputFiles": [
            {"databaseId": DATABASE, "assetId": "meshes", "relativeFileKey": f"/{name}"}
            for name in MESH_FILES
        ],
        "outputAssetId": "results",
        "outputDatabaseId": DATABASE,
        "triggerType": "manual",
    }
    return body | ({"executionGroupId": group} if group else {})


def _board(
    replay: Replay,
    client: httpx.Client,
    path: str,
    filters: dict[str, str],
    into: list[Call],
    page_size: str = PAGE_SIZE,
) -> list[dict[str, Any]]:
    """useExecutions: pages of `pageSize` with the filters, `startingToken` from the last
    page's NextToken, until a page has none."""
    rows: list[dict[str, Any]] = []
    token: str | None = None
    while True:
        params = filters | {"pageSize": page_size} | ({"startingToken": token} if token else {})
        page = replay.call(client, f"list {path} {filters}", "GET", path, params=params)
        into.append(page)
        assert page.status == 200, page.body
        assert list(LIST_PAGE.mismatches(page.shown)) == [], page.body
        rows += page.shown["Items"]
        token = page.shown.get("NextToken")
        if not token or len(into) > 50:
            return rows


def _ended(replay: Replay, client: httpx.Client, execution_id: str) -> Call:
    """useExecutionDetails polls while the run is NEW or RUNNING."""
    deadline = time.monotonic() + 60
    while True:
        answer = client.get(f"workflows/executions/{execution_id}/details")
        call = Call(f"details {execution_id}", answer.status_code, answer.json())
        status = call.shown.get("executionStatus") if isinstance(call.shown, dict) else None
        if status not in NON_TERMINAL or time.monotonic() > deadline:
            replay.calls.append(call)
            return call
        time.sleep(0.2)


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["workflowExecutionId"] for row in rows]


def _replay(wfx: Wfx) -> Replay:
    replay = Replay()
    _publish(wfx, "echoing", ECHOING, "many")
    _publish(wfx, "sleepy", "import time; time.sleep(120)", "none")
    wfx.ok("assets", "import", DATABASE, "meshes", str(MESH_ASSETS))
    for _ in range(CLI_RUNS):
        replay.cli_ids.append(
            wfx.run_id("demo/echoing", "--input", "demo/meshes", "--output", "demo/results")
        )
    token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()
    with (
        # one process: each builds the same answers; test_serve_workers serves from two
        serving(wfx, "--workers", "1") as (base, _),
        httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30
        ) as client,
    ):
        execute = "workflows/demo/echoing/execute"
        replay.launched = replay.call(
            client, "launch", "POST", execute, json=_execute("echoing", "web")
        )
        replay.launched_id = replay.launched.shown["executionId"]
        replay.details = _ended(replay, client, replay.launched_id)

        everything = _board(replay, client, "workflows/executions", {}, replay.board)
        replay.filtered[""] = _ids(everything)
        today = datetime.now(UTC).date()
        filters = {
            "status": {"status": "SUCCEEDED"},
            "workflow": {"workflowId": "echoing", "workflowDatabaseId": DATABASE},
            "group": {"groupId": "web"},
            "trigger": {"triggerType": "manual"},
            "user": {"triggeredByUserId": USER},
            "window": {
                "filterStartDate": (today - timedelta(days=1)).isoformat(),
                "filterEndDate": (today + timedelta(days=1)).isoformat(),
            },
            "past window": {"filterStartDate": "2020-01-01", "filterEndDate": "2020-01-31"},
        }
        for name, given in filters.items():
            replay.filtered[name] = _ids(_board(replay, client, "workflows/executions", given, []))
        asset = "database/demo/assets/meshes/workflows/executions"
        replay.filtered["asset"] = _ids(_board(replay, client, asset, {}, replay.asset_board))

        # the details page re-reads a collection through the paged route (200 a page)
        metadata = f"workflows/executions/{replay.launched_id}/details/metadata"
        for collection in ("input", "inputDatabase", "output"):
            replay.metadata[collection] = _board(
                replay, client, metadata, {"collection": collection}, [], page_size="200"
            )
        logs = f"workflows/executions/{replay.launched_id}/logs"
        step = replay.details.shown["pipelines"][0]["pipelineExecutionId"]
        for mode in ("full", "truncated"):
            replay.logs[mode] = replay.call(
                client, f"logs {mode}", "GET", logs, params={"mode": mode}
            )
            replay.logs[f"{mode} step"] = replay.call(
                client,
                f"logs {mode} step",
                "GET",
                logs,
                params={"mode": mode, "pipelineExecutionId": step},
            )

        # abort: one run alone, then a group by one of its members
        sleepy = "workflows/demo/sleepy/execute"
        alone = replay.call(client, "launch", "POST", sleepy, json={"inputFiles": []})
        grouped = [
            replay.call(
                client,
                "launch",
                "POST",
                sleepy,
                json={"inputFiles": [], "executionGroupId": "doomed"},
            )
            for _ in range(2)
        ]
        alone_id = alone.shown["executionId"]
        replay.aborted["alone"] = replay.call(
            client, "abort", "DELETE", f"workflows/executions/{alone_id}"
        )
        first = grouped[0].shown["executionId"]
        replay.aborted["group"] = replay.call(
            client,
            "abort group",
            "DELETE",
            f"workflows/executions/{first}",
            params={"groupId": "doomed"},
        )
        for name, launched in [
            ("alone", alone),
            *((f"group {n}", g) for n, g in enumerate(grouped)),
        ]:
            replay.aborted_runs[name] = _ended(replay, client, launched.shown["executionId"])

        rerun = f"workflows/executions/{replay.launched_id}/rerun"
        replay.reruns["plain"] = replay.call(client, "rerun", "POST", rerun, json={})
        replay.reruns["grouped"] = replay.call(
            client, "rerun", "POST", rerun, json={"executionGroupId": "again"}
        )
        for name, answer in replay.reruns.items():
            replay.rerun_runs[name] = _ended(replay, client, answer.shown["executionId"])

        gone = replay.cli_ids[0]
        replay.deleted = replay.call(
            client,
            "permanent delete",
            "DELETE",
            f"workflows/executions/{gone}/permanent",
            json={"confirmDelete": True},
        )
        after = client.get(f"workflows/executions/{gone}/details")
        replay.deleted_after = Call("details of the deleted", after.status_code, after.json())
    return replay


@pytest.fixture(scope="module", params=["sqlite", "dynamodb"])
def replay(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Replay]:
    root: Path = tmp_path_factory.mktemp(f"web-replay-{request.param}")
    if request.param == "sqlite":
        yield _replay(Wfx(root / "home", **QUICK_STOP))
        return
    # taken first: made the first time in a mock_aws(), which empties the server's backends
    tables = request.getfixturevalue("_pristine_dynamodb_tables")
    with moto_server() as endpoint:
        restore_dynamodb_tables(tables)  # every table, empty, as `wfx tables create` makes them
        yield _replay(
            Wfx(
                root / "home",
                WFX_STORE="dynamodb",
                WFX_DYNAMODB_ENDPOINT=endpoint,
                **FAKE_AWS,
                **QUICK_STOP,
            )
        )


def _problems(document: Any, shape: Document, where: str = "$") -> list[str]:
    return list(shape.mismatches(document, where))


def test_launch_answers_an_execute_response(replay: Replay) -> None:
    assert replay.launched is not None
    assert replay.launched.status == 200, replay.launched.body
    assert _problems(replay.launched.shown, EXECUTE_RESPONSE) == []
    assert replay.launched.shown["executionGroupId"] == "web"


def test_the_board_pages_until_no_next_token_and_lists_every_run_once(replay: Replay) -> None:
    pages = replay.board
    assert len(pages) >= 2, "pages of 2 of 3 runs"
    for page in pages:
        assert _problems(page.shown, LIST_PAGE) == []
        assert len(page.shown["Items"]) <= int(PAGE_SIZE)
    listed = replay.filtered[""]
    assert len(listed) == len(set(listed))
    assert set(listed) == set(replay.cli_ids) | {replay.launched_id}
    problems = [
        p
        for page in pages
        for n, row in enumerate(page.shown["Items"])
        for p in _problems(row, EXECUTION, f"Items[{n}]")
    ]
    assert problems == []
    assert {row["executionStatus"] for page in pages for row in page.shown["Items"]} <= STATUSES


def test_each_board_filter_keeps_only_its_runs(replay: Replay) -> None:
    listed = replay.filtered
    ours = set(replay.cli_ids) | {replay.launched_id}
    assert set(listed["status"]) == ours
    assert set(listed["workflow"]) == ours
    assert listed["group"] == [replay.launched_id]
    assert set(listed["trigger"]) == ours
    assert set(listed["user"]) == ours
    assert set(listed["window"]) == ours
    assert listed["past window"] == []


def test_the_asset_board_lists_the_runs_that_read_the_asset(replay: Replay) -> None:
    assert set(replay.filtered["asset"]) == set(replay.cli_ids) | {replay.launched_id}
    for page in replay.asset_board:
        assert _problems(page.shown, LIST_PAGE) == []
        for n, row in enumerate(page.shown["Items"]):
            assert _problems(row, EXECUTION, f"Items[{n}]") == []


def test_the_details_page_finds_every_key_it_reads(replay: Replay) -> None:
    assert replay.details is not None
    assert replay.details.status == 200, replay.details.body
    shown = replay.details.shown
    assert shown["executionStatus"] == "SUCCEEDED", shown
    problems = _problems(shown, EXECUTION_DETAIL)
    for n, step in enumerate(shown["pipelines"]):
        problems += _problems(step, DETAIL_PIPELINE, f"pipelines[{n}]")
    for n, row in enumerate(shown["inputFiles"]):
        problems += _problems(row, DETAIL_INPUT_FILE, f"inputFiles[{n}]")
    for n, row in enumerate(shown.get("inputMetadata", [])):
        problems += _problems(row, DETAIL_INPUT_METADATA, f"inputMetadata[{n}]")
    outputs = shown["outputs"]
    problems += _problems(outputs, DETAIL_OUTPUTS, "outputs")
    for n, row in enumerate(outputs.get("files", [])):
        problems += _problems(row, DETAIL_OUTPUT_FILE, f"outputs.files[{n}]")
    for n, row in enumerate(outputs.get("metadata", [])):
        problems += _problems(row, DETAIL_OUTPUT_METADATA, f"outputs.metadata[{n}]")
    for n, row in enumerate(outputs.get("results", [])):
        problems += _problems(row, DETAIL_OUTPUT_RESULT, f"outputs.results[{n}]")
    assert all(isinstance(name, str) for name in shown.get("truncatedCollections", []))
    assert problems == []
    assert len(shown["inputFiles"]) == len(MESH_FILES)
    assert len(outputs["files"]) == len(MESH_FILES)
    assert (shown["outputDatabaseId"], shown["outputAssetId"]) == (DATABASE, "results")


def _log_text(document: Any) -> str:
    """What the log viewer shows of an answer: the events in full mode, else whichever of the
    stored logs is there (ExecutionLogViewer's extractLogText reads these keys)."""
    if isinstance(document.get("events"), list):
        lists = ("events", "sfnHistoryEvents", "subProcessEvents")
        return "\n".join(str(e.get("message", "")) for k in lists for e in document.get(k) or [])
    keys = ("executionError", "executionLog", "errorLog", "resultLog")
    return "\n".join(str(document[k]) for k in keys if document.get(k))


def test_the_log_viewer_shows_what_the_step_said_in_each_mode_and_scope(replay: Replay) -> None:
    for name, call in replay.logs.items():
        assert call.status == 200, (name, call.body)
        shape = {
            "full": LOGS_FULL,
            "full step": LOGS_FULL,
            "truncated": LOGS_TRUNCATED_RUN,
            "truncated step": LOGS_TRUNCATED_STEP,
        }[name]
        problems = _problems(call.shown, shape, name)
        for n, event in enumerate(call.shown.get("events") or []):
            problems += _problems(event, LOG_EVENT, f"{name}.events[{n}]")
        assert problems == []
        assert SAID in _log_text(call.shown), (name, call.shown)
        assert call.shown["logsSource"] == ("live" if name.startswith("full") else "stored")


def test_abort_stops_one_run_and_with_group_id_its_whole_group(replay: Replay) -> None:
    for name, call in replay.aborted.items():
        assert call.status == 200, (name, call.body)
    for name, run in replay.aborted_runs.items():
        assert run.shown["executionStatus"] == "ABORTED", (name, run.shown)
    group = replay.aborted["group"].shown
    assert group["groupId"] == "doomed"
    grouped = {
        run.shown["workflowExecutionId"] for n, run in replay.aborted_runs.items() if n != "alone"
    }
    assert {member["executionId"] for member in group["results"]} == grouped


def test_rerun_starts_a_new_run_with_and_without_a_group(replay: Replay) -> None:
    for name, call in replay.reruns.items():
        assert call.status == 200, (name, call.body)
        assert _problems(call.shown, EXECUTE_RESPONSE) == []
        assert call.shown["executionId"] != replay.launched_id
    assert replay.reruns["grouped"].shown["executionGroupId"] == "again"
    for name, run in replay.rerun_runs.items():
        assert run.shown["executionStatus"] == "SUCCEEDED", (name, run.shown)


def test_permanent_delete_with_confirm_delete_removes_the_run(replay: Replay) -> None:
    assert replay.deleted is not None and replay.deleted_after is not None
    assert replay.deleted.status == 200, replay.deleted.body
    assert isinstance(replay.deleted.shown, str | dict)
    assert replay.deleted_after.status == 404, replay.deleted_after.body


def test_no_answer_holds_what_vams_withholds(replay: Replay) -> None:
    found = sorted({where for call in replay.calls for where in withheld(call.shown)})
    assert found == []


def test_the_details_metadata_pages_hold_lists_of_rows(replay: Replay) -> None:
    assert set(replay.metadata) == {"input", "inputDatabase", "output"}
    for collection, rows in replay.metadata.items():
        assert all(isinstance(row, dict) for row in rows), collection
    # each item the row the details page renders for the same collection
    shape = {"input": DETAIL_INPUT_METADATA, "output": DETAIL_OUTPUT_METADATA}
    problems = [
        problem
        for collection, document in shape.items()
        for n, row in enumerate(replay.metadata[collection])
        for problem in _problems(row, document, f"{collection}[{n}]")
    ]
    assert problems == []
    assert replay.details is not None
    shown = replay.details.shown
    assert replay.metadata["input"] == shown["inputMetadata"]
    assert replay.metadata["inputDatabase"] == shown["inputDatabaseMetadata"]
    assert replay.metadata["output"] == shown["outputs"]["metadata"]
