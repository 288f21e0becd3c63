"""WorkflowCatalog contract: immutable numbered versions, the latest one, unknown versions."""

from __future__ import annotations

import pytest

from application.ports import WorkflowCatalog
from domain.errors import WorkflowNotFoundError
from tests.contract.builders import a_version


def test_a_stored_version_is_read_back(workflow_catalog: WorkflowCatalog) -> None:
    version = a_version(1)

    assert workflow_catalog.add_version(version) is True
    assert workflow_catalog.get_version("db1", "wf1", 1) == version


def test_a_taken_version_number_is_refused_and_keeps_the_first(
    workflow_catalog: WorkflowCatalog,
) -> None:
    first = a_version(1)
    workflow_catalog.add_version(first)
    rival = first.model_copy(update={"description": "rewritten", "digest": "sha256:other"})

    assert workflow_catalog.add_version(rival) is False
    assert workflow_catalog.get_version("db1", "wf1", 1) == first


def test_the_latest_version_is_the_highest_number(workflow_catalog: WorkflowCatalog) -> None:
    for number in (2, 10, 9, 1):  # 10 sorts below 9 as text: the number must be compared
        workflow_catalog.add_version(a_version(number))
    workflow_catalog.add_version(a_version(11, workflow="db1:wf2"))

    latest = workflow_catalog.latest_version("db1", "wf1")

    assert latest == a_version(10)


def test_a_workflow_without_versions_has_no_latest(workflow_catalog: WorkflowCatalog) -> None:
    workflow_catalog.add_version(a_version(1, workflow="db1:wf2"))

    assert workflow_catalog.latest_version("db1", "wf1") is None


def test_an_unknown_version_raises_not_found_naming_it(workflow_catalog: WorkflowCatalog) -> None:
    workflow_catalog.add_version(a_version(1))

    with pytest.raises(WorkflowNotFoundError, match="db1/wf1 version 2"):
        workflow_catalog.get_version("db1", "wf1", 2)
    with pytest.raises(WorkflowNotFoundError, match="db1/nope version 1"):
        workflow_catalog.get_version("db1", "nope", 1)


def test_creating_the_tables_again_keeps_the_versions(workflow_catalog: WorkflowCatalog) -> None:
    workflow_catalog.add_version(a_version(1))

    workflow_catalog.create_tables()

    assert workflow_catalog.get_version("db1", "wf1", 1) == a_version(1)


def test_a_deployment_records_the_state_machine_on_the_version(
    workflow_catalog: WorkflowCatalog,
) -> None:
    workflow_catalog.add_version(a_version(1))
    arn = "arn:aws:states:us-east-1:123456789012:stateMachine:wfx-db1-wf1-v1"
    deployed = workflow_catalog.record_deployment("db1", "wf1", 1, arn)
    assert deployed.state_machine_arn == arn
    assert workflow_catalog.get_version("db1", "wf1", 1) == deployed
    assert deployed.steps == a_version(1).steps  # nothing else of the version changes


def test_deploying_an_unknown_version_raises_not_found(workflow_catalog: WorkflowCatalog) -> None:
    with pytest.raises(WorkflowNotFoundError, match="db1/wf1 version 7"):
        workflow_catalog.record_deployment("db1", "wf1", 7, "arn:aws:states:x")
