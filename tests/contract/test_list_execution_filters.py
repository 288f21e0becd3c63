"""ListExecutions' row filters on every store (VAMS's list filters): trigger, user, workflow id or
database alone, a start-date window that ends the list at its first older row, and on an asset's
list a workflow and a group."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from adapters.system import SystemClock
from application.ports.executions import ExecutionStore
from application.use_cases.list_executions import ListExecutions, ListExecutionsQuery
from domain.errors import InvalidInputError
from domain.triggers import TriggerType
from tests.contract.builders import a_launch, at, write_launch
from tests.contract.test_list_executions_rules import pages

# run: workflow, group, trigger, user; a minute apart, f6 newest
RUNS = {
    "f1": ("db1:wf1", "g1", TriggerType.MANUAL, "alice"),
    "f2": ("db2:wf1", "g2", TriggerType.FILE_UPLOAD, "SYSTEM_USER"),
    "f3": ("db1:wf2", "g1", TriggerType.MANUAL, "bob"),
    "f4": ("db2:wf2", None, TriggerType.MANUAL, "alice"),
    "f5": ("db1:wf1", "g2", TriggerType.FILE_UPLOAD, "SYSTEM_USER"),
    "f6": ("db1:wf1", "g1", TriggerType.MANUAL, "alice"),
}


@pytest.fixture
def runs(
    execution_store: ExecutionStore, written_once: Callable[[str, Callable[[], None]], None]
) -> ExecutionStore:
    """RUNS, written by the first test on each backend, a copy of them for the others."""

    def write() -> None:
        for n, (run, (workflow, group, trigger, user)) in enumerate(RUNS.items(), start=1):
            launch = a_launch(run, workflow=workflow, group=group, start=at(n))
            execution = launch.execution.model_copy(
                update={"trigger_type": trigger, "triggered_by_user_id": user}
            )
            write_launch(execution_store, launch.model_copy(update={"execution": execution}))

    written_once("filter_runs", write)
    return execution_store


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        ({"trigger_type": TriggerType.FILE_UPLOAD}, ["f5", "f2"]),
        ({"triggered_by_user_id": "alice"}, ["f6", "f4", "f1"]),
        ({"workflow_id": "wf1"}, ["f6", "f5", "f2", "f1"]),
        ({"workflow_database_id": "db2"}, ["f4", "f2"]),
        ({"group": "g1", "triggered_by_user_id": "alice"}, ["f6", "f1"]),
        ({"workflow": "db1/wf1", "trigger_type": TriggerType.MANUAL}, ["f6", "f1"]),
        ({"started_from": at(3)}, ["f6", "f5", "f4", "f3"]),
        ({"started_to": at(2)}, ["f2", "f1"]),
        ({"started_from": at(2), "started_to": at(4), "workflow_id": "wf2"}, ["f4", "f3"]),
        ({"started_from": at(7)}, []),
    ],
)
def test_each_filter_keeps_the_rows_it_names(
    runs: ExecutionStore, query: dict[str, object], listed: list[str]
) -> None:
    for limit in (1, 2, 100):
        found = pages(runs, limit=limit, **query)
        assert [run for page in found for run in page] == listed, limit


def test_a_window_ends_the_list_at_its_first_older_row(runs: ExecutionStore) -> None:
    """With a lower bound no page past the window is read: the last page says no token."""
    listing = ListExecutions(runs, clock=SystemClock())
    page = listing.execute(ListExecutionsQuery(started_from=at(5), limit=2))
    assert [e.workflow_execution_id for e in page.items] == ["f6", "f5"]
    rest = listing.execute(
        ListExecutionsQuery(started_from=at(5), limit=2, starting_token=page.next_token)
    )
    assert (rest.items, rest.next_token) == ((), None)


def test_a_token_of_another_window_is_refused(runs: ExecutionStore) -> None:
    listing = ListExecutions(runs, clock=SystemClock())
    first = listing.execute(ListExecutionsQuery(started_to=at(6), limit=1))
    later = at(6) + timedelta(seconds=1)
    with pytest.raises(InvalidInputError, match="startingToken"):
        listing.execute(
            ListExecutionsQuery(started_to=later, limit=1, starting_token=first.next_token)
        )


def test_a_lower_bound_alone_reads_one_index_page_a_page(runs: ExecutionStore) -> None:
    """The HTTP lists' default window: pages as the index's own, cut at the window."""
    calls: list[int] = []
    original = runs.list_executions

    def counted(*args: Any) -> Any:
        calls.append(args[2])
        return original(*args)

    listing = ListExecutions(runs, clock=SystemClock())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs, "list_executions", counted)
        page = listing.execute(ListExecutionsQuery(started_from=at(2), limit=3))
    assert [e.workflow_execution_id for e in page.items] == ["f6", "f5", "f4"]
    assert calls == [3]


def test_an_asset_list_takes_a_workflow_and_a_group_as_filters(runs: ExecutionStore) -> None:
    # every run read and wrote db1:asset1 (the builder's default)
    assert pages(runs, asset="db1/asset1", workflow="db1/wf1") == [["f6", "f5", "f1"]]
    assert pages(runs, asset="db1/asset1", group="g1", limit=2) == [["f6", "f3"], ["f1"]]
    assert pages(runs, asset="db1/asset1", started_from=at(5)) == [["f6", "f5"]]
