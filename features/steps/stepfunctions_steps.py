"""Step Functions on moto (in-process): deploying a workflow there, and acting on it out of band.

In moto's default mode an execution stays RUNNING until someone stops it, which is what these
scenarios need: a run that Step Functions still holds, stopped behind wfx's back with boto3.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from dependency_injector import providers
from pytest_bdd import given, parsers, then, when

from entrypoints.container import Container
from features.steps.world import World

REGION = "us-east-1"
ROLE_ARN = "arn:aws:iam::123456789012:role/wfx-features"
# moto's default mode never runs the definition; any valid one will do.
DEFINITION = {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}


@dataclass
class StepFunctions:
    """A moto Step Functions client, and how many times each of its APIs was called."""

    client: Any
    calls: Counter[str] = field(default_factory=Counter)

    def _count(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1

    def attach(self) -> StepFunctions:
        self.client.meta.events.register(
            "before-call.*.*", self._count, unique_id="features-sfn-calls"
        )
        return self


@pytest.fixture
def stepfunctions(container: Container) -> Iterator[StepFunctions]:
    """moto's Step Functions, in the same mock as the scenario's DynamoDB when there is one."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        yield StepFunctions(boto3.client("stepfunctions", region_name=REGION)).attach()


@given(parsers.parse('the workflow "{workflow}" is deployed to Step Functions'))
def _(container: Container, stepfunctions: StepFunctions, workflow: str) -> None:
    from adapters.aws.stepfunctions import StepFunctionsOrchestrator

    database_id, _, workflow_id = workflow.partition("/")
    catalog = container.workflow_catalog()
    version = catalog.latest_version(database_id, workflow_id)
    assert version is not None, f"{workflow} is not published"
    created = stepfunctions.client.create_state_machine(
        name=f"{database_id}-{workflow_id}-v{version.version}",
        definition=json.dumps(DEFINITION),
        roleArn=ROLE_ARN,
        type="STANDARD",
    )
    catalog.record_deployment(database_id, workflow_id, version.version, created["stateMachineArn"])
    # from now on the scenario's launches, reads, aborts and redrives go to Step Functions
    orchestrator = StepFunctionsOrchestrator(stepfunctions.client)
    container.orchestrator.override(providers.Object(orchestrator))


@when("the execution is stopped directly in Step Functions")
def _(container: Container, stepfunctions: StepFunctions, world: World) -> None:
    stored = container.execution_store().get_execution(world.execution_id)
    assert stored.execution_arn, f"the run has no Step Functions execution: {stored}"
    # with no error or cause, as a console stop may be: the run then records none (seed 000)
    stepfunctions.client.stop_execution(executionArn=stored.execution_arn)
    described = stepfunctions.client.describe_execution(executionArn=stored.execution_arn)
    assert described["status"] == "ABORTED", described
    stepfunctions.calls.clear()  # count only what wfx asks from here on


@then(parsers.re(r"Step Functions was asked about the execution (?P<count>no|\d+) times?"))
def _(stepfunctions: StepFunctions, count: str) -> None:
    expected = 0 if count == "no" else int(count)
    assert stepfunctions.calls["DescribeExecution"] == expected, dict(stepfunctions.calls)
