"""A Lambda's first request runs with the cycle collector paused, and turns it back on after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from entrypoints.cold_start import collector_paused, keep_out_of_collections


@pytest.fixture
def collector() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if was_enabled:
        gc.enable()


@pytest.mark.usefixtures("collector")
def test_the_collector_is_off_inside_and_on_again_after() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


@pytest.mark.usefixtures("collector")
def test_a_collector_the_host_turned_off_stays_off_even_when_the_body_fails() -> None:
    gc.disable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("the first request failed")
    assert not gc.isenabled()


@pytest.mark.usefixtures("collector")
def test_what_the_cold_start_made_is_kept_out_of_later_collections() -> None:
    held = [object() for _ in range(10)]
    keep_out_of_collections()

    assert gc.get_freeze_count() >= len(held)
