"""Issue 8: a run that meets every kind of secret leaves none in WFX_HOME or in any CLI output.

A python step and a command step print every kind on stdout and stderr, the command step fails
with them in its error message, the command's text carries secrets known by their shape, and two
values are registered (WFX_REDACT and WFX_REDACT_FILE). Then every file under WFX_HOME, the
SQLite database included, is read as bytes. Secrets are assembled so no scanner flags this file.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from tests.e2e.cli import Outcome, Wfx

URL_PASSWORD = "s3cr3t" + "-in-a-url"
GITHUB = "gh" + "p_" + "E2eT0kenAbCdEfGhIjKlMnOpQrStUvWxYz12"
PG_PASSWORD = "pg pass" + "word with spaces"
CLIENT_SECRET = "client" + "-secret-e2e-value"
AWS_KEY_ID = "AK" + "IA" + "E2EKEYID00000042"
AWS_SECRET = "e2eSecretAccessKey/" + "Abcdefghijklmnopq+RST"
SLACK = "xo" + "xb-123456789012-" + "E2eSlackTokenAbcdEfgh"
API_KEY = "sk-" + "E2eApiKey0123456789abcdefghijklmnopq"
JWT_PAYLOAD = "ey" + "JzdWIiOiJlMmUtc3ViamVjdCJ9"
JWT_SIGNATURE = "E2eJwtSignature" + "0123456789abcdefgh"
PEM_BODY = tuple(("MIIE" + f"e2eKeyBodyLine{n}" * 5)[:64] for n in range(3))
CUT_BODY = ("b3BlbnNzaC1rZXkt" + "e2eCutOffBody" * 5)[:64]
REGISTERED = "registered-" + "via-env-e2e"
FILE_REGISTERED = "registered-" + "via-file-e2e"
# Written into the command step's text: the shape-known kinds and a registered value.
COMMAND_URL_PASSWORD = "cmd-" + "url-password-e2e"
COMMAND_GITHUB = "gh" + "p_" + "CommandTextTokenAbCdEfGhIjKlMnOpQrS"
COMMAND_REGISTERED = "registered-" + "in-command-e2e"

SECRETS = (
    URL_PASSWORD,
    GITHUB[4:],
    PG_PASSWORD,
    CLIENT_SECRET,
    AWS_KEY_ID,
    AWS_SECRET,
    SLACK[5:],
    API_KEY[3:],
    JWT_PAYLOAD,
    JWT_SIGNATURE,
    *PEM_BODY,
    CUT_BODY,
    REGISTERED,
    FILE_REGISTERED,
    COMMAND_URL_PASSWORD,
    COMMAND_GITHUB[4:],
    COMMAND_REGISTERED,
)
PLANTED = "\n".join(
    [
        f"connecting to postgres://admin:{URL_PASSWORD}@db/x",
        f"export GITHUB_TOKEN={GITHUB}",
        f"PGPASSWORD='{PG_PASSWORD}' psql",
        AWS_KEY_ID,
        AWS_SECRET,
        f"slack {SLACK} openai {API_KEY}",
        "Authorization: Bearer ey" + "JhbGciOiJIUzI1NiJ9" + f".{JWT_PAYLOAD}.{JWT_SIGNATURE}",
        "-----BEGIN RSA PRIVATE KEY-----",
        *PEM_BODY,
        "-----END RSA PRIVATE KEY-----",
        f"registered {REGISTERED} and {FILE_REGISTERED}",
        json.dumps({"client_secret": CLIENT_SECRET}),
    ]
)
PYTHON_STEP = """
import os, sys

def run(**_):
    text = open(os.environ["PLANTED_FILE"], encoding="utf-8").read()
    print(text)
    sys.stderr.write(text + "\\n")
