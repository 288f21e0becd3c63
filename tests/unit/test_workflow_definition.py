"""WorkflowDefinition: made by version 1, moved one version at a time by each publish."""

from __future__ import annotations

import pytest

from domain.workflow import WorkflowDefinition
from tests.contract.builders import a_version, at


def test_version_1_makes_the_definition_its_publisher_owns() -> None:
    definition = WorkflowDefinition.first(a_version(1), "alice")

    assert (definition.owner, definition.created_at, definition.latest_version) == (
        "alice",
        at(1),
        1,
    )
    assert definition.points_at(a_version(1)) and not definition.points_at(a_version(2))


def test_a_publish_moves_the_pointer_and_the_description_only() -> None:
    definition = WorkflowDefinition.first(a_version(1), "alice").published(a_version(2))

    assert (definition.latest_version, definition.description) == (2, "version 2")
    assert (definition.owner, definition.created_at) == ("alice", at(1))


@pytest.mark.parametrize("number", [1, 3])
def test_a_version_that_does_not_follow_the_latest_is_refused(number: int) -> None:
    definition = WorkflowDefinition.first(a_version(1), "alice")

    with pytest.raises(ValueError, match="does not follow version 1"):
        definition.published(a_version(number))


def test_only_version_1_makes_a_definition() -> None:
    with pytest.raises(ValueError, match="starts at version 1"):
        WorkflowDefinition.first(a_version(2), "alice")


def test_a_step_definition_id_names_the_version_and_the_step() -> None:
    assert a_version(4, workflow="demo:mesh").step_definition_id(0) == "demo:mesh:4:0"
    with pytest.raises(ValueError, match="has no step 1"):
        a_version(4).step_definition_id(1)
