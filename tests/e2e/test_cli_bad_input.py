"""Bad input to `wfx`: one `error: ...` line on stderr that names the problem, exit 2, and not
one row, object or log written.

All cases share one home that already holds a published workflow, imported files and a finished
run, so "nothing written" is checked against a store with something in it.
"""

from __future__ import annotations

import base64
import json
import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import Wfx, assert_bad_input, publish_mesh_and_import

# One worker per module under xdist: the shared home is then set up once, not per worker.
pytestmark = pytest.mark.xdist_group("e2e-cli-bad-input")

SINGLE_FILE_WORKFLOW = """\
databaseId: demo
workflowId: single-file
steps:
  - pipelineId: one-mesh
    executionType: python
    handler: wfx_examples.trivial.steps:noop
    inputFileArity: one
"""
SAME_PIPELINE_TWICE_WORKFLOW = """\
databaseId: demo
workflowId: twice
steps:
  - pipelineId: convert
    executionType: python
    handler: wfx_examples.trivial.steps:noop
  - pipelineId: convert
    executionType: python
    handler: wfx_examples.trivial.steps:noop
"""
MISSPELLED_KEY_WORKFLOW = """\
databaseId: demo
workflowId: misspelled
steps:
  - pipelineId: one-mesh
    executionType: python
    hanlder: wfx_examples.trivial.steps:noop
"""
UNPARSABLE_WORKFLOW = "databaseId: demo\nsteps: [\n"

RUN_MESH = ("run", "demo/mesh-report")
# The run already in the home, with a client token a case reuses.
FIRST_RUN = ("demo/mesh-report", "--input", "demo/meshes", "--client-token", "first-run")


@dataclass(frozen=True)
class Home:
    wfx: Wfx
    files: Path


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("bad-input")
    files = root / "files"
    files.mkdir()
    for name, text in {
        "single.yaml": SINGLE_FILE_WORKFLOW,
        "misspelled.yaml": MISSPELLED_KEY_WORKFLOW,
        "unparsable.yaml": UNPARSABLE_WORKFLOW,
        "twice.yaml": SAME_PIPELINE_TWICE_WORKFLOW,
    }.items():
        (files / name).write_text(text, encoding="utf-8")
    (files / "empty").mkdir()
    os.mkfifo(files / "pipe")
    wfx = Wfx(root / "home")
    publish_mesh_and_import(wfx)
    wfx.ok("workflows", "publish", str(files / "single.yaml"))
    wfx.run_id(*FIRST_RUN)
    return Home(wfx, files)


def snapshot(home: Path) -> dict[str, Any]:
    """Every row of every table, and the name and size of every stored object and log."""
    database = home / "wfx.db"
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        rows = {t: sorted(map(repr, db.execute(f'SELECT * FROM "{t}"'))) for t in tables}
    stored = {
        str(path.relative_to(home)): path.stat().st_size
        for path in home.rglob("*")
        if path.is_file() and not path.name.startswith(database.name)
    }
    assert rows["WorkflowExecutionsStorageTableV2"], "the home should hold a run already"
    return {"rows": rows, "files": stored}


def _token(value: object) -> str:
    """A token that decodes cleanly but was never issued by any list."""
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


