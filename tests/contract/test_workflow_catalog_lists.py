"""WorkflowCatalog lists: a workflow's versions newest first, page by page, each exactly once."""

from __future__ import annotations

import base64
import json

import pytest

from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
from domain.errors import InvalidInputError
from domain.workflow import WorkflowVersion
from tests.contract.builders import a_version, publish


def _forged(fields: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")


def _publish_up_to(definitions: WorkflowDefinitions, last: int, workflow: str = "db1:wf1") -> None:
    publish(definitions, *(a_version(n, workflow=workflow) for n in range(1, last + 1)))


def test_versions_are_listed_newest_first_across_pages(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    _publish_up_to(workflow_definitions, 10)  # 10 sorts below 9 as text: numbers are compared
    publish(workflow_definitions, a_version(1, workflow="db1:wf2"))

    first = workflow_catalog.list_versions("db1", "wf1", 4, None)
    second = workflow_catalog.list_versions("db1", "wf1", 4, first.next_token)
    third = workflow_catalog.list_versions("db1", "wf1", 4, second.next_token)

    assert [v.version for v in first.items] == [10, 9, 8, 7]
    assert [v.version for v in second.items] == [6, 5, 4, 3]
    assert third.items == (a_version(2), a_version(1))
    assert third.next_token is None


def test_a_page_that_ends_the_versions_has_no_token(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    _publish_up_to(workflow_definitions, 2)

    page = workflow_catalog.list_versions("db1", "wf1", 2, None)

    assert [v.version for v in page.items] == [2, 1]
    assert page.next_token is None


def test_an_unknown_workflow_has_an_empty_version_list(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1, workflow="db1:wf2"))

    page = workflow_catalog.list_versions("db1", "wf1", 20, None)

    assert page.items == ()
    assert page.next_token is None


@pytest.mark.parametrize(
    "token",
    ["not base64 !", _forged(["db1", "wf1"]), _forged(["db1", "wf1", "3"]), _forged(["db1", 1, 3])],
)
def test_a_tampered_version_token_is_refused_naming_it(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions, token: str
) -> None:
    publish(workflow_definitions, a_version(1))

    with pytest.raises(InvalidInputError, match="startingToken"):
        workflow_catalog.list_versions("db1", "wf1", 20, token)


def test_a_version_token_of_another_workflow_is_refused(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    _publish_up_to(workflow_definitions, 2, workflow="db1:wf2")
    token = workflow_catalog.list_versions("db1", "wf2", 1, None).next_token
    assert token is not None

    with pytest.raises(InvalidInputError, match="startingToken: the token belongs to another"):
        workflow_catalog.list_versions("db1", "wf1", 1, token)


@pytest.mark.parametrize("limit", [0, 101])
def test_a_page_size_outside_1_to_100_is_refused_naming_limit(
    workflow_catalog: WorkflowCatalog, limit: int
) -> None:
    with pytest.raises(InvalidInputError, match="limit"):
        workflow_catalog.list_versions("db1", "wf1", limit, None)


def test_a_listed_version_reads_back_as_stored(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    version: WorkflowVersion = a_version(1, workflow="demo:a")
    publish(workflow_definitions, version)

    assert workflow_catalog.list_versions("demo", "a", 1, None).items == (version,)
