"""The workflow list index is sparse: only a workflow's version 1 carries its keys."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapters.records import (
    WORKFLOW_LIST_PARTITION,
    build_workflow_version_record,
    parse_workflow_version_record,
    workflow_list_sort_key,
)
from tests.contract.builders import a_version

IDENTIFIER = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,12}\Z")


def test_version_1_carries_the_list_keys() -> None:
    record = build_workflow_version_record(a_version(1, workflow="demo:mesh"))

    assert record["workflowListPartition"] == WORKFLOW_LIST_PARTITION
    assert record["workflowListSortKey"] == "demo!mesh"
    assert parse_workflow_version_record(record) == a_version(1, workflow="demo:mesh")


def test_a_later_version_stays_out_of_the_list_index() -> None:
    record = build_workflow_version_record(a_version(2, workflow="demo:mesh"))

    assert "workflowListPartition" not in record
    assert "workflowListSortKey" not in record


@given(IDENTIFIER, IDENTIFIER, IDENTIFIER, IDENTIFIER)
def test_sort_keys_order_as_database_then_workflow(
    db_a: str, wf_a: str, db_b: str, wf_b: str
) -> None:
    by_key = workflow_list_sort_key(db_a, wf_a) < workflow_list_sort_key(db_b, wf_b)
    assert by_key == ((db_a, wf_a) < (db_b, wf_b))


@given(IDENTIFIER, IDENTIFIER, IDENTIFIER)
def test_a_database_prefix_matches_only_that_database(db_a: str, db_b: str, wf: str) -> None:
    matches = workflow_list_sort_key(db_b, wf).startswith(workflow_list_sort_key(db_a))
    assert matches == (db_a == db_b)