# id -> (arguments, words the error line must contain); {files} is the folder of test files.
CASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "unknown workflow": (("run", "demo/nope", "--input", "demo/meshes"), ("demo/nope",)),
    "unknown workflow version": (
        (*RUN_MESH, "--version", "9", "--input", "demo/meshes"),
        ("demo/mesh-report", "version 9"),
    ),
    "unknown asset": ((*RUN_MESH, "--input", "demo/nothing"), ("demo/nothing", "not found")),
    "unknown file of an asset": (
        (*RUN_MESH, "--input", "demo/meshes/cube.obj"),
        ("demo/meshes/cube.obj", "not found"),
    ),
    "input without a delimiter": ((*RUN_MESH, "--input", "nodelimiter"), ("'nodelimiter'",)),
    "input without an asset": ((*RUN_MESH, "--input", "db/"), ("'db/'", "DATABASE_ID/ASSET_ID")),
    "input without a database": (
        (*RUN_MESH, "--input", "/asset"),
        ("'/asset'", "DATABASE_ID/ASSET_ID"),
    ),
    "output naming a file": (
        (*RUN_MESH, "--input", "demo/meshes", "--output", "demo/results/x.obj"),
        ("output", "'demo/results/x.obj'"),
    ),
    "trigger in the stored form": (
        (*RUN_MESH, "--input", "demo/meshes", "--trigger", "Manual"),
        ("trigger", "manual, fileUpload", "'Manual'"),
    ),
    "group with surrounding spaces": (
        (*RUN_MESH, "--input", "demo/meshes", "--group", " nightly"),
        ("--group: ",),
    ),
    "two files for a step that takes one": (
        (
            "run",
            "demo/single-file",
            "--input",
            "demo/meshes/bunny.obj",
            "--input",
            "demo/meshes/torus.obj",
        ),
        ("one-mesh", "inputFileArity one", "2"),
    ),
    "client token reused for another request": (
        ("run", *FIRST_RUN, "--group", "nightly"),
        ("--client-token", "'first-run'", "different request"),
    ),
    "client token with a space": (
        (*RUN_MESH, "--input", "demo/meshes", "--client-token", "night run"),
        ("--client-token", "' '"),
    ),
    "client token over 80 characters": (
        (*RUN_MESH, "--input", "demo/meshes", "--client-token", "t" * 81),
        ("--client-token", "1 to 80"),
    ),
    "client token outside the logging-safe set": (
        (*RUN_MESH, "--input", "demo/meshes", "--client-token", "run.1"),
        ("--client-token", "0-9, A-Z, a-z, - and _"),
    ),
    "missing workflow argument": (("run",), ("Missing argument", "DATABASE_ID/WORKFLOW_ID")),
    "limit 0": (("executions", "list", "--limit", "0"), ("--limit", "greater than or equal to 1")),
    "limit 101": (
        ("executions", "list", "--limit", "101"),
        ("--limit", "less than or equal to 100"),
    ),
    "log lines over 10000": (
        ("executions", "logs", "00000000-0000-4000-8000-000000000000", "--limit", "10001"),
        ("--limit", "less than or equal to 10000"),
    ),
    "limit not a number": (("executions", "list", "--limit", "ten"), ("--limit",)),
    "asset together with group": (
        ("executions", "list", "--asset", "demo/meshes", "--group", "nightly"),
        ("--group", "--asset"),
    ),
    "asset together with workflow": (
        ("executions", "list", "--asset", "demo/meshes", "--workflow", "demo/mesh-report"),
        ("--workflow", "--asset"),
    ),
    "asset list naming a file": (
        ("executions", "list", "--asset", "demo/meshes/bunny.obj"),
        ("asset", "'demo/meshes/bunny.obj'"),
    ),
    "unknown key in a workflow file": (
        ("workflows", "publish", "{files}/misspelled.yaml"),
        ("steps[0].hanlder: unknown key",),
    ),
    "workflow file that does not parse": (
        ("workflows", "publish", "{files}/unparsable.yaml"),
        ("unparsable.yaml", "not valid YAML", "line 3"),
    ),
    "missing workflow file": (
        ("workflows", "publish", "{files}/absent.yaml"),
        ("absent.yaml", "No such file"),
    ),
    "missing file to import": (
        ("assets", "import", "demo", "meshes", "{files}/absent.obj"),
        ("absent.obj", "does not exist"),
    ),
    "a device to import": (
        ("assets", "import", "demo", "meshes", "/dev/null"),
        ("/dev/null", "not a regular file", "a device"),
    ),
    "a named pipe to import": (
        ("assets", "import", "demo", "meshes", "{files}/pipe"),
        ("pipe", "not a regular file", "a named pipe"),
    ),
    "an empty folder to import": (
        ("assets", "import", "demo", "meshes", "{files}/empty"),
        ("no files in", "empty", "nothing to import"),
    ),
    "two steps with one pipeline id": (
        ("workflows", "publish", "{files}/twice.yaml"),
        ("steps[1].pipelineId", "'convert'", "steps[0]"),
    ),
    "metadata without a value": (
        ("assets", "import", "demo", "meshes", "{files}/single.yaml", "--metadata", "source"),
        ("--metadata", "KEY=VALUE"),
    ),
    "unknown execution": (
        ("executions", "show", "00000000-0000-4000-8000-000000000000"),
        ("execution 00000000-0000-4000-8000-000000000000 not found",),
    ),
}
TOKEN_LISTS: dict[str, tuple[str, ...]] = {
    "global": (),
    "workflow": ("--workflow", "demo/mesh-report"),
    "group": ("--group", "nightly"),
    "asset": ("--asset", "demo/meshes"),
}
TOKENS = {"not base64": "!!!", "foreign json": _token({"a": 1})}


def _expect_refusal(home: Home, args: tuple[str, ...], *named: str, **env: str) -> None:
    wfx = home.wfx.with_environment(**env) if env else home.wfx
    before = snapshot(wfx.home)

    outcome = wfx(*(arg.replace("{files}", str(home.files)) for arg in args))

    assert_bad_input(outcome, *named)
    assert snapshot(wfx.home) == before


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(home: Home, case: str) -> None:
    args, named = CASES[case]
    _expect_refusal(home, args, *named)


@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("kind", TOKEN_LISTS)
def test_a_token_no_list_issued_is_refused(home: Home, kind: str, token: str) -> None:
    args = ("executions", "list", *TOKEN_LISTS[kind], "--starting-token", TOKENS[token])
    _expect_refusal(home, args, "--starting-token")


def test_a_forged_asset_list_token_is_refused(home: Home) -> None:
    args = ("executions", "list", "--asset", "demo/meshes", "--starting-token", _token([1, 2, 3]))
    _expect_refusal(home, args, "--starting-token")


def test_a_retry_with_the_same_client_token_returns_the_same_run_and_writes_nothing(
    home: Home,
) -> None:
    first = home.wfx.json("executions", "list", "--workflow", "demo/mesh-report")["Items"]
    before = snapshot(home.wfx.home)

    retried = home.wfx.run_id(*FIRST_RUN)

    assert [e["workflowExecutionId"] for e in first] == [retried]
    assert snapshot(home.wfx.home) == before


def test_an_unknown_store_is_refused(home: Home) -> None:
    _expect_refusal(home, ("executions", "list"), "WFX_STORE", "'postgres'", WFX_STORE="postgres")


def test_the_version_and_short_help(home: Home) -> None:
    version = home.wfx.ok("--version")
    assert version.stdout.startswith("wfx "), str(version)
    for args in (("-h",), ("executions", "-h"), ("approvals", "approve", "-h")):
        helped = home.wfx.ok(*args)
        assert "Usage:" in helped.stdout and "seed 00" not in helped.stdout, str(helped)
