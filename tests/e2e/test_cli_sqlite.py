"""`wfx` end to end on SQLite: each command as a subprocess, as a user types it.

The mesh tests share one home where the example is published, imported and run once; a test
that adds runs, or needs a home in a given state, gets a home of its own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import (
    FAILING_WORKFLOW,
    GUID,
    MESH_FILES,
    TERMINAL,
    TRIVIAL_WORKFLOW,
    USER,
    Outcome,
    Wfx,
    publish_mesh_and_import,
)

# One worker per module under xdist: the shared homes are then set up once, not per worker.
pytestmark = pytest.mark.xdist_group("e2e-cli-sqlite")

MESH_STEPS = ["mesh-statistics", "mesh-normalize", "mesh-preview"]
MESH_OUTPUTS = {
    "statistics.json",
    "metadata/statistics.json.json",
    *(f"normalized/{name}" for name in MESH_FILES),
    *(f"preview/{name.replace('.obj', '.svg')}" for name in MESH_FILES),
}
# The main-row names of seed 000 (and DESIGN §3) every listed or shown execution carries; the
# storage-only ones (composite keys, the list partition, the request digest) never leave.
STORAGE_ONLY_FIELDS = {"workflowDatabaseId:workflowId", "allListPartition", "requestDigest"}
EXECUTION_FIELDS = {
    "workflowExecutionId",
    "workflowDatabaseId",
    "workflowId",
    "workflowVersion",
    "executionStatus",
    "executionStartDate",
    "executionStopDate",
    "triggeredByUserId",
    "triggerType",
}


@dataclass(frozen=True)
class MeshRun:
    wfx: Wfx
    published: Outcome
    imported: Outcome
    run: Outcome

    @property
    def execution_id(self) -> str:
        return self.run.stdout.strip()


@pytest.fixture(scope="module")
def mesh(tmp_path_factory: pytest.TempPathFactory) -> MeshRun:
    wfx = Wfx(tmp_path_factory.mktemp("mesh") / "home")
    published, imported = publish_mesh_and_import(wfx)
    run = wfx(
        "run",
        "demo/mesh-report",
        "--input",
        "demo/meshes",
        "--output",
        "demo/mesh-results",
        "--group",
        "nightly",
    )
    assert run.code == 0, str(run)
    return MeshRun(wfx, published, imported, run)


def _date(text: str) -> datetime:
    assert text.endswith("Z"), text  # ISO-8601 UTC, so that dates sort as text
    return datetime.fromisoformat(text)


# -- publish and import ------------------------------------------------------------------------


def test_publish_names_the_new_version_and_its_steps(mesh: MeshRun) -> None:
    assert mesh.published.stdout.strip() == "Published demo/mesh-report version 1 (3 steps)"


NOOP_WORKFLOW = """\
databaseId: demo
workflowId: noop
description: {description}
steps:
  - pipelineId: noop
    executionType: python
    handler: wfx_examples.trivial.steps:noop
    inputFileArity: none
