"""`wfx executions logs` of a step that failed once and succeeded on its retry: each attempt's
lines under a header of their own, and apart in --json."""

from __future__ import annotations

import sys

import yaml

from tests.e2e.cli import Wfx

# The first attempt leaves a marker file beside the run's home and fails; the second succeeds.
_FLAKY = (
    "import os, sys\n"
    "first = not os.path.exists('flaky-ran')\n"
    "open('flaky-ran', 'a').close()\n"
    "print('first try, failing' if first else 'second try, fine', flush=True)\n"
    "sys.exit(3 if first else 0)\n"
)


def _flaky_run(wfx: Wfx) -> str:
    document = {
        "databaseId": "demo",
        "workflowId": "flaky",
        "steps": [
            {
                "pipelineId": "convert",
                "executionType": "command",
                "command": [sys.executable, "-c", _FLAKY],
                "inputFileArity": "none",
                "retry": {"maxAttempts": 2, "intervalSeconds": 1},
            }
        ],
    }
    path = wfx.home / "flaky.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))
    return wfx.run_id("demo/flaky")


def test_each_attempt_is_printed_under_its_own_header_in_order(wfx: Wfx) -> None:
    execution_id = _flaky_run(wfx)

    printed = wfx.ok("executions", "logs", execution_id).stdout.splitlines()

    first = printed.index("== step convert, attempt 1 (FAILED) ==")
    second = printed.index("== step convert, attempt 2 (SUCCEEDED) ==")
    assert first < printed.index("first try, failing") < second
    assert second < printed.index("second try, fine")
    assert not any("wfx: attempt" in line for line in printed)  # the runner's marker is no line


def test_json_gives_each_attempt_apart_with_its_status_and_lines(wfx: Wfx) -> None:
    execution_id = _flaky_run(wfx)

    answer = wfx.json("executions", "logs", execution_id)

    attempts = [(a["pipelineId"], a["attempt"], a["status"]) for a in answer["attempts"]]
    assert attempts == [("convert", 1, "FAILED"), ("convert", 2, "SUCCEEDED")]
    assert "first try, failing" in answer["attempts"][0]["lines"]
    assert answer["attempts"][1]["lines"] == ["second try, fine"]


def test_follow_says_where_the_retry_starts(wfx: Wfx) -> None:
    execution_id = _flaky_run(wfx)

    printed = wfx.ok("executions", "logs", execution_id, "--follow").stdout.splitlines()

    retry = printed.index("== attempt 2 ==")
    assert printed.index("first try, failing") < retry < printed.index("second try, fine")
    assert not any("wfx: attempt" in line for line in printed)
