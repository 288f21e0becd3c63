"""WorkflowCatalog contract: published versions read back whole, their steps in order; a stored
version never changes (a deployment adds its state machine once); unknown versions."""

from __future__ import annotations

import pytest

from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
from domain.errors import VersionImmutableError, WorkflowNotFoundError
from domain.workflow import WorkflowDefinition
from tests.contract.builders import a_version, publish, with_command_steps

ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:wfx-db1-wf1-v1"


def test_a_published_version_is_read_back(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1))

    assert workflow_catalog.get_version("db1", "wf1", 1) == a_version(1)


def test_a_versions_steps_read_back_in_step_order(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    version = with_command_steps(a_version(1), 12)  # step 10 sorts below step 9 as text
    publish(workflow_definitions, version)

    stored = workflow_catalog.get_version("db1", "wf1", 1)

    assert [s.pipeline_id for s in stored.steps] == [f"step-{i}" for i in range(12)]
    assert stored == version
    assert stored.step_definition_id(10) == "db1:wf1:1:10"


def test_an_overwrite_of_a_published_version_is_refused_and_leaves_it_unchanged(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    original = with_command_steps(a_version(1), 3)
    publish(workflow_definitions, original)
    rewritten = with_command_steps(a_version(1), 2).model_copy(update={"description": "rewritten"})

    refused = workflow_definitions.publish(WorkflowDefinition.first(rewritten, "eve"), rewritten)

    assert refused is False
    assert workflow_catalog.get_version("db1", "wf1", 1) == original
    assert workflow_catalog.latest_version("db1", "wf1") == original


def test_the_latest_version_is_the_highest_number(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, *(a_version(n) for n in range(1, 11)))
    publish(workflow_definitions, *(a_version(n, workflow="db1:wf2") for n in range(1, 12)))

    assert workflow_catalog.latest_version("db1", "wf1") == a_version(10)


def test_the_latest_version_read_again_is_one_published_since(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1))
    # read once before: a store that keeps what it read must still see the newer version
    assert workflow_catalog.latest_version("db1", "wf1") == a_version(1)

    publish(workflow_definitions, with_command_steps(a_version(2), 2))

    assert workflow_catalog.latest_version("db1", "wf1") == with_command_steps(a_version(2), 2)


def test_a_workflow_without_versions_has_no_latest(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1, workflow="db1:wf2"))

    assert workflow_catalog.latest_version("db1", "wf1") is None


def test_an_unknown_version_raises_not_found_naming_it(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1))

    with pytest.raises(WorkflowNotFoundError, match="db1/wf1 version 2"):
        workflow_catalog.get_version("db1", "wf1", 2)
    with pytest.raises(WorkflowNotFoundError, match="db1/nope version 1"):
        workflow_catalog.get_version("db1", "nope", 1)


def test_creating_the_tables_again_keeps_the_versions(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1))

    workflow_catalog.create_tables()
    workflow_definitions.create_tables()

    assert workflow_catalog.get_version("db1", "wf1", 1) == a_version(1)


def test_a_deployment_records_the_state_machine_on_the_version(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1))
    # read once before: a store that keeps what it read must still see the change
    assert workflow_catalog.get_version("db1", "wf1", 1).state_machine_arn is None

    deployed = workflow_catalog.record_deployment("db1", "wf1", 1, ARN)

    assert deployed.state_machine_arn == ARN
    assert workflow_catalog.get_version("db1", "wf1", 1) == deployed
    assert deployed.steps == a_version(1).steps  # nothing else of the version changes


def test_a_redeployment_keeps_the_state_machine_and_another_is_refused(
    workflow_catalog: WorkflowCatalog, workflow_definitions: WorkflowDefinitions
) -> None:
    publish(workflow_definitions, a_version(1))
    deployed = workflow_catalog.record_deployment("db1", "wf1", 1, ARN)

    assert workflow_catalog.record_deployment("db1", "wf1", 1, ARN) == deployed
    with pytest.raises(VersionImmutableError, match="db1/wf1 version 1"):
        workflow_catalog.record_deployment("db1", "wf1", 1, f"{ARN}-other")
    assert workflow_catalog.get_version("db1", "wf1", 1) == deployed


def test_deploying_an_unknown_version_raises_not_found(workflow_catalog: WorkflowCatalog) -> None:
    with pytest.raises(WorkflowNotFoundError, match="db1/wf1 version 7"):
        workflow_catalog.record_deployment("db1", "wf1", 7, "arn:aws:states:x")
