"""ListExecutions on every store: the status filter, the asset direction, and the argument rules
(which live in the use case, not in the stores)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from adapters.system import SystemClock
from application import list_tokens
from application.ports.executions import ExecutionStore
from application.use_cases import list_executions
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from domain.errors import InvalidInputError
from domain.statuses import ExecutionStatus
from tests.contract.builders import a_launch, at, write_launch

ASSET = "db1:asset1"
STATUSES = {
    "r1": ExecutionStatus.RUNNING,
    "r2": ExecutionStatus.SUCCEEDED,
    "r3": ExecutionStatus.FAILED,
    "r4": ExecutionStatus.SUCCEEDED,
    "r5": ExecutionStatus.SUCCEEDED,
    "r6": ExecutionStatus.RUNNING,
    "r7": ExecutionStatus.SUCCEEDED,
}
READERS = {"r1", "r2", "r4", "r7"}
WRITERS = {"r2", "r3", "r5"}


@pytest.fixture
def runs(
    execution_store: ExecutionStore, written_once: Callable[[str, Callable[[], None]], None]
) -> ExecutionStore:
    """r1..r7, a minute apart (r7 newest), of the statuses above; some read ASSET, some wrote.
    Written by the first test on each backend, a copy of them for the others."""

    def write() -> None:
        for n, (execution_id, status) in enumerate(STATUSES.items(), start=1):
            inputs = [(ASSET, "a.obj")] if execution_id in READERS else [("db1:other", "x.obj")]
            launch = a_launch(
                execution_id,
                start=at(n),
                group="g1",
                inputs=inputs,
                output_asset=ASSET if execution_id in WRITERS else None,
            )
            execution = launch.execution.model_copy(update={"status": status})
            write_launch(execution_store, launch.model_copy(update={"execution": execution}))

    written_once("list_rules_runs", write)
    return execution_store


def pages(store: ExecutionStore, **query: Any) -> list[list[str]]:
    """Every page to the end; a last page left empty (the rows past the last match did not
    match) is dropped."""
    listing = ListExecutions(store, clock=SystemClock())
    found: list[list[str]] = []
    token: str | None = query.pop("starting_token", None)
    while True:
        page = listing.execute(ListExecutionsQuery(starting_token=token, **query))
        found.append([e.workflow_execution_id for e in page.items])
        token = page.next_token
        if token is None:
            return found if found[-1] or len(found) == 1 else found[:-1]
        assert len(found) < 20, "the list never ends"


def flat(found: list[list[str]]) -> list[str]:
    return [execution_id for page in found for execution_id in page]


def newest_first(ids: set[str]) -> list[str]:
    return sorted(ids, reverse=True)


@pytest.fixture
def small_scan_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Store pages of 3 rows, so that a filtered list resumes inside and across store pages."""
    monkeypatch.setattr(list_executions, "SCAN_PAGE", 3)
    monkeypatch.setattr(list_tokens, "SCAN_PAGE", 3)


@pytest.mark.usefixtures("small_scan_pages")
@pytest.mark.parametrize("scope", [{}, {"group": "g1"}, {"workflow": "db1/wf1"}])
def test_a_status_filter_fills_every_page_and_resumes_right_after_its_last_row(
    runs: ExecutionStore, scope: dict[str, str]
) -> None:
    succeeded = {e for e, status in STATUSES.items() if status is ExecutionStatus.SUCCEEDED}

    found = pages(runs, status=ExecutionStatus.SUCCEEDED, limit=3, **scope)

    assert found == [["r7", "r5", "r4"], ["r2"]]
    assert flat(found) == newest_first(succeeded)


@pytest.mark.usefixtures("small_scan_pages")
def test_a_status_filter_one_at_a_time_gives_each_match_once(runs: ExecutionStore) -> None:
    found = pages(runs, status=ExecutionStatus.RUNNING, limit=1)

    assert flat(found) == ["r6", "r1"]