"""


def test_publishing_reports_unchanged_until_the_file_changes(wfx: Wfx, tmp_path: Path) -> None:
    workflow = tmp_path / "workflow.yaml"
    workflow.write_text(NOOP_WORKFLOW.format(description="first"), encoding="utf-8")
    wfx.ok("workflows", "publish", str(workflow))

    again = wfx.ok("workflows", "publish", str(workflow))
    assert again.stdout.strip() == "Unchanged: demo/noop version 1 (1 step)"
    as_json = wfx.json("workflows", "publish", str(workflow))
    assert (as_json["created"], as_json["workflowVersion"]) == (False, 1)

    workflow.write_text(NOOP_WORKFLOW.format(description="second"), encoding="utf-8")
    changed = wfx.ok("workflows", "publish", str(workflow))
    assert changed.stdout.strip() == "Published demo/noop version 2 (1 step)"


def test_import_prints_each_file_with_its_stored_version(mesh: MeshRun) -> None:
    lines = mesh.imported.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [f"demo/meshes/{name}" for name in MESH_FILES]
    assert all(line.split()[1] == "version" and line.split()[2] for line in lines)


# -- run ------------------------------------------------------------------------------------------


def test_run_prints_only_the_execution_id_and_its_progress_on_stderr(mesh: MeshRun) -> None:
    assert mesh.run.stdout == mesh.execution_id + "\n"
    assert GUID.match(mesh.execution_id)
    for step in MESH_STEPS:
        assert f"{step}: SUCCEEDED" in mesh.run.stderr
    assert "demo/mesh-report: SUCCEEDED" in mesh.run.stderr


# -- list -----------------------------------------------------------------------------------------


def test_the_global_list_shows_the_run(mesh: MeshRun) -> None:
    listing = mesh.wfx.ok("executions", "list").stdout
    row = next(line for line in listing.splitlines() if mesh.execution_id in line)
    for shown in ("demo/mesh-report", "SUCCEEDED", "Manual", "nightly"):
        assert shown in row, listing


def test_the_global_list_as_json_carries_the_seed_record(mesh: MeshRun) -> None:
    page = mesh.wfx.json("executions", "list")

    assert "NextToken" not in page  # as VAMS: said only when there is more
    [record] = page["Items"]
    assert EXECUTION_FIELDS | {"executionGroupId"} <= set(record)
    assert record["workflowExecutionId"] == mesh.execution_id
    assert (record["workflowDatabaseId"], record["workflowId"]) == ("demo", "mesh-report")
    assert not STORAGE_ONLY_FIELDS & set(record)
    assert record["executionStatus"] == "SUCCEEDED"
    assert (record["triggerType"], record["triggeredByUserId"]) == ("Manual", USER)
    assert record["executionGroupId"] == "nightly"
    assert _date(record["executionStartDate"]) <= _date(record["executionStopDate"])


LIST_KINDS = {
    "workflow": ("--workflow", "demo/mesh-report", "demo/trivial"),
    "group": ("--group", "nightly", "weekly"),
    "asset-read": ("--asset", "demo/meshes", "demo/other"),
    "asset-written": ("--asset", "demo/mesh-results", "demo/mesh-results-2"),
}


@pytest.mark.parametrize("kind", LIST_KINDS)
def test_each_filtered_list_finds_the_run_as_json(mesh: MeshRun, kind: str) -> None:
    option, matching, _ = LIST_KINDS[kind]
    page = mesh.wfx.json("executions", "list", option, matching)
    assert [e["workflowExecutionId"] for e in page["Items"]] == [mesh.execution_id]
    assert set(page["Items"][0]) >= EXECUTION_FIELDS


@pytest.mark.parametrize("kind", LIST_KINDS)
def test_each_filtered_list_finds_the_run_in_its_table(mesh: MeshRun, kind: str) -> None:
    option, matching, _ = LIST_KINDS[kind]
    listing = mesh.wfx.ok("executions", "list", option, matching).stdout
    assert mesh.execution_id in listing
    assert "SUCCEEDED" in listing


@pytest.mark.parametrize("kind", LIST_KINDS)
def test_each_filtered_list_leaves_out_other_runs(mesh: MeshRun, kind: str) -> None:
    option, _, other = LIST_KINDS[kind]
    assert mesh.wfx.listed_ids(option, other) == []


def test_an_empty_list_says_so(mesh: MeshRun) -> None:
    listing = mesh.wfx.ok("executions", "list", "--group", "weekly").stdout
    assert listing.strip() == "No executions."


def test_a_list_filters_by_status_and_by_the_assets_direction(mesh: MeshRun) -> None:
    def listed(*options: str) -> list[str]:
        page = mesh.wfx.json("executions", "list", *options)
        return [e["workflowExecutionId"] for e in page["Items"]]

    assert listed("--status", "SUCCEEDED") == [mesh.execution_id]
    assert listed("--status", "FAILED") == []
    assert listed("--asset", "demo/meshes", "--direction", "read") == [mesh.execution_id]
    assert listed("--asset", "demo/meshes", "--direction", "wrote") == []
    assert listed("--asset", "demo/mesh-results", "--direction", "wrote") == [mesh.execution_id]


def test_a_direction_without_an_asset_is_bad_input(mesh: MeshRun) -> None:
    outcome = mesh.wfx("executions", "list", "--direction", "read")
    assert outcome.code == 2, str(outcome)
    assert "direction" in outcome.stderr


# -- show -----------------------------------------------------------------------------------------


def test_show_describes_the_run(mesh: MeshRun) -> None:
    shown = mesh.wfx.ok("executions", "show", mesh.execution_id).stdout

    assert shown.splitlines()[0].split() == [mesh.execution_id, "SUCCEEDED"]
    for expected in (
        "demo/mesh-report version 1",
        f"Manual by {USER}",
        "nightly",
        "demo/mesh-results",
        *(f"demo/meshes/{name}" for name in MESH_FILES),
        *MESH_STEPS,
        *MESH_OUTPUTS,
    ):
        assert expected in shown, f"{expected!r} missing from:\n{shown}"
    # the run's dates are whole seconds: its duration is said in whole seconds, never "0 ms"
    said = next(line.split(None, 1)[1] for line in shown.splitlines() if "duration" in line)
    assert re.fullmatch(r"<1 s|\d+ s|\d+ min \d+ s", said.strip()), said


@pytest.fixture(scope="module")
def details(mesh: MeshRun) -> dict[str, Any]:
    shown: dict[str, Any] = mesh.wfx.json("executions", "show", mesh.execution_id)
    return shown


def test_show_as_json_carries_every_record_of_the_run(
    mesh: MeshRun, details: dict[str, Any]
) -> None:
    # VAMS's details, flat; the keys of wfx's own beside them
    assert {
        "workflowExecutionId",
        "executionStatus",
        "pipelines",
        "inputFiles",
        "inputMetadata",
        "inputDatabaseMetadata",
        "outputs",
        "truncatedCollections",
        "configuration",
        "truncatedCollectionPages",
    } <= set(details)
    assert not {"execution", "inputs", "pipelineExecutions"} & set(details)
    assert details["truncatedCollections"] == []  # said even when nothing was cut
    [listed] = mesh.wfx.json("executions", "list", "--group", "nightly")["Items"]
    same = ("workflowExecutionId", "executionStatus", "executionGroupId", "triggeredByUserId")
    assert {key: details[key] for key in same} == {key: listed[key] for key in same}
    for date in ("executionStartDate", "executionStopDate"):
        assert _date(details[date]) == _date(listed[date])
    configuration = details["configuration"]
    output = (configuration["outputDatabaseId"], configuration["outputAssetId"])
    assert output == ("demo", "mesh-results")
    assert "outputDatabaseId:outputAssetId" not in configuration
    assert configuration["inputSelections"] == ["demo/meshes"]

    imported = {}  # file -> version, from the lines `demo/meshes/<file>  version <version>`
    for line in mesh.imported.stdout.splitlines():
        selected, _, version = line.split()
        imported[selected] = version
    # the files read, each at the version imported; VAMS's inputFiles is the one selection made
    inputs = {
        (row["databaseId"], row["assetId"], row["inputAssetFileKey"]): row["versionId"]
        for row in details["resolvedInputFiles"]
    }
    assert inputs == {
        ("demo", "meshes", name): imported[f"demo/meshes/{name}"] for name in MESH_FILES
    }
    [selection] = details["inputFiles"]
    assert (selection["assetId"], selection["versionId"]) == ("meshes", "")
    assert selection["inputAssetFileKey"].startswith("/")
    assert selection["inputAssetFileKey"].endswith("/meshes/")


def test_show_as_json_lists_the_steps_in_chain_order_with_their_outputs(
    mesh: MeshRun, details: dict[str, Any]
) -> None:
    rows = details["pipelines"]
    assert [row["pipelineId"] for row in rows] == MESH_STEPS
    assert [row["executionStatus"] for row in rows] == ["SUCCEEDED"] * 3
    assert [row["endStatePipeline"] for row in rows] == [False, False, True]
    assert "from_pipeline_execution_id" not in rows[0]  # sparse: the root chains from nothing
    assert [row["from_pipeline_execution_id"] for row in rows[1:]] == [
        row["pipelineExecutionId"] for row in rows[:-1]
    ]
    outputs = {f["relativeFilePath"] for f in details["outputs"]["files"]}
    assert outputs == MESH_OUTPUTS


def test_show_as_json_gives_each_step_its_single_attempt(details: dict[str, Any]) -> None:
    attempts = [step["attempts"] for step in details["pipelines"]]

    assert [[(a["attempt"], a["status"], a["trigger"]) for a in step] for step in attempts] == [
        [(1, "SUCCEEDED", "start")]
    ] * 3


def test_show_of_an_unknown_id_is_bad_input(mesh: MeshRun) -> None:
    outcome = mesh.wfx("executions", "show", "00000000-0000-4000-8000-000000000000")
    assert outcome.code == 2, str(outcome)
    assert outcome.stderr_lines == [
        "error: execution 00000000-0000-4000-8000-000000000000 not found"
    ]


def test_metadata_pages_one_collection_as_json(mesh: MeshRun, details: dict[str, Any]) -> None:
    first = mesh.wfx.json(
        "executions", "metadata", mesh.execution_id, "--collection", "inputs", "--max-items", "1"
    )
    assert len(first["Items"]) == 1 and first["NextToken"]
    rest = mesh.wfx.json(
        "executions",
        "metadata",
        mesh.execution_id,
        "--collection",
        "inputs",
        "--max-items",
        "1000",
        "--starting-token",
        first["NextToken"],
    )
    assert "NextToken" not in rest  # the last page says no token (VAMS's paged metadata)

    # wfx's path `inputs` pages the files read (the details' inputFiles are the selections), each
    # as the details show it
    assert first["Items"] + rest["Items"] == details["resolvedInputFiles"]
    # VAMS's run-wide collections: the details' own rows, item for item
    for collection, rows in (
        ("input", details["inputMetadata"]),
        ("output", details["outputs"]["metadata"]),
    ):
        page = mesh.wfx.json(
            "executions", "metadata", mesh.execution_id, "--collection", collection
        )
        assert (page["collection"], page["Items"]) == (collection, rows)
    assert details["outputs"]["metadata"], "the mesh run writes output metadata"
    # one pipeline's rows, as the HTTP route's pipelineId
    pipeline = details["outputs"]["metadata"][0]["pipelineId"]
    own = mesh.wfx.json(
        "executions", "metadata", mesh.execution_id, "--collection", "output",
        "--pipeline-id", pipeline,
    )  # fmt: skip
    assert own["Items"] == [
        row for row in details["outputs"]["metadata"] if row["pipelineId"] == pipeline
    ]
    assert (
        len(own["Items"]) < len(details["outputs"]["metadata"])
        or len({row["pipelineId"] for row in details["outputs"]["metadata"]}) == 1
    )


def test_metadata_of_an_unknown_collection_names_the_allowed_ones(mesh: MeshRun) -> None:
    outcome = mesh.wfx("executions", "metadata", mesh.execution_id, "--collection", "outputs")
    assert outcome.code == 2, str(outcome)
    assert (
        "collection: must be one of input, inputDatabase, output, inputs, pipelineExecutions"
        in outcome.stderr
    )


# -- homes of their own ---------------------------------------------------------------------------


def test_demo_succeeds_and_its_run_is_listed(wfx: Wfx) -> None:
    demo = wfx.ok("demo")

    [record] = wfx.json("executions", "list")["Items"]
    assert (record["workflowId"], record["executionStatus"]) == ("mesh-report", "SUCCEEDED")
    assert record["workflowExecutionId"] in demo.stdout
    assert "SUCCEEDED" in demo.stdout


def _held_workflow(release: Path, waited: Path) -> str:
    """A step that runs until the test creates `release` (30 s at most, then fails), and
    leaves `waited` behind once it has seen it."""
    code = (
        "import pathlib, sys, time\n"
        f"release, waited = pathlib.Path({str(release)!r}), pathlib.Path({str(waited)!r})\n"
        "deadline = time.monotonic() + 30\n"
        "while not release.exists():\n"
        "    if time.monotonic() > deadline:\n"
        "        sys.exit('never released')\n"
        "    time.sleep(0.05)\n"
        "waited.touch()\n"
    )
    return (
        "databaseId: demo\nworkflowId: held\nsteps:\n  - pipelineId: hold\n"
        f'    executionType: command\n    command: ["{{python}}", "-c", {json.dumps(code)}]\n'
        "    inputFileArity: none\n"
    )


def test_no_wait_returns_at_once_and_a_detached_worker_finishes_the_run(
    wfx: Wfx, tmp_path: Path
) -> None:
    release, waited = tmp_path / "release", tmp_path / "waited"
    workflow = tmp_path / "held.yaml"
    workflow.write_text(_held_workflow(release, waited), encoding="utf-8")
    wfx.ok("workflows", "publish", str(workflow))

    # the step runs until released, and it is released only once the CLI has returned
    started = wfx("run", "demo/held", "--no-wait", "--json")
    returned_at = datetime.now(UTC)
    release.touch()

    assert started.code == 0, str(started)
    record = started.json()
    assert record["executionStatus"] == "RUNNING"
    details = wfx.wait_until(
        record["workflowExecutionId"], lambda d: d["executionStatus"] in TERMINAL
    )
    assert details["executionStatus"] == "SUCCEEDED", details
    assert waited.exists()  # the step really ran, and saw the release
    # ... and ended after the CLI had left: the order of two events, not a time limit (the
    # table's dates hold whole seconds, and the release may end the run within the same one)
    assert returned_at.replace(microsecond=0) <= _date(details["executionStopDate"]), details
    assert details["pipelines"][0]["executionStatus"] == "SUCCEEDED"


def test_a_failing_workflow_exits_1_and_show_names_the_error(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(FAILING_WORKFLOW))

    execution_id = wfx.run_id("demo/failing", expect_code=1)

    shown = wfx.ok("executions", "show", execution_id).stdout
    assert shown.splitlines()[0].split() == [execution_id, "FAILED"]
    assert "exit code 3" in shown
    assert "the input is not a mesh" in shown
    details = wfx.json("executions", "show", execution_id)
    assert details["executionStatus"] == "FAILED"
    assert "the input is not a mesh" in details["executionError"]
    rows = {s["pipelineId"]: s for s in details["pipelines"]}
    assert rows["prepare"]["executionStatus"] == "SUCCEEDED"
    assert rows["fail"]["executionStatus"] == "FAILED"
    assert "exit code 3" in rows["fail"]["errorMessage"]
    assert rows["never"]["executionStatus"] != "SUCCEEDED"
    [failed_attempt] = rows["fail"]["attempts"]
    assert failed_attempt["status"] == "FAILED"
    assert "exit code 3" in failed_attempt["errorMessage"]
    assert rows["never"]["attempts"] == []
    outputs = {f["relativeFilePath"] for f in details["outputs"]["files"]}
    assert outputs == {"prepared.txt"}  # the step after the failure never ran
    assert wfx.listed_ids("--workflow", "demo/failing") == [execution_id]


def test_on_a_terminal_run_draws_the_steps_live_and_still_prints_only_the_id(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(FAILING_WORKFLOW))

    outcome = wfx.on_terminal("run", "demo/failing")

    assert outcome.code == 1, str(outcome)
    assert GUID.match(outcome.stdout.strip()), str(outcome)
    final = outcome.stderr.rsplit("demo/failing v1", 1)[-1]  # the last frame drawn
    # what is drawn, whether or not the terminal is taken to show colours
    final = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", final)
    assert "FAILED" in final.splitlines()[0], str(outcome)
    assert re.search(r"✔ +1\. prepare +SUCCEEDED", final), str(outcome)
    assert re.search(r"✘ +2\. fail +FAILED .*giving up", final), str(outcome)
    assert re.search(r"· +3\. never +NEW", final), str(outcome)


PAGED_LISTS = {
    "all": (),
    "workflow": ("--workflow", "demo/trivial"),
    "group": ("--group", "paging"),
    "asset": ("--asset", "demo/paged"),
}


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Wfx, list[str]]:
    """Three runs of the trivial workflow, in launch order, all in group `paging` and all
    writing to asset demo/paged (the trivial steps read nothing: the output side of the
    asset list is their only link to an asset)."""
    wfx = Wfx(tmp_path_factory.mktemp("paging") / "home")
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    launch = ("demo/trivial", "--group", "paging", "--output", "demo/paged")
    ids = [wfx.run_id(*launch) for _ in range(2)]
    record = wfx.json("run", *launch)
    assert record["executionStatus"] == "SUCCEEDED"
    return wfx, [*ids, record["workflowExecutionId"]]


@pytest.mark.parametrize("kind", PAGED_LISTS)
def test_paging_one_at_a_time_reaches_every_run_once(
    three_runs: tuple[Wfx, list[str]], kind: str
) -> None:
    wfx, launched = three_runs
    seen: list[dict[str, Any]] = []
    token: str | None = None
    for _ in range(len(launched) + 1):
        args = ["executions", "list", *PAGED_LISTS[kind], "--limit", "1"]
        page = wfx.json(*args, *(["--starting-token", token] if token else []))
        assert len(page["Items"]) <= 1
        seen.extend(page["Items"])
        token = page.get("NextToken")
        if token is None:
            break
    assert token is None, "the list never ended"
    assert [e["workflowExecutionId"] for e in seen] == launched[::-1]  # newest first, each once


def test_the_table_prints_the_token_of_the_next_page(three_runs: tuple[Wfx, list[str]]) -> None:
    wfx, launched = three_runs
    first = wfx.ok("executions", "list", "--limit", "1").stdout
    assert launched[-1] in first
    hint = next(line for line in first.splitlines() if line.startswith("Next page:"))
    token = hint.split("--starting-token", 1)[1].strip()
    second = wfx.json("executions", "list", "--limit", "1", "--starting-token", token)
    assert [e["workflowExecutionId"] for e in second["Items"]] == [launched[-2]]
