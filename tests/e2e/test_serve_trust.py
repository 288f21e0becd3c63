"""What a caller of `wfx serve` may not take over (issue 26, item 1): publishing a step that runs
code on the service's machine is a right of its own, and a step runs with only what it needs.
A real `wfx serve` on a free port, tokens from `wfx auth token`, requests over TCP."""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.cli import Wfx
from tests.e2e.served import serving

pytestmark = pytest.mark.integration

DATABASE = "demo"


def _token(wfx: Wfx, user: str, role: str) -> dict[str, str]:
    token = wfx.ok("auth", "token", user, "--role", role, "--ttl", "10m").stdout.strip()
    return {"Authorization": f"Bearer {token}"}


def _database_admin(wfx: Wfx, user: str = "dana") -> dict[str, str]:
    wfx.ok(
        "auth", "templates", "apply", "Database Admin", "--role", "keepers", "--database", DATABASE
    )
    return _token(wfx, user, "keepers")


def command_workflow(workflow_id: str, code: str) -> dict[str, object]:
    return {
        "databaseId": DATABASE,
        "workflowId": workflow_id,
        "steps": [
            {
                "pipelineId": "step",
                "executionType": "command",
                "command": [sys.executable, "-c", code],
                "inputFileArity": "none",
            }
        ],
    }


def test_a_database_admin_publishes_code_for_the_host_only_once_granted_the_right(
    tmp_path: Path,
) -> None:
    wfx = Wfx(tmp_path / "home")
    headers = _database_admin(wfx)
    workflow = command_workflow("escalate", "print('hello')")

    said: list[str] = []
    with serving(wfx, said=said) as (base, _):
        refused = httpx.put(f"{base}/workflows", json=workflow, headers=headers)
        assert refused.status_code == 403, refused.text
        message = refused.json()["message"]
        assert "PUT on hostCode" in message and "command step" in message
        assert "Host Code Publisher" in message

        wfx.ok(
            "auth",
            "templates",
            "apply",
            "Host Code Publisher",
            "--role",
            "keepers",
            "--database",
            DATABASE,
        )
        # a grant reaches a running service within a second: asked again until it has
        deadline = time.monotonic() + 30
        while (
            accepted := httpx.put(f"{base}/workflows", json=workflow, headers=headers)
        ).status_code == 403 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert accepted.status_code == 201, accepted.text
    assert [row["workflowId"] for row in wfx.json("workflows", "list")["Items"]] == ["escalate"]
    # without --step-user the service says once what its steps may do
    assert len([line for line in said if "steps run with the service's own rights" in line]) == 1


PRINT_ENVIRONMENT = "import json, os; print('ENV=' + json.dumps(dict(os.environ)))"
STEP_TABLE = {
    "WFX_INPUT_LIST",
    "WFX_INPUT_FILES",
    "WFX_OUTPUT_DIR",
    "WFX_EXECUTION_ID",
    "WFX_PIPELINE_EXECUTION_ID",
    "WFX_REGISTRATION_TOKEN",
}


def _launch_and_wait(
    base: str, headers: dict[str, str], workflow_id: str, inputs: list[dict[str, str]] | None = None
) -> dict[str, object]:
    launched = httpx.post(
        f"{base}/workflows/executions",
        json={"workflowDatabaseId": DATABASE, "workflowId": workflow_id, "inputs": inputs or []},
        headers=headers,
    )
    assert launched.status_code == 201, launched.text
    run = f"{base}/workflows/executions/{launched.json()['workflowExecutionId']}"
    deadline = time.monotonic() + 60
    while True:
        shown: dict[str, object] = httpx.get(run, headers=headers).json()["message"]
        if shown["executionStatus"] in ("SUCCEEDED", "FAILED") or time.monotonic() > deadline:
            return shown
        time.sleep(0.2)


def _step_log(base: str, headers: dict[str, str], execution_id: object) -> str:
    answer = httpx.get(
        f"{base}/workflows/executions/{execution_id}/logs", params={"mode": "full"}, headers=headers
    )
    assert answer.status_code == 200, answer.text
    return "\n".join(event["message"] for event in answer.json()["message"]["events"])


def test_a_step_run_by_the_service_gets_none_of_the_services_environment(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    wfx = Wfx(
        home,
        WFX_DB=str(home / "wfx.db"),
        AWS_ACCESS_KEY_ID="AKIASERVICEONLY00000",
        AWS_SECRET_ACCESS_KEY="service-secret",
        DATABASE_URL="postgres://svc:pw@db/x",
    )
    admin = _token(wfx, "root", "admin")

    with serving(wfx) as (base, _):
        published = httpx.put(
            f"{base}/workflows", json=command_workflow("env", PRINT_ENVIRONMENT), headers=admin
        )
        assert published.status_code == 201, published.text
        shown = _launch_and_wait(base, admin, "env")
        assert shown["executionStatus"] == "SUCCEEDED", shown
        log = _step_log(base, admin, shown["workflowExecutionId"])

    (line,) = [line for line in log.splitlines() if line.startswith("ENV=")]
    environment = json.loads(line.removeprefix("ENV="))
    assert set(environment) >= STEP_TABLE
    leaked = {name for name in environment if name.startswith(("WFX_", "AWS_"))} - STEP_TABLE
    assert leaked == set(), leaked
    assert "DATABASE_URL" not in environment
    values = " ".join(environment.values())
    for private in ("wfx.db", "token-signing-key.pem", "registration.key"):
        assert private not in values


# A step that reads its inputs, writes an output, tries the service's files (its arguments: a
# publisher knows where WFX_HOME is; its files are the secret) and says who it is.
TRY_SECRETS = (
    'while IFS= read -r input; do cat "$input"; done < "$WFX_INPUT_LIST"; '
    'echo made > "$WFX_OUTPUT_DIR/out.txt"; '
    'for path in "$@"; do if [ -d "$path" ]; then ls "$path"; else cat "$path"; fi > /dev/null '
    '&& echo "READ $path"; done; '
    "grep '^Uid:' /proc/$$/status"
)


@pytest.fixture
def step_user() -> Iterator[str]:
    """A fresh OS user for the steps, removed after."""
    if os.geteuid() != 0:
        pytest.skip("creating a step user (useradd) and switching to it need root; CI is root")
    name = f"wfxstep{secrets.token_hex(3)}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/sh", name], check=True)
    try:
        yield name
    finally:
        subprocess.run(["userdel", name], check=False)


