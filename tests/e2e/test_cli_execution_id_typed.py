"""What is typed for EXECUTION_ID (an id, its first characters, `latest`) that cannot name a run
is refused in one line naming EXECUTION_ID, as the commands' help calls it, and the rule."""

from __future__ import annotations

import pytest

from tests.e2e.cli import Wfx, assert_bad_input


@pytest.mark.parametrize(
    ("typed", "rule"), [("", "empty"), ("   ", "empty"), ("a" * 600, "at most 512")]
)
def test_an_execution_id_that_cannot_be_one_is_refused_by_its_name(
    wfx: Wfx, typed: str, rule: str
) -> None:
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    for command in ("show", "abort", "logs", "events", "describe"):
        assert_bad_input(wfx("executions", command, typed), "EXECUTION_ID", rule)
    assert wfx.json("executions", "show", run)["executionStatus"] == "SUCCEEDED"


def test_a_cost_summary_of_latest_or_a_prefix_is_that_runs(wfx: Wfx) -> None:
    """Not the summary of a run named `latest`, which has no entries."""
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    whole = wfx.json("costs", "summary", "--execution", run)
    assert whole["entries"] >= 1
    for typed in ("latest", run[:12]):
        assert wfx.json("costs", "summary", "--execution", typed) == whole
