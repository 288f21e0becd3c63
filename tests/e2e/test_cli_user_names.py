"""The user a command acts as (WFX_USER) and the user a token names (`wfx auth token USER`)
hold no control character and are at most 256 characters: refused naming the variable or
the user (exit 2), never stored as a run's triggeredByUserId or signed into a token."""

from __future__ import annotations

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

BAD = [("a\x1bb", "control character"), ("u" * 257, "at most 256")]


@pytest.mark.parametrize(("user", "rule"), BAD)
def test_a_wfx_user_that_cannot_be_a_user_id_is_refused_and_nothing_is_stored(
    wfx: Wfx, user: str, rule: str
) -> None:
    wfx.publish_command_step("noop", "pass")
    outcome = wfx.with_environment(WFX_USER=user)("run", "demo/noop")
    assert_bad_input(outcome, "WFX_USER", rule)
    assert wfx.listed_ids() == []


@pytest.mark.parametrize(("user", "rule"), BAD)
def test_a_token_for_a_user_that_cannot_be_a_user_id_is_refused(
    wfx: Wfx, user: str, rule: str
) -> None:
    assert_bad_input(wfx("auth", "token", user), "USER", rule)


def test_the_longest_user_is_taken(wfx: Wfx) -> None:
    wfx.publish_command_step("noop", "pass")
    run = wfx.with_environment(WFX_USER="u" * 256).run_id("demo/noop")
    assert wfx.json("executions", "show", run)["triggeredByUserId"] == "u" * 256
    assert wfx.ok("auth", "token", "u" * 256).stdout.count(".") == 2