def test_a_status_no_run_has_gives_an_empty_page(runs: ExecutionStore) -> None:
    assert pages(runs, status=ExecutionStatus.TIMED_OUT) == [[]]


@pytest.mark.parametrize(
    ("direction", "members"),
    [("read", READERS), ("wrote", WRITERS), ("both", READERS | WRITERS), (None, READERS | WRITERS)],
)
def test_an_asset_list_takes_the_runs_of_the_direction_asked(
    runs: ExecutionStore, direction: str | None, members: set[str]
) -> None:
    found = pages(runs, asset="db1/asset1", direction=direction, limit=2)

    assert flat(found) == newest_first(members)
    assert all(len(page) == 2 for page in found[:-1])


def test_an_asset_list_filters_by_status_too(runs: ExecutionStore) -> None:
    found = pages(runs, asset="db1/asset1", status="SUCCEEDED", limit=2)

    assert found == [["r7", "r5"], ["r4", "r2"]]


def test_a_direction_without_an_asset_is_refused_naming_direction(runs: ExecutionStore) -> None:
    with pytest.raises(InvalidInputError, match=r"^direction: "):
        pages(runs, group="g1", direction="read")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"group": ""}, "group"),
        ({"status": "DONE"}, "status"),
        ({"asset": "db1/asset1", "direction": "sideways"}, "direction"),
    ],
)
def test_a_query_out_of_bounds_is_refused_naming_the_field(
    query: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError, match=field):
        ListExecutionsQuery(**query)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"starting_token": "not a token!"}, "startingToken"),
        ({"starting_token": "!!!"}, "startingToken"),
        ({"workflow": "wf-without-database"}, "workflow"),
        ({"asset": "db1"}, "asset"),
        ({"asset": "db1/asset1", "starting_token": "e30"}, "startingToken"),
        ({"status": "RUNNING", "starting_token": "W10"}, "startingToken"),
    ],
)
def test_bad_arguments_are_refused_by_the_use_case_naming_the_field(
    runs: ExecutionStore, query: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInputError, match=f"^{field}: "):
        pages(runs, **query)


def test_a_filtered_token_does_not_continue_another_status(runs: ExecutionStore) -> None:
    listing = ListExecutions(runs, clock=SystemClock())
    first = listing.execute(ListExecutionsQuery(status="SUCCEEDED", limit=1))
    assert first.next_token is not None

    with pytest.raises(InvalidInputError, match=r"^startingToken: "):
        listing.execute(
            ListExecutionsQuery(status="RUNNING", limit=1, starting_token=first.next_token)
        )


def test_a_workflow_and_a_group_together_list_the_group_s_runs_of_that_workflow(
    execution_store: ExecutionStore,
) -> None:
    launches = {
        "w1": ("db1:wf1", "g1"),
        "w2": ("db1:wf2", "g1"),
        "w3": ("db1:wf1", "g2"),
        "w4": ("db1:wf1", "g1"),
        "w5": ("db1:wf2", "g1"),
        "w6": ("db1:wf1", "g1"),
    }
    for n, (run, (workflow, group)) in enumerate(launches.items(), start=1):
        write_launch(execution_store, a_launch(run, workflow=workflow, group=group, start=at(n)))

    assert pages(execution_store, workflow="db1/wf1", group="g1", limit=2) == [["w6", "w4"], ["w1"]]
    assert pages(execution_store, workflow="db1/wf2", group="g1") == [["w5", "w2"]]
    assert pages(execution_store, workflow="db1/wf1", group="g1", status="SUCCEEDED") == [[]]
    # a token of one filter does not continue another list
    listing = ListExecutions(execution_store, clock=SystemClock())
    first = listing.execute(ListExecutionsQuery(workflow="db1/wf1", group="g1", limit=1))
    assert first.next_token is not None
    with pytest.raises(InvalidInputError, match="startingToken"):
        listing.execute(
            ListExecutionsQuery(
                workflow="db1/wf2", group="g1", limit=1, starting_token=first.next_token
            )
        )
