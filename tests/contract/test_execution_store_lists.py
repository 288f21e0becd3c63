"""ExecutionStore contract: newest-first lists by scope with paging, and an asset's executions."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adapters.records import format_table_date
from application.ports.executions import AssetDirection, ExecutionRef, ExecutionStore, ListScope
from domain.errors import InvalidInputError
from domain.execution import WorkflowExecution
from tests.contract.builders import a_launch, at, write_launch

# Seven runs: distinct start dates and three sharing one, across two workflows and two groups.
RUNS = (
    ("r1", at(1), "db1:wf1", "g1"),
    ("r2", at(2), "db1:wf1", None),
    ("r3", at(3), "db1:wf2", "g1"),
    ("r4", at(3), "db1:wf1", "g2"),
    ("r5", at(3), "db1:wf1", "g1"),
    ("r6", at(4), "db1:wf2", None),
    ("r7", at(5), "db1:wf1", "g1"),
)


@pytest.fixture
def seven_runs(
    execution_store: ExecutionStore, written_once: Callable[[str, Callable[[], None]], None]
) -> ExecutionStore:
    """RUNS, written by the first test on each backend, a copy of them for the others."""

    def write() -> None:
        for execution_id, start, workflow, group in RUNS:
            write_launch(
                execution_store, a_launch(execution_id, start=start, workflow=workflow, group=group)
            )

    written_once("seven_runs", write)
    return execution_store


def every_page(
    store: ExecutionStore, scope: ListScope, partition: str | None, limit: int
) -> list[tuple[WorkflowExecution, ...]]:
    pages, token = [], None
    while True:
        page = store.list_executions(scope, partition, limit, token)
        assert len(page.items) <= limit
        pages.append(page.items)
        if page.next_token is None:
            return pages
        assert len(pages) <= len(RUNS), "the list never ends"
        token = page.next_token


def expected_ids(keep: set[str]) -> list[str]:
    return [run[0] for run in RUNS if run[0] in keep]


def assert_newest_first_once(pages: list[tuple[WorkflowExecution, ...]], ids: list[str]) -> None:
    listed = [execution for page in pages for execution in page]
    assert sorted(e.workflow_execution_id for e in listed) == sorted(ids)  # each exactly once
    starts = [e.execution_start_date for e in listed]
    assert starts == sorted(starts, reverse=True)
    # Pages hold `limit` rows until the rows run out (a last empty page is allowed).
    assert all(len(page) == len(pages[0]) for page in pages[:-2])


@pytest.mark.parametrize(
    ("scope", "partition", "members"),
    [
        (ListScope.ALL, None, {"r1", "r2", "r3", "r4", "r5", "r6", "r7"}),
        (ListScope.WORKFLOW, "db1:wf1", {"r1", "r2", "r4", "r5", "r7"}),
        (ListScope.GROUP, "g1", {"r1", "r3", "r5", "r7"}),
    ],
)
def test_a_list_pages_newest_first_through_every_execution_exactly_once(
    seven_runs: ExecutionStore, scope: ListScope, partition: str | None, members: set[str]
) -> None:
    pages = every_page(seven_runs, scope, partition, limit=3)

    assert_newest_first_once(pages, expected_ids(members))
    assert len(pages) >= -(-len(members) // 3)


def test_one_page_holds_the_newest_executions(seven_runs: ExecutionStore) -> None:
    page = seven_runs.list_executions(ListScope.ALL, None, 2, None)

    assert [e.workflow_execution_id for e in page.items] == ["r7", "r6"]
    assert page.next_token is not None


def test_a_page_with_room_to_spare_has_no_next_token(seven_runs: ExecutionStore) -> None:
    page = seven_runs.list_executions(ListScope.GROUP, "g2", 5, None)

    assert [e.workflow_execution_id for e in page.items] == ["r4"]
    assert page.next_token is None


def test_an_empty_list_has_no_items_and_no_token(execution_store: ExecutionStore) -> None:
    page = execution_store.list_executions(ListScope.ALL, None, 3, None)

    assert page.items == ()
    assert page.next_token is None


@pytest.mark.parametrize("token", ["not-a-token", "e30", "W10", "!!!", "eyJh"])
def test_a_malformed_token_is_refused(seven_runs: ExecutionStore, token: str) -> None:
    with pytest.raises(InvalidInputError, match="startingToken"):
        seven_runs.list_executions(ListScope.ALL, None, 3, token)


# -- an asset's executions -------------------------------------------------------------------

ASSET = "db1:asset1"


@pytest.fixture
def asset_runs(
    execution_store: ExecutionStore, written_once: Callable[[str, Callable[[], None]], None]
) -> ExecutionStore:
    """Runs around ASSET: readers, writers, a run that does both, and unrelated runs; written
    by the first test on each backend, a copy of them for the others."""
    launches = [
        # Two files of the same asset: still one execution.
        a_launch("a1", start=at(1), inputs=[(ASSET, "a.obj"), (ASSET, "b.obj")], output_asset=None),
        a_launch("a2", start=at(2), inputs=[(ASSET, "a.obj")], output_asset=ASSET),
        a_launch("a3", start=at(2), inputs=[("db1:other", "x.obj")], output_asset=ASSET),
        a_launch("a4", start=at(2), inputs=[(ASSET, "c.obj")], output_asset="db1:other"),
        a_launch("a5", start=at(3), inputs=[], output_asset=ASSET, workflow="db2:wf9"),
        a_launch("a6", start=at(4), inputs=[("db1:other", "x.obj")], output_asset=None),
    ]

    def write() -> None:
        for records in launches:
            write_launch(execution_store, records)

    written_once("asset_runs", write)
    return execution_store


def ref(execution_id: str, minutes: int, workflow: str = "db1:wf1") -> ExecutionRef:
    return ExecutionRef(format_table_date(at(minutes)), execution_id, workflow)


def test_the_input_direction_lists_each_reader_once_newest_first(
    asset_runs: ExecutionStore,
) -> None:
    refs = asset_runs.asset_execution_refs(ASSET, AssetDirection.INPUT, None, 10)

    assert refs == [ref("a4", 2), ref("a2", 2), ref("a1", 1)]


def test_the_output_direction_lists_each_writer_newest_first(asset_runs: ExecutionStore) -> None:
    refs = asset_runs.asset_execution_refs(ASSET, AssetDirection.OUTPUT, None, 10)

    assert refs == [ref("a5", 3, "db2:wf9"), ref("a3", 2), ref("a2", 2)]


@pytest.mark.parametrize("direction", list(AssetDirection))
def test_asset_refs_page_strictly_after_the_last_ref_seen(
    asset_runs: ExecutionStore, direction: AssetDirection
) -> None:
    everything = asset_runs.asset_execution_refs(ASSET, direction, None, 10)

    pages, older_than = [], None
    while page := asset_runs.asset_execution_refs(ASSET, direction, older_than, 2):
        assert len(page) <= 2
        pages.append(page)
        older_than = page[-1]

    assert [r for page in pages for r in page] == everything
    assert len(pages) == 2


def test_an_asset_no_run_touched_has_no_refs(asset_runs: ExecutionStore) -> None:
    for direction in AssetDirection:
        assert asset_runs.asset_execution_refs("db9:nothing", direction, None, 10) == []


def test_a_ref_names_the_execution_it_points_to(asset_runs: ExecutionStore) -> None:
    refs = asset_runs.asset_execution_refs(ASSET, AssetDirection.OUTPUT, None, 10)

    executions = asset_runs.get_executions(refs)

    assert [e.workflow_execution_id for e in executions] == [r.workflow_execution_id for r in refs]
    assert [e.workflow_key for e in executions] == [r.workflow_key for r in refs]
