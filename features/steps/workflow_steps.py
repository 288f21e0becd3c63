"""Steps of workflow_versions.feature: definitions, versions, and the version a run keeps."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import yaml
from pytest_bdd import given, parsers, then

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.use_cases.show_workflow import ShowWorkflowQuery, WorkflowView
from application.workflow_documents import parse_workflow_document
from domain.statuses import ExecutionStatus
from entrypoints.container import Container
from features.steps.observer import ObservingReporter
from features.steps.setup_steps import WORKFLOWS
from features.steps.world import World, split_list


@dataclass
class MidRunPublishes:
    """The status of the run at each publish made from inside it, and the version published."""

    seen: list[tuple[ExecutionStatus, int]] = field(default_factory=list)


@pytest.fixture
def mid_run_publishes() -> MidRunPublishes:
    return MidRunPublishes()


def _show(container: Container, workflow: str, version: int | None = None) -> WorkflowView:
    database_id, _, workflow_id = workflow.partition("/")
    query = ShowWorkflowQuery(database_id=database_id, workflow_id=workflow_id, version=version)
    return container.show_workflow().execute(query)


@given(parsers.parse('{user} publishes "{file_name}" as soon as the step "{step}" of a run starts'))
def _(
    container: Container,
    observer: ObservingReporter,
    mid_run_publishes: MidRunPublishes,
    user: str,
    file_name: str,
    step: str,
) -> None:
    document = parse_workflow_document(yaml.safe_load((WORKFLOWS / file_name).read_text()))

    def publish(workflow_execution_id: str) -> None:
        status = container.execution_store().get_execution(workflow_execution_id).status
        command = PublishWorkflowVersionCommand(document=document, published_by=user)
        published = container.publish_workflow_version().execute(command)
        mid_run_publishes.seen.append((status, published.version.version))

    observer.once_started[step] = publish


@then("the new version was published while the execution was RUNNING")
def _(mid_run_publishes: MidRunPublishes) -> None:
    assert mid_run_publishes.seen == [(ExecutionStatus.RUNNING, 2)]


@then(
    parsers.parse(
        'the workflow "{workflow}" has the versions "{numbers}" with {latest:d} as its latest, '
        'owned by "{owner}"'
    )
)
def _(container: Container, workflow: str, numbers: str, latest: int, owner: str) -> None:
    view = _show(container, workflow)
    assert [str(v.version) for v in view.versions.items] == split_list(numbers)
    assert (view.definition.latest_version, view.definition.owner) == (latest, owner)
    assert view.version.version == latest


@then(parsers.parse('version {number:d} of "{workflow}" has the steps "{names}"'))
def _(container: Container, number: int, workflow: str, names: str) -> None:
    steps = _show(container, workflow, number).version.steps
    assert [step.pipeline_id for step in steps] == split_list(names)


@then(
    parsers.parse(
        "the execution ran version {number:d}, each step on version {same:d}'s step definition"
    )
)
def _(container: Container, world: World, number: int, same: int) -> None:
    execution = container.execution_store().get_execution(world.execution_id)
    assert execution.workflow_version == number == same
    version = container.workflow_catalog().get_version(
        execution.workflow_database_id, execution.workflow_id, number
    )
    steps = sorted(
        container.execution_store().list_steps(world.execution_id), key=lambda s: s.step_index
    )
    assert [s.pipeline_id for s in steps] == [d.pipeline_id for d in version.steps]
    assert [s.step_definition_id for s in steps] == [
        version.step_definition_id(index) for index in range(len(version.steps))
    ]


@then(parsers.parse('a new run of "{workflow}" runs version {number:d} without the step "{step}"'))
def _(container: Container, world: World, workflow: str, number: int, step: str) -> None:
    database_id, _, workflow_id = workflow.partition("/")
    command = LaunchExecutionCommand(
        workflow_database_id=database_id,
        workflow_id=workflow_id,
        inputs=("scans/bunny",),
        user_id=world.user,
    )
    launched = container.launch_execution().execute(command).execution
    run = container.execution_store().get_execution(launched.workflow_execution_id)
    steps = container.execution_store().list_steps(launched.workflow_execution_id)
    assert (run.workflow_version, run.status) == (number, ExecutionStatus.SUCCEEDED)
    assert step not in {s.pipeline_id for s in steps}
    ids = {s.step_index: s.step_definition_id for s in steps}
    assert ids == {i: f"{database_id}:{workflow_id}:{number}:{i}" for i in range(len(steps))}
