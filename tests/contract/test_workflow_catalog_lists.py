"""WorkflowCatalog lists: a workflow's versions newest first, and the latest version of every
workflow by database id then workflow id, page by page, each item exactly once."""

from __future__ import annotations

import base64
import json

import pytest

from application.ports import WorkflowCatalog
from domain.errors import InvalidInputError
from domain.workflow import WorkflowVersion
from tests.contract.builders import a_version


def _all_pages(catalog: WorkflowCatalog, limit: int, database_id: str | None = None) -> list[str]:
    """Every workflow of the list as "db:wf@version", following the tokens to the end."""
    seen: list[str] = []
    token: str | None = None
    while True:
        page = catalog.list_workflows(limit, token, database_id=database_id)
        assert len(page.items) <= limit
        seen += [f"{v.workflow_key}@{v.version}" for v in page.items]
        if page.next_token is None:
            return seen
        token = page.next_token


def _forged(fields: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")


# -- a workflow's versions ----------------------------------------------------------------------


def test_versions_are_listed_newest_first_across_pages(workflow_catalog: WorkflowCatalog) -> None:
    for number in (3, 1, 10, 2, 9):  # 10 sorts below 9 as text: the number must be compared
        workflow_catalog.add_version(a_version(number))
    workflow_catalog.add_version(a_version(11, workflow="db1:wf2"))

    first = workflow_catalog.list_versions("db1", "wf1", 2, None)
    second = workflow_catalog.list_versions("db1", "wf1", 2, first.next_token)
    third = workflow_catalog.list_versions("db1", "wf1", 2, second.next_token)

    assert [v.version for v in first.items] == [10, 9]
    assert [v.version for v in second.items] == [3, 2]
    assert third.items == (a_version(1),)
    assert third.next_token is None


def test_a_page_that_ends_the_versions_has_no_token(workflow_catalog: WorkflowCatalog) -> None:
    for number in (1, 2):
        workflow_catalog.add_version(a_version(number))

    page = workflow_catalog.list_versions("db1", "wf1", 2, None)

    assert [v.version for v in page.items] == [2, 1]
    assert page.next_token is None


def test_an_unknown_workflow_has_an_empty_version_list(workflow_catalog: WorkflowCatalog) -> None:
    workflow_catalog.add_version(a_version(1, workflow="db1:wf2"))

    page = workflow_catalog.list_versions("db1", "wf1", 20, None)

    assert page.items == ()
    assert page.next_token is None


@pytest.mark.parametrize(
    "token",
    ["not base64 !", _forged(["db1", "wf1"]), _forged(["db1", "wf1", "3"]), _forged(["db1", 1, 3])],
)
def test_a_tampered_version_token_is_refused_naming_it(
    workflow_catalog: WorkflowCatalog, token: str
) -> None:
    workflow_catalog.add_version(a_version(1))

    with pytest.raises(InvalidInputError, match="startingToken"):
        workflow_catalog.list_versions("db1", "wf1", 20, token)


def test_a_version_token_of_another_workflow_is_refused(workflow_catalog: WorkflowCatalog) -> None:
    for number in (1, 2):
        workflow_catalog.add_version(a_version(number, workflow="db1:wf2"))
    token = workflow_catalog.list_versions("db1", "wf2", 1, None).next_token
    assert token is not None

    with pytest.raises(InvalidInputError, match="startingToken: the token belongs to another"):
        workflow_catalog.list_versions("db1", "wf1", 1, token)


# -- every workflow -----------------------------------------------------------------------------

# "demo2" and "demo-x" sort between "demo:" and "demo;" as text: the order must still be by
# database id first, and a filter on "demo" must not take their workflows.
WORKFLOWS = ("demo2:a", "demo:b", "demo-x:a", "demo:a", "alpha:z", "demo2:b", "demo:c.1")
ORDERED = sorted(WORKFLOWS, key=lambda key: tuple(key.split(":")))


def _publish_each(catalog: WorkflowCatalog) -> None:
    for key in WORKFLOWS:
        catalog.add_version(a_version(1, workflow=key))


def test_workflows_are_listed_by_database_then_workflow(workflow_catalog: WorkflowCatalog) -> None:
    _publish_each(workflow_catalog)

    page = workflow_catalog.list_workflows(100, None)

    assert [v.workflow_key for v in page.items] == ORDERED
    assert ORDERED[:4] == ["alpha:z", "demo:a", "demo:b", "demo:c.1"]
    assert page.next_token is None


@pytest.mark.parametrize("limit", [1, 2, 3, 7])
def test_paging_through_the_workflows_gives_each_exactly_once(
    workflow_catalog: WorkflowCatalog, limit: int
) -> None:
    _publish_each(workflow_catalog)

    assert _all_pages(workflow_catalog, limit) == [f"{key}@1" for key in ORDERED]


@pytest.mark.parametrize("limit", [1, 2, 20])
def test_the_database_filter_takes_no_workflow_of_a_longer_database_id(
    workflow_catalog: WorkflowCatalog, limit: int
) -> None:
    _publish_each(workflow_catalog)

    assert _all_pages(workflow_catalog, limit, "demo") == ["demo:a@1", "demo:b@1", "demo:c.1@1"]
    assert _all_pages(workflow_catalog, limit, "demo2") == ["demo2:a@1", "demo2:b@1"]
    assert _all_pages(workflow_catalog, limit, "dem") == []


def test_each_workflow_is_listed_once_at_its_latest_version(
    workflow_catalog: WorkflowCatalog,
) -> None:
    for number in (1, 2):
        workflow_catalog.add_version(a_version(number, workflow="demo:a"))
    workflow_catalog.add_version(a_version(1, workflow="demo:b"))
    workflow_catalog.add_version(a_version(3, workflow="demo:a"))

    page = workflow_catalog.list_workflows(20, None)

    assert page.items == (a_version(3, workflow="demo:a"), a_version(1, workflow="demo:b"))


def test_a_deployed_latest_version_is_listed_with_its_state_machine(
    workflow_catalog: WorkflowCatalog,
) -> None:
    for number in (1, 2):
        workflow_catalog.add_version(a_version(number))
    arn = "arn:aws:states:us-east-1:123456789012:stateMachine:wfx-db1-wf1-v2"
    deployed = workflow_catalog.record_deployment("db1", "wf1", 2, arn)

    assert workflow_catalog.list_workflows(20, None).items == (deployed,)


def test_no_workflows_is_an_empty_page(workflow_catalog: WorkflowCatalog) -> None:
    page = workflow_catalog.list_workflows(20, None)
    assert page.items == ()
    assert page.next_token is None


@pytest.mark.parametrize(
    "token",
    ["%%%", _forged({"db": "demo"}), _forged(["demo", ""]), _forged(["demo", "a", 1]), _forged(1)],
)
def test_a_tampered_workflow_token_is_refused_naming_it(
    workflow_catalog: WorkflowCatalog, token: str
) -> None:
    _publish_each(workflow_catalog)

    with pytest.raises(InvalidInputError, match="startingToken"):
        workflow_catalog.list_workflows(2, token)


def test_a_token_of_another_database_is_refused(workflow_catalog: WorkflowCatalog) -> None:
    _publish_each(workflow_catalog)
    token = workflow_catalog.list_workflows(1, None, database_id="demo2").next_token
    assert token is not None

    with pytest.raises(InvalidInputError, match="startingToken: the token belongs to another"):
        workflow_catalog.list_workflows(1, token, database_id="demo")


@pytest.mark.parametrize("limit", [0, 101])
def test_a_page_size_outside_1_to_100_is_refused_naming_limit(
    workflow_catalog: WorkflowCatalog, limit: int
) -> None:
    with pytest.raises(InvalidInputError, match="limit"):
        workflow_catalog.list_workflows(limit, None)
    with pytest.raises(InvalidInputError, match="limit"):
        workflow_catalog.list_versions("db1", "wf1", limit, None)


def _versions(catalog: WorkflowCatalog, database_id: str, workflow_id: str) -> list[int]:
    page = catalog.list_versions(database_id, workflow_id, 100, None)
    return [version.version for version in page.items]


def test_a_listed_version_reads_back_as_stored(workflow_catalog: WorkflowCatalog) -> None:
    version: WorkflowVersion = a_version(1, workflow="demo:a")
    workflow_catalog.add_version(version)

    assert workflow_catalog.list_versions("demo", "a", 1, None).items == (version,)
    assert _versions(workflow_catalog, "demo", "a") == [1]
