"""Two real `wfx import` processes into DynamoDB over real HTTP (moto's server, one request at a
time as DynamoDB makes each conditional write whole): the whole run's import held just after its
look at the run (no main row), its earlier state's import started meanwhile. The second must not
land in between, or the first's writes, allowed by a look no longer true, mix the two states: it
waits for the first's claim on the run (adapters/dynamodb/import_claims.py), then finds the run
stored, as the second import on SQLite waits for the first's write transaction
(tests/e2e/test_cli_import_races.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.cli import FAKE_AWS, Wfx
from tests.e2e.test_cli_export_import import _exported_lines, earlier_state
from tests.e2e.test_cli_import_races import _race, _write
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-import-races-on-moto")]


def test_an_earlier_state_imported_meanwhile_waits_for_the_claim_and_is_kept_whole(
    tmp_path: Path,
) -> None:
    """Before, the earlier state (RUNNING, two events) landed while the whole run was held, and
    the whole run's later events were then added under its RUNNING main row."""
    laptop = Wfx(tmp_path / "laptop")
    lines, (run_id,) = _exported_lines(laptop, 1)
    whole = _write(tmp_path / "whole.jsonl", lines)
    earlier = _write(tmp_path / "early.jsonl", earlier_state(lines))
    every_event = laptop.ok("executions", "events", run_id, "--json").stdout.splitlines()

    with moto_server(one_request_at_a_time=True) as endpoint:
        aws = Wfx(
            tmp_path / "aws", WFX_STORE="dynamodb", WFX_DYNAMODB_ENDPOINT=endpoint, **FAKE_AWS
        )
        aws.ok("tables", "create")
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
