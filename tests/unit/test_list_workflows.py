"""ListWorkflows and ListWorkflowVersions over SQLite: not found, and messages naming fields."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from application.use_cases.list_workflows import (
    ListWorkflows,
    ListWorkflowsQuery,
    ListWorkflowVersions,
    ListWorkflowVersionsQuery,
)
from application.validation_messages import describe_validation_error
from domain.errors import InvalidInputError, WorkflowNotFoundError
from tests.contract.builders import a_version, publish


@pytest.fixture
def catalog(
    sqlite_memory_workflow_catalog: SqliteWorkflowCatalog,
    sqlite_memory_workflow_definitions: SqliteWorkflowDefinitions,
) -> SqliteWorkflowCatalog:
    for key in ("demo:a", "demo:b", "demo2:a"):
        publish(sqlite_memory_workflow_definitions, a_version(1, workflow=key))
    publish(sqlite_memory_workflow_definitions, a_version(2, workflow="demo:a"))
    return sqlite_memory_workflow_catalog


def test_workflows_of_one_database_at_their_latest_version(
    catalog: SqliteWorkflowCatalog, sqlite_memory_workflow_definitions: SqliteWorkflowDefinitions
) -> None:
    query = ListWorkflowsQuery(database_id="demo")
    page = ListWorkflows(sqlite_memory_workflow_definitions).execute(query)

    assert [(d.workflow_key, d.latest_version) for d in page.items] == [
        ("demo:a", 2),
        ("demo:b", 1),
    ]


def test_versions_of_a_workflow_newest_first(catalog: SqliteWorkflowCatalog) -> None:
    query = ListWorkflowVersionsQuery(database_id="demo", workflow_id="a", limit=1)
    first = ListWorkflowVersions(catalog).execute(query)
    rest = ListWorkflowVersions(catalog).execute(
        query.model_copy(update={"starting_token": first.next_token})
    )

    assert [v.version for v in (*first.items, *rest.items)] == [2, 1]
    assert rest.next_token is None


def test_a_workflow_without_versions_is_not_found(catalog: SqliteWorkflowCatalog) -> None:
    query = ListWorkflowVersionsQuery(database_id="demo", workflow_id="nope")

    with pytest.raises(WorkflowNotFoundError, match="workflow demo/nope not found"):
        ListWorkflowVersions(catalog).execute(query)


def test_a_tampered_token_is_refused_before_any_not_found(catalog: SqliteWorkflowCatalog) -> None:
    query = ListWorkflowVersionsQuery(database_id="demo", workflow_id="nope", starting_token="x")

    with pytest.raises(InvalidInputError, match="startingToken"):
        ListWorkflowVersions(catalog).execute(query)


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"limit": 0}, "limit: Input should be greater than or equal to 1"),
        ({"limit": 101}, "limit: Input should be less than or equal to 100"),
        ({"databaseId": "demo/x"}, "databaseId: String should match pattern"),
        ({"startingToken": ""}, "startingToken: String should have at least 1 character"),
        ({"workflow": "demo/a"}, "workflow: unknown key"),
    ],
)
def test_a_bad_query_names_the_field(fields: dict[str, object], named: str) -> None:
    with pytest.raises(ValidationError) as refused:
        ListWorkflowsQuery.model_validate(fields)

    assert named in describe_validation_error(refused.value)


def test_a_versions_query_needs_both_ids() -> None:
    with pytest.raises(ValidationError) as refused:
        ListWorkflowVersionsQuery.model_validate({"databaseId": "demo"})

    assert describe_validation_error(refused.value) == "workflowId: required"


def test_the_default_page_is_20() -> None:
    assert ListWorkflowsQuery().limit == 20
    assert ListWorkflowVersionsQuery(database_id="demo", workflow_id="a").limit == 20
