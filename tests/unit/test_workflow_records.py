"""The workflow tables' items: a definition carries the list keys, a version keeps its steps
out of its own item, each step definition is keyed by its version and index."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapters.records import (
    WORKFLOW_LIST_PARTITION,
    build_step_definition_records,
    build_workflow_definition_record,
    build_workflow_version_record,
    parse_workflow_definition_record,
    parse_workflow_version_record,
    workflow_list_sort_key,
)
from domain.workflow import WorkflowDefinition
from tests.contract.builders import a_version

IDENTIFIER = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,12}\Z")


def test_every_definition_carries_the_list_keys() -> None:
    definition = WorkflowDefinition.first(a_version(1, workflow="demo:mesh"), "alice")
    record = build_workflow_definition_record(
        definition.published(a_version(2, workflow="demo:mesh"))
    )

    assert record["workflowListPartition"] == WORKFLOW_LIST_PARTITION
    assert record["workflowListSortKey"] == "demo!mesh"
    assert record["latestVersion"] == 2
    assert parse_workflow_definition_record(record).owner == "alice"


def test_an_unknown_owner_is_left_out_never_empty() -> None:
    definition = WorkflowDefinition.first(a_version(1), None)
    record = build_workflow_definition_record(definition)

    assert "ownerUserId" not in record
    assert parse_workflow_definition_record(record) == definition


def test_a_version_item_holds_no_steps_and_its_steps_name_their_definition_ids() -> None:
    version = a_version(3, workflow="demo:mesh")
    record = build_workflow_version_record(version)
    (step,) = build_step_definition_records(version)

    assert "steps" not in record and record["stepCount"] == 1
    assert step["workflowDatabaseId:workflowId:workflowVersion"] == "demo:mesh:3"
    assert (step["stepIndex"], step["stepDefinitionId"]) == (0, "demo:mesh:3:0")
    assert parse_workflow_version_record(record, [step]) == version


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
