"""A run named as people name it: `latest`, or the first characters of its id as
`executions list` shows them, in every command that takes a run."""

from __future__ import annotations

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx, assert_bad_input


def test_latest_and_a_prefix_name_the_run(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    first = wfx.run_id("demo/trivial")
    newest = wfx.run_id("demo/trivial")

    assert wfx.json("executions", "show", "latest")["workflowExecutionId"] == newest
    # ids lead with their launch's milliseconds (they sort by it): runs launched together share
    # their first characters, so a prefix reaches into the random part
    described = wfx.json("executions", "describe", first[:16])
    assert described["name"] == first
    ambiguous = wfx("executions", "describe", first[:6])
    assert ambiguous.code != 0 and newest in ambiguous.stderr, str(ambiguous)
    events = wfx.ok("executions", "events", newest[:16]).stdout
    assert "ExecutionLaunched" in events
    assert wfx.ok("executions", "logs", "latest").code == 0

    refused = wfx("executions", "show", first[:3])
    assert_bad_input(refused, "too short a prefix", "at least 4")
    unknown = wfx("executions", "show", "ffffffff")
    assert unknown.code != 0 and "give the whole id" in unknown.stderr, str(unknown)
    assert "Traceback" not in unknown.stderr