"""
# stdout ends inside a key block that never ends (a cut log); stderr is the error message
COMMAND_CODE = (
    "import os, sys; text = open(os.environ['PLANTED_FILE'], encoding='utf-8').read(); "
    "print(' '.join(sys.argv[1:])); print(text); sys.stderr.write(text + '\\n'); "
    "print('-----BEGIN OPENSSH PRIVATE KEY-----'); print(os.environ['CUT_BODY']); sys.exit(3)"
)


@pytest.fixture
def planted_wfx(tmp_path: Path) -> Wfx:
    outside = tmp_path / "outside"  # the user's own files, not wfx's: never under WFX_HOME
    (outside / "code").mkdir(parents=True)
    (outside / "code" / "planted_step.py").write_text(PYTHON_STEP, encoding="utf-8")
    (outside / "planted.txt").write_text(PLANTED, encoding="utf-8")
    (outside / "secrets.txt").write_text(f"{FILE_REGISTERED}\nab\n", encoding="utf-8")
    return Wfx(
        tmp_path / "home",
        WFX_REDACT=f"{REGISTERED},{COMMAND_REGISTERED}",
        WFX_REDACT_FILE=str(outside / "secrets.txt"),
        PLANTED_FILE=str(outside / "planted.txt"),
        CUT_BODY=CUT_BODY,
        WFX_STEP_ENV="PLANTED_FILE,CUT_BODY",  # a step gets only what the operator passes on
        # the planted code, then wfx's own (a tree on PYTHONPATH, not an install, in a checkout)
        PYTHONPATH=os.pathsep.join(
            filter(None, (str(outside / "code"), os.environ.get("PYTHONPATH")))
        ),
    )


def _publish(wfx: Wfx, folder: Path) -> Outcome:
    command = [sys.executable, "-c", COMMAND_CODE]
    command += [f"--db=postgres://admin:{COMMAND_URL_PASSWORD}@db/x", COMMAND_GITHUB]
    command += [COMMAND_REGISTERED]
    document = {
        "databaseId": "demo",
        "workflowId": "planted",
        "steps": [
            {
                "pipelineId": "python-prints",
                "executionType": "python",
                "handler": "planted_step:run",
                "inputFileArity": "none",
            },
            {
                "pipelineId": "command-fails",
                "executionType": "command",
                "command": command,
                "inputFileArity": "none",
            },
        ],
    }
    path = folder / "workflow.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return wfx.ok("workflows", "publish", str(path))


def test_no_planted_secret_is_stored_under_wfx_home_or_printed(
    planted_wfx: Wfx, tmp_path: Path
) -> None:
    wfx = planted_wfx
    outputs = [_publish(wfx, tmp_path / "outside")]
    run = wfx("run", "demo/planted")
    assert run.code == 1, str(run)
    execution_id = run.stdout.strip()
    outputs.append(run)
    outputs += [wfx.ok("executions", "show", execution_id)]
    shown = wfx.ok("executions", "show", execution_id, "--json")
    outputs.append(shown)
    outputs += [wfx.ok("executions", "logs", execution_id, *mode) for mode in ((), ("--full",))]
    outputs.append(wfx.ok("executions", "logs", execution_id, "--full", "--json"))
    details = shown.json()
    log_ids = [log["logId"] for step in details["pipelines"] for log in step["availableLogs"]]
    assert len(log_ids) == 2  # each step's own log
    outputs += [wfx.ok("executions", "logs", execution_id, "--log-id", i) for i in log_ids]

    # the run did meet the secrets: its logs and error say so, redacted
    assert details["executionStatus"] == "FAILED"
    assert "exit code 3" in details["executionError"]
    full = outputs[-3].stdout
    assert "-----BEGIN RSA PRIVATE KEY-----" in full and "postgres://admin:[REDACTED]@db/x" in full
    assert "PGPASSWORD='[REDACTED]'" in full
    assert "executionLog" not in details  # the log leaves by the logs route only

    stored = {path: path.read_bytes() for path in wfx.home.rglob("*") if path.is_file()}
    assert any(path.suffix == ".db" for path in stored) and any(
        path.suffix == ".log" for path in stored
    )
    for secret in SECRETS:
        for path, content in stored.items():
            assert secret.encode() not in content, f"{secret!r} stored in {path}"
        for outcome in outputs:
            assert secret not in outcome.stdout + outcome.stderr, f"{secret!r} in {outcome}"
