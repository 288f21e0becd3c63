"""Two real `wfx import` processes into DynamoDB over real HTTP (moto's server, one request at a
time as DynamoDB makes each conditional write whole): the whole run's import held just after its
look at the run (no main row), its earlier state's import started meanwhile. The second must not
land in between, or the first's writes, allowed by a look no longer true, mix the two states: it
waits for the first's claim on the run (adapters/dynamodb/import_claims.py), then finds the run
stored, as the second import on SQLite waits for the first's write transaction
(tests/e2e/test_cli_import_races.py). And an import interrupted (Ctrl-C) part way: only its own
file may finish the run, which another state's would otherwise finish with its own rows."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from conftest import restore_dynamodb_tables
from tests.e2e.cli import FAKE_AWS, Wfx, start_hooked
from tests.e2e.test_cli_export_import import _exported_lines, earlier_state
from tests.e2e.test_cli_import_races import _race, _wait_for, _write
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-import-races-on-moto")]


def test_an_earlier_state_imported_meanwhile_waits_for_the_claim_and_is_kept_whole(
    tmp_path: Path, _pristine_dynamodb_tables: dict[str, Any]
) -> None:
    """Before, the earlier state (RUNNING, two events) landed while the whole run was held, and
    the whole run's later events were then added under its RUNNING main row."""
    laptop = Wfx(tmp_path / "laptop")
    lines, (run_id,) = _exported_lines(laptop, 1)
    whole = _write(tmp_path / "whole.jsonl", lines)
    earlier = _write(tmp_path / "early.jsonl", earlier_state(lines))
    every_event = laptop.ok("executions", "events", run_id, "--json").stdout.splitlines()

    with moto_server(one_request_at_a_time=True) as endpoint:
        restore_dynamodb_tables(_pristine_dynamodb_tables)  # as `wfx tables create` makes them
        aws = Wfx(
            tmp_path / "aws", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS
        )
        answers = _race(aws, tmp_path, "_stored_otherwise", whole, earlier)
        status = aws.json("executions", "show", run_id)["executionStatus"]
        events = aws.ok("executions", "events", run_id, "--json").stdout.splitlines()

    assert [code for code, _, _ in answers] == [0, 0], answers
    # the whole run, whole: its import held the claim, the earlier one waited for it to end
    assert (status, len(events)) == ("SUCCEEDED", len(every_event)), answers
    assert [json.loads(event)["eventType"] for event in events][-1] == "ExecutionCompleted"
    (warning,) = [line for line in answers[1][2].splitlines() if line.startswith("warning: ")]
    assert f"WORKFLOW_EXECUTIONS workflowExecutionId='{run_id}'" in warning, warning
    assert "stored otherwise, kept" in warning, warning


def _held_after_its_first_step(signal: Path) -> str:
    """A hook: the import, once it has written a step row, touches `signal` and sleeps (until
    the test's Ctrl-C lands, 30 s at most)."""
    return (
        "import pathlib, time\n"
        "from adapters.run_archive import RunArchiveRows\n"
        "put = RunArchiveRows._put\n"
        "def held(self, table, item):\n"
        "    written = put(self, table, item)\n"
        "    if table.value == 'PIPELINE_EXECUTIONS':\n"
        f"        pathlib.Path({str(signal)!r}).touch()\n"
        "        time.sleep(30)\n"
        "    return written\n"
        "RunArchiveRows._put = held\n"
    )


def test_after_a_ctrl_c_of_an_import_only_its_own_file_finishes_the_run(
    tmp_path: Path, _pristine_dynamodb_tables: dict[str, Any]
) -> None:
    """The earlier state's import interrupted after its first step row: the whole run's import
    would add its rows to that part (no main row to find stored otherwise); it is refused, the
    earlier file imported again finishes the run, and the whole one then finds it stored."""
    laptop = Wfx(tmp_path / "laptop")
    lines, (run_id,) = _exported_lines(laptop, 1)
    whole = _write(tmp_path / "whole.jsonl", lines)
    earlier = _write(tmp_path / "early.jsonl", earlier_state(lines))
    held = tmp_path / "held"

    with moto_server(one_request_at_a_time=True) as endpoint:
        restore_dynamodb_tables(_pristine_dynamodb_tables)  # as `wfx tables create` makes them
        aws = Wfx(
            tmp_path / "aws", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS
        )
        importing = start_hooked(aws, _held_after_its_first_step(held), "import", str(earlier))
        _wait_for(held)
        importing.send_signal(signal.SIGINT)
        _, interrupted = importing.communicate(timeout=60)
        refused = aws("import", str(whole))
        finished = aws("import", str(earlier))
        status = aws.json("executions", "show", run_id)["executionStatus"]
        kept = aws("import", str(whole))

    assert importing.returncode == 130, interrupted
    assert refused.code == 1, refused
    assert f"an import of another state of run '{run_id}' was cut short" in refused.stderr
    assert finished.code == 0 and status == "RUNNING", finished
    assert kept.code == 0 and "stored otherwise, kept" in kept.stderr, kept