def test_with_a_step_user_a_step_reads_its_inputs_but_not_the_key_or_the_database(
    step_user: str,
) -> None:
    # the home must be reachable by the step user: pytest's own folders are root's alone
    root = Path(tempfile.mkdtemp(prefix="wfx-step-user-"))
    os.chmod(root, 0o711)
    home = root / "home"
    wfx = Wfx(home)
    admin = _token(wfx, "root", "admin")  # makes the signing key
    private = [home / "token-signing-key.pem", home / "wfx.db", home / "objects"]
    (root / "scan.txt").write_text("hello from the input\n", encoding="utf-8")
    wfx.ok("assets", "import", DATABASE, "scans", str(root / "scan.txt"))
    workflow = {
        **command_workflow("try", ""),
        "steps": [
            {
                "pipelineId": "try",
                "executionType": "command",
                "command": ["/bin/sh", "-c", TRY_SECRETS, "try", *map(str, private)],
            }
        ],
    }
    document = root / "try.json"
    document.write_text(json.dumps(workflow), encoding="utf-8")
    wfx.ok("workflows", "publish", str(document))
    uid = pwd.getpwnam(step_user).pw_uid

    try:
        said: list[str] = []
        with serving(wfx, "--step-user", step_user, said=said) as (base, _):
            shown = _launch_and_wait(
                base, admin, "try", [{"databaseId": DATABASE, "assetId": "scans"}]
            )
            assert shown["executionStatus"] == "SUCCEEDED", shown
            log = _step_log(base, admin, shown["workflowExecutionId"])
            details = httpx.get(
                f"{base}/workflows/executions/{shown['workflowExecutionId']}/details",
                headers=admin,
            ).json()["message"]
    finally:
        shutil.rmtree(root, ignore_errors=True)

    assert "hello from the input" in log, log
    files = details["outputs"]["files"]
    assert [f["relativeFilePath"] for f in files] == ["out.txt"], files
    # "denied": redaction reads "key.pem: Permission" as a secret pair (issue 26, item 7)
    assert log.count("denied") == len(private) and "READ" not in log, log
    assert f"Uid:\t{uid}\t{uid}\t{uid}\t{uid}" in log, log
    assert any(f"steps run as OS user {step_user}" in line for line in said), said
    assert not any("the service's own rights" in line for line in said)


PYTHON_STEP = """
import os, pathlib

def try_secrets(input_files, output_dir, execution_id, pipeline_execution_id):
    for path in input_files:
        print(pathlib.Path(path).read_text().strip())
    pathlib.Path(output_dir, "out.txt").write_text("made")
    for path in PRIVATE:
        try:
            pathlib.Path(path).read_bytes()
            print("READ", path)
        except OSError as error:
            print("refused", type(error).__name__)
    print("uid", os.getuid())
"""


def test_with_a_step_user_a_python_step_runs_as_it_too(step_user: str) -> None:
    try:
        runs = subprocess.run([sys.executable, "-c", "pass"], user=step_user, check=False)
    except OSError:
        runs = None
    if runs is None or runs.returncode != 0:
        pytest.skip(
            f"{step_user} cannot run this interpreter ({sys.executable}): a python step runs "
            "as the step user in wfx's interpreter, which must be readable to it"
        )
    root = Path(tempfile.mkdtemp(prefix="wfx-step-user-"))
    os.chmod(root, 0o711)
    home = root / "home"
    wfx = Wfx(home)
    admin = _token(wfx, "root", "admin")
    private = [str(home / "token-signing-key.pem"), str(home / "wfx.db")]
    code = root / "code"
    code.mkdir(mode=0o755)
    (code / "stepcode.py").write_text(f"PRIVATE = {private!r}\n{PYTHON_STEP}", encoding="utf-8")
    os.chmod(code / "stepcode.py", 0o644)
    (root / "scan.txt").write_text("hello from the input\n", encoding="utf-8")
    wfx.ok("assets", "import", DATABASE, "scans", str(root / "scan.txt"))
    step = {
        "pipelineId": "try",
        "executionType": "python",
        "handler": "stepcode:try_secrets",
        "handlerPath": str(code),
    }
    document = root / "try.json"
    document.write_text(
        json.dumps({"databaseId": DATABASE, "workflowId": "try", "steps": [step]}),
        encoding="utf-8",
    )
    wfx.ok("workflows", "publish", str(document))

    try:
        with serving(wfx, "--step-user", step_user) as (base, _):
            scans = [{"databaseId": DATABASE, "assetId": "scans"}]
            shown = _launch_and_wait(base, admin, "try", scans)
            assert shown["executionStatus"] == "SUCCEEDED", shown
            log = _step_log(base, admin, shown["workflowExecutionId"])
    finally:
        shutil.rmtree(root, ignore_errors=True)

    assert "hello from the input" in log and "READ" not in log, log
    assert log.count("refused PermissionError") == len(private), log
    assert f"uid {pwd.getpwnam(step_user).pw_uid}" in log, log
