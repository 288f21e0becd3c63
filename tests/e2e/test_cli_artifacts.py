"""Seed 003 ARTIFACT as a user sees it, on SQLite: a real local run whose steps fail once and
write the same file again on their retry keeps both attempts' files, each named by its attempt,
in `executions show --json` and through `executions metadata`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from tests.e2e.cli import Wfx, output_files

pytestmark = pytest.mark.xdist_group("e2e-cli-artifacts")

# argv: the marker file, the output file's name. The first attempt writes its file and fails.
WRITES_THEN_FAILS_ONCE = (
    "import os, sys, pathlib; marker, name = pathlib.Path(sys.argv[1]), sys.argv[2]; "
    "first = not marker.exists(); marker.touch(); attempt = 1 if first else 2; "
    "pathlib.Path(os.environ['WFX_OUTPUT_DIR'], name).write_text(f'{name} of attempt {attempt}'); "
    "sys.exit(3 if first else 0)"
)


def _step(pipeline_id: str, marker: Path, name: str) -> dict[str, object]:
    return {
        "pipelineId": pipeline_id,
        "executionType": "command",
        "command": [sys.executable, "-c", WRITES_THEN_FAILS_ONCE, str(marker), name],
        "inputFileArity": "none",
        "retry": {"maxAttempts": 2, "intervalSeconds": 1},
    }


def test_each_retried_steps_attempts_keep_their_own_version_of_the_file(wfx: Wfx) -> None:
    # the first step's outputs are recorded as it finishes, the end step's by the completion
    document = {
        "databaseId": "demo",
        "workflowId": "rewrites",
        "steps": [
            _step("first", wfx.home / "first-ran", "a.txt"),
            _step("last", wfx.home / "last-ran", "b.txt"),
        ],
    }
    path = wfx.home / "rewrites.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))

    run = wfx.run_id("demo/rewrites")

    shown = wfx.json("executions", "show", run)
    assert shown["executionStatus"] == "SUCCEEDED"
    for entry, name in zip(shown["pipelines"], ("a.txt", "b.txt"), strict=True):
        step = entry["pipelineExecutionId"]
        assert [a["attempt"] for a in entry["attempts"]] == [1, 2]
        # the seed row: the step's latest, naming its attempt
        (latest,) = output_files(shown, entry)
        assert (latest["relativeFilePath"], latest["attempt"]) == (name, 2)
        artifacts = entry["artifacts"]
        assert [(a["attempt"], a["relativeFilePath"]) for a in artifacts] == [(1, name), (2, name)]
        first, second = artifacts
        assert first["versionId"] != second["versionId"]
        assert first["etag"] != second["etag"]  # the bodies differ
        assert second["versionId"] == latest["s3VersionId"]
        assert {a["pipelineExecutionId"] for a in artifacts} == {step}
        assert all(a["recordedAt"].endswith("Z") for a in artifacts)
        paged = wfx.json(
            "executions", "metadata", run, "--collection", f"pipelineExecutions[{step}].artifacts"
        )
        assert paged["Items"] == artifacts
