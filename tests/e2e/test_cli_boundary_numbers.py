"""A number past what the stores hold (2^63) given to the CLI is bad input naming the option
(exit 2, one line), never the store's OverflowError as a traceback."""

from __future__ import annotations

import pytest

from tests.e2e.cli import TRIVIAL_WORKFLOW, Wfx, assert_bad_input

PAST = str(2**63)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("run", "demo/trivial", "--version", PAST), "--version"),
        (("workflows", "show", "demo/trivial", "--version", PAST), "--version"),
        (("executions", "events", "latest", "--after", PAST), "--after"),
    ],
)
def test_a_number_past_the_store_is_bad_input_naming_the_option(
    wfx: Wfx, args: tuple[str, ...], option: str
) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    assert_bad_input(wfx(*args), option)
