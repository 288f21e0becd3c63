"""`wfx executions rerun` refusing what it cannot rerun, as a user types it (SQLite)."""

from __future__ import annotations

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx, assert_bad_input


def test_an_unknown_run_is_not_found(wfx: Wfx) -> None:
    assert_bad_input(wfx("executions", "rerun", "no-such-run"), "no-such-run", "not found")


def test_a_group_breaking_vams_id_rule_is_refused_and_nothing_is_launched(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    execution_id = wfx.run_id("demo/trivial")

    outcome = wfx("executions", "rerun", execution_id, "--group", "no spaces")

    assert_bad_input(outcome, "--group: ", "3 to 63 letters, digits, '-' or '_'")
    assert wfx.listed_ids() == [execution_id]
