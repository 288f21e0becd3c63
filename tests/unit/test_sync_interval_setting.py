"""WFX_SFN_SYNC_MIN_INTERVAL_SECONDS: seed 000's 30 seconds unless the environment says."""

from __future__ import annotations

import pytest

from domain.errors import InvalidInputError
from entrypoints.settings import Settings


def test_the_interval_is_30_seconds_by_default() -> None:
    assert Settings.from_environment({}).sfn_sync_min_interval_seconds == 30.0


def test_the_environment_sets_the_interval() -> None:
    settings = Settings.from_environment({"WFX_SFN_SYNC_MIN_INTERVAL_SECONDS": "2.5"})
    assert settings.sfn_sync_min_interval_seconds == 2.5


@pytest.mark.parametrize("value", ["soon", "-1", "nan"])
def test_an_interval_that_is_not_a_number_of_seconds_is_refused(value: str) -> None:
    with pytest.raises(InvalidInputError, match=r"^WFX_SFN_SYNC_MIN_INTERVAL_SECONDS: must be"):
        Settings.from_environment({"WFX_SFN_SYNC_MIN_INTERVAL_SECONDS": value})


def test_the_container_hands_the_interval_to_the_reads(tmp_path: object) -> None:
    from entrypoints.container import build_container

    settings = Settings.from_environment(
        {"WFX_HOME": str(tmp_path), "WFX_SFN_SYNC_MIN_INTERVAL_SECONDS": "7"}
    )
    reconcile = build_container(settings).reconcile_execution()
    assert reconcile.min_interval.total_seconds() == 7
