"""What a person types for a run, resolved on every store: the whole id as it is, `latest` the
newest run, a prefix the one run among the newest whose id starts so; too short, unknown and
ambiguous prefixes refused with what to give instead."""

from __future__ import annotations

from typing import Any

import pytest

from application.use_cases.resolve_execution_id import ResolveExecutionId, ResolveExecutionIdQuery
from domain.errors import InvalidInputError, NotFoundError
from tests.contract.builders import a_launch, at, write_launch

OLDER = "6f73e4eb-1111-4000-8000-000000000001"
TWIN = "6f73e4eb-2222-4000-8000-000000000002"
NEWEST = "0a1b2c3d-3333-4000-8000-000000000003"
GUID = "0190f3a2b4c64d1e8f0a1b2c3d4e5f60"  # a VAMS GUID: wfx's ids from 0.2 on


def _resolve(store: Any, text: str) -> str:
    return ResolveExecutionId(store).execute(ResolveExecutionIdQuery(text=text))


@pytest.fixture
def runs(execution_store: Any) -> Any:
    for minute, run in enumerate((GUID, OLDER, TWIN, NEWEST)):
        write_launch(execution_store, a_launch(run, start=at(minute)))
    return execution_store


def test_whole_ids_latest_and_prefixes(runs: Any) -> None:
    assert _resolve(runs, OLDER) == OLDER
    assert _resolve(runs, "latest") == NEWEST
    assert _resolve(runs, "LATEST") == NEWEST
    assert _resolve(runs, "0a1b") == NEWEST
    assert _resolve(runs, "6f73e4eb-1") == OLDER
    assert _resolve(runs, "6F73E4EB-2") == TWIN
    assert _resolve(runs, GUID) == GUID
    assert _resolve(runs, "0190f3") == GUID


def test_a_whole_id_of_no_run_is_not_taken_for_a_prefix(runs: Any) -> None:
    # the store says it is not there (not "no execution among the newest starts so")
    assert _resolve(runs, "ffffffffffffffffffffffffffffffff") == "ffffffffffffffffffffffffffffffff"


def test_prefixes_that_name_no_single_run_are_refused(runs: Any) -> None:
    with pytest.raises(InvalidInputError, match="several executions") as ambiguous:
        _resolve(runs, "6f73e4eb")
    assert OLDER in str(ambiguous.value) and TWIN in str(ambiguous.value)
    with pytest.raises(InvalidInputError, match="at least 4"):
        _resolve(runs, "6f7")
    with pytest.raises(NotFoundError, match="give the whole id"):
        _resolve(runs, "ffff")


def test_latest_with_no_run_says_so(execution_store: Any) -> None:
    with pytest.raises(NotFoundError, match="no execution yet"):
        _resolve(execution_store, "latest")
