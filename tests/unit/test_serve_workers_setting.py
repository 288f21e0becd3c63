"""WFX_SERVE_WORKERS: how many processes `wfx serve` answers from; by default one per core this
process may run on."""

from __future__ import annotations

import os

import pytest

from domain.errors import InvalidInputError
from entrypoints.settings import Settings


def test_unset_it_is_the_cores_this_process_may_use() -> None:
    settings = Settings.from_environment({"WFX_HOME": "/tmp/wfx-home"})

    assert settings.serve_workers == len(os.sched_getaffinity(0))


def test_a_count_is_taken_as_given() -> None:
    settings = Settings.from_environment({"WFX_HOME": "/tmp/wfx-home", "WFX_SERVE_WORKERS": "3"})

    assert settings.serve_workers == 3


@pytest.mark.parametrize("text", ["0", "65", "two", "-1", "1.5", "\u00b2", "\u0663"])
def test_anything_but_a_count_from_1_to_64_is_refused_by_name(text: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        Settings.from_environment({"WFX_HOME": "/tmp/wfx-home", "WFX_SERVE_WORKERS": text})

    assert str(refused.value) == (
        f"WFX_SERVE_WORKERS: must be a whole number of processes from 1 to 64, got {text!r}"
    )


@pytest.mark.parametrize("text", ["512", "big", "\u00b2", "\u0661\u0660\u0662\u0664"])
def test_a_request_bound_that_is_no_number_of_bytes_in_range_is_refused_by_name(text: str) -> None:
    """`²` and Arabic-Indic digits are digits to `str.isdigit`, not to `int`: refused, not a
    ValueError out of the settings."""
    with pytest.raises(InvalidInputError) as refused:
        Settings.from_environment({"WFX_HOME": "/tmp/wfx-home", "WFX_MAX_REQUEST_BYTES": text})

    assert str(refused.value).startswith("WFX_MAX_REQUEST_BYTES: must be a number of bytes from")
