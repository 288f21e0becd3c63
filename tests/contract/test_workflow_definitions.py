"""WorkflowDefinitions contract: a definition per workflow, made by its version 1 and moved on
by each publish; the one write that publishes; the list of workflows, page by page."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest

from application.ports.workflows import WorkflowDefinitions
from domain.errors import InvalidInputError
from domain.workflow import WorkflowDefinition
from tests.contract.builders import a_version, at, publish


def _all_pages(
    definitions: WorkflowDefinitions, limit: int, database_id: str | None = None
) -> list[str]:
    """Every workflow of the list as "db:wf@latest", following the tokens to the end."""
    seen: list[str] = []
    token: str | None = None
    while True:
        page = definitions.list_definitions(limit, token, database_id=database_id)
        assert len(page.items) <= limit
        seen += [f"{d.workflow_key}@{d.latest_version}" for d in page.items]
        if page.next_token is None:
            return seen
        token = page.next_token


def _forged(fields: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(fields).encode()).decode().rstrip("=")


# -- one definition -----------------------------------------------------------------------------


def test_version_1_creates_the_definition_owned_by_its_publisher(
    workflow_definitions: WorkflowDefinitions,
) -> None:
    publish(workflow_definitions, a_version(1), owner="alice")

    assert workflow_definitions.find_definition("db1", "wf1") == WorkflowDefinition(
        database_id="db1",
        workflow_id="wf1",
        owner="alice",
        description="version 1",
        created_at=at(1),
        latest_version=1,
    )


def test_each_publish_moves_the_latest_version_and_keeps_owner_and_creation(
    workflow_definitions: WorkflowDefinitions,
) -> None:
    publish(workflow_definitions, a_version(1), owner="alice")
    publish(workflow_definitions, a_version(2), a_version(3), owner="bob")

    definition = workflow_definitions.find_definition("db1", "wf1")

    assert definition is not None
    assert (definition.owner, definition.created_at) == ("alice", at(1))
    assert (definition.latest_version, definition.description) == (3, "version 3")


def test_a_workflow_never_published_has_no_definition(
    workflow_definitions: WorkflowDefinitions,
) -> None:
    publish(workflow_definitions, a_version(1, workflow="db1:wf2"))

    assert workflow_definitions.find_definition("db1", "wf1") is None


def test_a_rival_publish_of_a_taken_number_is_refused_and_writes_nothing(
    workflow_definitions: WorkflowDefinitions,
) -> None:
    """Two publishers both read version 1 as the latest and both try to become version 2."""
    publish(workflow_definitions, a_version(1))
    first = workflow_definitions.find_definition("db1", "wf1")
    assert first is not None
    winner = a_version(2)
    rival = winner.model_copy(update={"description": "rival", "digest": "sha256:rival"})

    assert workflow_definitions.publish(first.published(winner), winner) is True
    assert workflow_definitions.publish(first.published(rival), rival) is False

    stored = workflow_definitions.find_definition("db1", "wf1")
    assert stored == first.published(winner)


def test_a_second_version_1_is_refused(workflow_definitions: WorkflowDefinitions) -> None:
    publish(workflow_definitions, a_version(1), owner="alice")
    rival = a_version(1).model_copy(update={"published_at": at(1) + timedelta(hours=1)})

    assert workflow_definitions.publish(WorkflowDefinition.first(rival, "bob"), rival) is False
    stored = workflow_definitions.find_definition("db1", "wf1")
    assert stored is not None and stored.owner == "alice"


def test_the_latest_pointer_never_goes_backwards(workflow_definitions: WorkflowDefinitions) -> None:
    publish(workflow_definitions, a_version(1), a_version(2), a_version(3))
    stale = WorkflowDefinition.first(a_version(1), "alice").published(a_version(2))
    late = a_version(2).model_copy(update={"digest": "sha256:late"})

    assert workflow_definitions.publish(stale, late) is False
    stored = workflow_definitions.find_definition("db1", "wf1")
    assert stored is not None and stored.latest_version == 3


def test_a_definition_that_does_not_point_at_the_version_is_a_caller_error(
    workflow_definitions: WorkflowDefinitions,
) -> None:
    with pytest.raises(ValueError, match="must point at the version"):
        workflow_definitions.publish(WorkflowDefinition.first(a_version(1), "alice"), a_version(2))


# -- every workflow -----------------------------------------------------------------------------

# "demo2" and "demo-x" sort between "demo:" and "demo;" as text: the order must still be by
# database id first, and a filter on "demo" must not take their workflows.
WORKFLOWS = ("demo2:a", "demo:b", "demo-x:a", "demo:a", "alpha:z", "demo2:b", "demo:c.1")
ORDERED = sorted(WORKFLOWS, key=lambda key: tuple(key.split(":")))


def _publish_each(definitions: WorkflowDefinitions) -> None:
    for key in WORKFLOWS:
        publish(definitions, a_version(1, workflow=key))


def test_workflows_are_listed_by_database_then_workflow(
    workflow_definitions: WorkflowDefinitions,
) -> None:
    _publish_each(workflow_definitions)

    page = workflow_definitions.list_definitions(100, None)

    assert [d.workflow_key for d in page.items] == ORDERED
    assert ORDERED[:4] == ["alpha:z", "demo:a", "demo:b", "demo:c.1"]
    assert page.next_token is None


@pytest.mark.parametrize("limit", [1, 2, 3, 7])
def test_paging_through_the_workflows_gives_each_exactly_once(
    workflow_definitions: WorkflowDefinitions, limit: int
) -> None:
    _publish_each(workflow_definitions)

    assert _all_pages(workflow_definitions, limit) == [f"{key}@1" for key in ORDERED]


@pytest.mark.parametrize("limit", [1, 2, 20])
def test_the_database_filter_takes_no_workflow_of_a_longer_database_id(
    workflow_definitions: WorkflowDefinitions, limit: int
) -> None:
    _publish_each(workflow_definitions)

    assert _all_pages(workflow_definitions, limit, "demo") == [
        "demo:a@1",
        "demo:b@1",
        "demo:c.1@1",
    ]
    assert _all_pages(workflow_definitions, limit, "demo2") == ["demo2:a@1", "demo2:b@1"]
    assert _all_pages(workflow_definitions, limit, "dem") == []


def test_each_workflow_is_listed_once_at_its_latest_version(
    workflow_definitions: WorkflowDefinitions,
) -> None:
    publish(workflow_definitions, a_version(1, workflow="demo:a"), a_version(2, workflow="demo:a"))
    publish(workflow_definitions, a_version(1, workflow="demo:b"))
    publish(workflow_definitions, a_version(3, workflow="demo:a"))

    assert _all_pages(workflow_definitions, 20) == ["demo:a@3", "demo:b@1"]


def test_no_workflows_is_an_empty_page(workflow_definitions: WorkflowDefinitions) -> None:
    page = workflow_definitions.list_definitions(20, None)
    assert page.items == ()
    assert page.next_token is None


@pytest.mark.parametrize(
    "token",
    ["%%%", _forged({"db": "demo"}), _forged(["demo", ""]), _forged(["demo", "a", 1]), _forged(1)],
)
def test_a_tampered_workflow_token_is_refused_naming_it(
    workflow_definitions: WorkflowDefinitions, token: str
) -> None:
    _publish_each(workflow_definitions)

    with pytest.raises(InvalidInputError, match="startingToken"):
        workflow_definitions.list_definitions(2, token)


def test_a_token_of_another_database_is_refused(workflow_definitions: WorkflowDefinitions) -> None:
    _publish_each(workflow_definitions)
    token = workflow_definitions.list_definitions(1, None, database_id="demo2").next_token
    assert token is not None

    with pytest.raises(InvalidInputError, match="startingToken: the token belongs to another"):
        workflow_definitions.list_definitions(1, token, database_id="demo")


@pytest.mark.parametrize("limit", [0, 101])
def test_a_page_size_outside_1_to_100_is_refused_naming_limit(
    workflow_definitions: WorkflowDefinitions, limit: int
) -> None:
    with pytest.raises(InvalidInputError, match="limit"):
        workflow_definitions.list_definitions(limit, None)
