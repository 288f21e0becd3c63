"""A running step registers children; an abort stops them (Step Functions on moto, in-process)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from dependency_injector import providers
from pytest_bdd import parsers, then, when
from tests.contract.builders import registered_on_step

from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.step_tracking import StartStepCommand
from domain.logs import RegisteredSubExecution
from domain.sub_processes import StopOutcome
from entrypoints.container import Container
from features.steps.reading import details_of, step_named
from features.steps.stepfunctions_steps import ROLE_ARN, StepFunctions
from features.steps.world import World

CHILD_DEFINITION = {"StartAt": "Mesh", "States": {"Mesh": {"Type": "Pass", "End": True}}}


@dataclass
class Children:
    """What the scenario's step started itself, and what the abort said about it."""

    state_machine_execution: str = ""
    warnings: list[str] = field(default_factory=list)


@pytest.fixture
def children() -> Children:
    return Children()


def _register(container: Container, world: World, name: str, sub: RegisteredSubExecution) -> None:
    step = step_named(details_of(container, world.execution_id), name).step
    registered_on_step(
        container.execution_store(), world.execution_id, step.pipeline_execution_id, (sub,)
    )


@when(parsers.parse('the step "{name}" starts'))
def _(container: Container, world: World, name: str) -> None:
    step = step_named(details_of(container, world.execution_id), name).step
    command = StartStepCommand(
        workflow_execution_id=world.execution_id,
        pipeline_execution_id=step.pipeline_execution_id,
    )
    container.start_step().execute(command)


@when(parsers.parse('the step "{name}" registers a sub-state-machine it started in Step Functions'))
def _(
    container: Container,
    world: World,
    stepfunctions: StepFunctions,
    children: Children,
    name: str,
) -> None:
    from entrypoints.sub_process_controllers import sub_process_controller

    machine = stepfunctions.client.create_state_machine(
        name="features-child", definition=json.dumps(CHILD_DEFINITION), roleArn=ROLE_ARN
    )
    started = stepfunctions.client.start_execution(
        stateMachineArn=machine["stateMachineArn"], name=f"{world.execution_id}-child"
    )
    children.state_machine_execution = started["executionArn"]
    _register(
        container,
        world,
        name,
        RegisteredSubExecution.of_resource(
            resource_type="stepFunctions", resource_id=children.state_machine_execution
        ),
    )
    # the container's controllers, with moto's Step Functions client
    controller = sub_process_controller(
        lambda: stepfunctions.client,
        container.batch_client,
        container.deadline_client,
        container.config.home(),
        container.config.stop_grace_seconds(),
    )
    container.sub_process_controller.override(providers.Object(controller))


@when(parsers.parse('the step "{name}" registers a "{kind}" with the id "{resource_id}"'))
def _(container: Container, world: World, name: str, kind: str, resource_id: str) -> None:
    _register(
        container,
        world,
        name,
        RegisteredSubExecution.of_resource(resource_type=kind, resource_id=resource_id),
    )


@when("alice aborts the execution and reads the warnings")
def _(container: Container, world: World, children: Children) -> None:
    command = AbortExecutionCommand(workflow_execution_id=world.execution_id)
    children.warnings = list(container.abort_execution().execute(command).warnings)


@then(parsers.parse("the sub-state-machine is {status:w} in Step Functions"))
def _(stepfunctions: StepFunctions, children: Children, status: str) -> None:
    described = stepfunctions.client.describe_execution(
        executionArn=children.state_machine_execution
    )
    assert described["status"] == status, described


@then(parsers.parse('the abort warned "{text}"'))
def _(children: Children, text: str) -> None:
    assert text in children.warnings, children.warnings
    children.warnings.remove(text)


@then("the abort warned nothing else")
def _(children: Children) -> None:
    assert children.warnings == []


def _outcomes(container: Container, world: World, name: str) -> dict[str, StopOutcome]:
    step = step_named(details_of(container, world.execution_id), name).step
    return {stop.resource_id: stop.outcome for stop in step.sub_execution_stops}


@then(parsers.parse('the step "{name}" recorded the sub-state-machine as stopped'))
def _(container: Container, world: World, children: Children, name: str) -> None:
    outcome = _outcomes(container, world, name).get(children.state_machine_execution)
    # a stop is asynchronous on AWS; moto ends the execution at once
    assert outcome in (StopOutcome.STOP_REQUESTED, StopOutcome.STOPPED), outcome


@then(parsers.parse('the step "{name}" recorded "{resource_id}" as {outcome:w}'))
def _(container: Container, world: World, name: str, resource_id: str, outcome: str) -> None:
    assert _outcomes(container, world, name).get(resource_id) is StopOutcome(outcome)


@then(parsers.parse('the step "{name}" recorded no stop outcomes'))
def _(container: Container, world: World, name: str) -> None:
    assert _outcomes(container, world, name) == {}
