"""`wfx executions rerun` and `POST /workflows/executions/{executionId}/rerun` on a real
`wfx serve`, on SQLite and on DynamoDB (moto's server in this process, the CLI as subprocesses):
a run that failed is rerun as a new run that reads the same inputs and, once the fault is fixed,
succeeds; the run it reruns is left as it was; a run still going is refused.

Every command runs in the module fixture and the tests read what it captured: under xdist another
test's `mock_aws()` may reset moto's shared backends between two tests, never inside a fixture.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from conftest import restore_dynamodb_tables
from tests.e2e.cli import FAKE_AWS, MESH_ASSETS, MESH_FILES, TERMINAL, USER, Outcome, Wfx
from tests.e2e.served import serving
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-rerun-on-moto-server")]

# The step says which files it read (a JSON line in its log), then fails until the marker exists.
READER = """
import json, os, sys
paths = open(os.environ["WFX_INPUT_LIST"], encoding="utf-8").read().splitlines()
print(json.dumps({"read": sorted(os.path.basename(p) for p in paths)}))
sys.exit(0 if os.path.exists(sys.argv[1]) else 3)
"""


@dataclass(frozen=True)
class Reruns:
    failed_id: str
    before: Any  # the failed run's details before any rerun
    after: Any  # and after them all
    still_failing: Outcome  # `rerun --wait` before the fix
    fixed: Outcome  # `rerun --wait --json` after it
    fixed_shown: str
    read: dict[str, list[str]]  # run id -> the files its step read
    inputs: dict[str, list[Any]]  # run id -> its input rows (ids and dates left out)
    over_http: httpx.Response
    http_run: Any
    running_refused: Outcome
    running_over_http: httpx.Response


def _publish(wfx: Wfx, workflow_id: str, code: str, arity: str, *args: str) -> None:
    step = {
        "pipelineId": "step",
        "executionType": "command",
        "command": [sys.executable, "-c", code, *args],
        "inputFileArity": arity,
    }
    document = {"databaseId": "demo", "workflowId": workflow_id, "steps": [step]}
    path = wfx.home / f"{workflow_id}.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def _read(wfx: Wfx, execution_id: str) -> list[str]:
    log = wfx.ok("executions", "logs", execution_id).stdout
    [line] = [line for line in log.splitlines() if line.startswith('{"read"')]
    return list(json.loads(line)["read"])


def _inputs(details: Any) -> list[Any]:
    return list(details["inputFiles"])


def _ended(base: str, headers: dict[str, str], execution_id: str) -> Any:
    deadline = time.monotonic() + 60
    while True:
        answer = httpx.get(f"{base}/workflows/executions/{execution_id}", headers=headers)
        shown = answer.json().get("message", {})
        if shown.get("executionStatus") in TERMINAL or time.monotonic() > deadline:
            return shown
        time.sleep(0.2)


def _flow(wfx: Wfx, root: Path) -> Reruns:
    marker = root / "fixed"
    _publish(wfx, "fixable", READER, "many", str(marker))
    _publish(wfx, "sleepy", "import time; time.sleep(120)", "none")
    wfx.ok("assets", "import", "demo", "meshes", str(MESH_ASSETS))
    failed_id = wfx.run_id(
        "demo/fixable", "--input", "demo/meshes", "--output", "demo/results", expect_code=1
    )
    before = wfx.json("executions", "show", failed_id)

    still_failing = wfx("executions", "rerun", failed_id, "--wait")
    marker.write_text("fixed\n", encoding="utf-8")
    fixed = wfx("executions", "rerun", failed_id, "--wait", "--json", "--group", "retry-cli")
    fixed_id = fixed.json()["workflowExecutionId"]

    sleepy = wfx.ok("run", "demo/sleepy", "--no-wait").stdout.strip()
    running_refused = wfx("executions", "rerun", sleepy)

    token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()
    headers = {"Authorization": f"Bearer {token}"}
    # one process: the rerun's answer is the same from any; test_serve_workers serves from two
    with serving(wfx, "--workers", "1") as (base, _):
        over_http = httpx.post(
            f"{base}/workflows/executions/{failed_id}/rerun",
            json={"executionGroupId": "retry-http"},
            headers=headers,
        )
        http_id = over_http.json()["message"]["executionId"]
        http_run = _ended(base, headers, http_id)
        running_over_http = httpx.post(
            f"{base}/workflows/executions/{sleepy}/rerun", json={}, headers=headers
        )
    wfx.ok("executions", "abort", sleepy)

    ids = [failed_id, still_failing.stdout.strip(), fixed_id, http_id]
    after = wfx.json("executions", "show", failed_id)
    return Reruns(
        failed_id=failed_id,
        before=before,
        after=after,
        still_failing=still_failing,
        fixed=fixed,
        fixed_shown=wfx.ok("executions", "show", fixed_id).stdout,
        read={run: _read(wfx, run) for run in ids},
        # the run rerun as shown once every rerun is made: `after`, read once
        inputs={
            run: _inputs(after if run == failed_id else wfx.json("executions", "show", run))
            for run in ids
        },
        over_http=over_http,
        http_run=http_run,
        running_refused=running_refused,
        running_over_http=running_over_http,
    )


@pytest.fixture(scope="module", params=["sqlite", "dynamodb"])
def reruns(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Reruns]:
    root = tmp_path_factory.mktemp(f"rerun-{request.param}")
    if request.param == "sqlite":
        yield _flow(Wfx(root / "home"), root)
        return
    # taken first: made the first time in a mock_aws(), which empties the server's backends
    tables = request.getfixturevalue("_pristine_dynamodb_tables")
    # one request at a time: the flow aborts a run its worker is writing (the module's note on
    # moto's threads: two writers of one item)
    with moto_server(one_request_at_a_time=True) as endpoint:
        restore_dynamodb_tables(tables)  # every table, empty, as `wfx tables create` makes them
        wfx = Wfx(root / "home", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS)
        yield _flow(wfx, root)


def test_a_failed_run_rerun_before_the_fix_fails_again_as_a_new_run(reruns: Reruns) -> None:
    outcome = reruns.still_failing
    assert outcome.code == 1, str(outcome)
    assert outcome.stdout.strip() != reruns.failed_id


def test_once_fixed_the_rerun_succeeds_and_names_the_run_it_reruns(reruns: Reruns) -> None:
    outcome = reruns.fixed
    assert outcome.code == 0, str(outcome)
    run = outcome.json()
    assert run["executionStatus"] == "SUCCEEDED"
    assert run["rerunOfExecutionId"] == reruns.failed_id
    assert run["executionGroupId"] == "retry-cli"
    assert run["triggerType"] == "Manual"
    assert f"rerun of  {reruns.failed_id}\n" in reruns.fixed_shown


def test_the_rerun_over_http_answers_as_vams_and_succeeds(reruns: Reruns) -> None:
    answer = reruns.over_http
    assert answer.status_code == 200, answer.text
    assert answer.json()["message"]["executionGroupId"] == "retry-http"
    run = reruns.http_run
    assert run["executionStatus"] == "SUCCEEDED", run
    assert run["rerunOfExecutionId"] == reruns.failed_id
    assert run["triggeredByUserId"] == USER


def test_every_rerun_reads_what_the_run_it_reruns_read(reruns: Reruns) -> None:
    assert set(reruns.read) == set(reruns.inputs)
    for run, read in reruns.read.items():
        assert read == sorted(MESH_FILES), run
        assert reruns.inputs[run] == reruns.inputs[reruns.failed_id], run


def test_the_run_rerun_is_left_as_it_was(reruns: Reruns) -> None:
    assert reruns.after == reruns.before
    assert reruns.before["executionStatus"] == "FAILED"


def test_a_run_still_going_is_refused_by_the_cli_and_the_service(reruns: Reruns) -> None:
    outcome = reruns.running_refused
    assert outcome.code == 2, str(outcome)
    assert "only an execution that has ended can be rerun" in outcome.stderr
    answer = reruns.running_over_http
    assert answer.status_code == 409, answer.text
    assert "only an execution that has ended can be rerun" in answer.json()["message"]
