"""A duration option (`auth token --ttl`, `maintenance sweep-aborts --since`) longer than a
date can reach is refused naming the option and the longest it takes, never an
OverflowError's traceback; the longest is taken."""

from __future__ import annotations

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

TOO_LONG = ("99999999999d", "999999999d", "36501d", "5215w", str(10**20), "3153600001")


@pytest.mark.parametrize("ttl", TOO_LONG)
def test_a_token_lifetime_too_long_is_refused_by_name(wfx: Wfx, ttl: str) -> None:
    assert_bad_input(wfx("auth", "token", "alice", "--ttl", ttl), "--ttl", "at most 36500d")


@pytest.mark.parametrize("since", TOO_LONG[:4])
def test_a_sweep_window_too_long_is_refused_by_name(wfx: Wfx, since: str) -> None:
    outcome = wfx("maintenance", "sweep-aborts", "--since", since)
    assert_bad_input(outcome, "--since", "at most 36500d")


def test_the_longest_duration_is_taken(wfx: Wfx) -> None:
    assert wfx.ok("auth", "token", "alice", "--ttl", "36500d").stdout.count(".") == 2
    assert wfx.ok("auth", "token", "alice", "--ttl", "3153600000").stdout.count(".") == 2
    assert wfx("maintenance", "sweep-aborts", "--since", "36500d").code == 0
