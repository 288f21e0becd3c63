"""DeployWorkflowVersion on moto's Step Functions, with the version stored on SQLite or DynamoDB."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from adapters.aws.stepfunctions import StepFunctionsDeployer
from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from adapters.tables import TableNames
from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
from application.state_machines import HandlerArns, build_state_machine, validate_state_machine
from application.use_cases.deploy_workflow_version import (
    DeploymentConfiguration,
    DeployWorkflowVersion,
    DeployWorkflowVersionCommand,
)
from conftest import AWS_REGION
from domain.errors import InvalidInputError, WorkflowNotFoundError
from domain.workflow import ExecutionType, RetryPolicy, StepDefinition, WorkflowVersion
from tests.contract.builders import publish

ACCOUNT = "123456789012"
CONFIGURATION = DeploymentConfiguration(
    role_arn=f"arn:aws:iam::{ACCOUNT}:role/wfx-state-machine",
    log_group_arn=f"arn:aws:logs:{AWS_REGION}:{ACCOUNT}:log-group:/wfx/state-machines:*",
    handlers=HandlerArns(
        tracking=f"arn:aws:lambda:{AWS_REGION}:{ACCOUNT}:function:wfx-track-step",
        completion=f"arn:aws:lambda:{AWS_REGION}:{ACCOUNT}:function:wfx-complete-execution",
        error=f"arn:aws:lambda:{AWS_REGION}:{ACCOUNT}:function:wfx-handle-execution-error",
    ),
)
LAMBDA = StepDefinition(
    pipeline_id="convert",
    pipeline_database_id="demo",
    execution_type=ExecutionType.LAMBDA,
    function_name="mesh-convert",
    wait_for_callback=True,
)
BATCH = StepDefinition(
    pipeline_id="render",
    pipeline_database_id="demo",
    execution_type=ExecutionType.BATCH,
    job_queue="wfx-queue",
    job_definition="render:2",
    retry=RetryPolicy(max_attempts=2),
)
PYTHON = StepDefinition(
    pipeline_id="stats",
    pipeline_database_id="demo",
    execution_type=ExecutionType.PYTHON,
    handler="wfx_examples.mesh.steps:stats",
)


def _version(number: int, *steps: StepDefinition) -> WorkflowVersion:
    return WorkflowVersion(
        database_id="demo",
        workflow_id="mesh",
        version=number,
        steps=steps,
        published_at=datetime(2026, 11, 29, tzinfo=UTC),
        digest=f"sha256:{number}",
    )


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def catalog(backend: str, request: pytest.FixtureRequest) -> WorkflowCatalog:
    catalog: WorkflowCatalog = request.getfixturevalue(f"{backend}_workflow_catalog")
    return catalog


@pytest.fixture
def definitions(backend: str, request: pytest.FixtureRequest) -> WorkflowDefinitions:
    definitions: WorkflowDefinitions = request.getfixturevalue(f"{backend}_workflow_definitions")
    return definitions


@pytest.fixture
def sfn(moto_dynamodb_client: Any) -> Any:
    """A Step Functions client inside the test's own mock_aws (the DynamoDB fixture's)."""
    return boto3.client("stepfunctions", region_name=AWS_REGION)


@pytest.fixture
def deploy(catalog: WorkflowCatalog, sfn: Any) -> DeployWorkflowVersion:
    return DeployWorkflowVersion(catalog, StepFunctionsDeployer(sfn), CONFIGURATION)


def test_a_deploy_creates_the_state_machine_and_records_its_arn_on_the_version(
    catalog: WorkflowCatalog,
    definitions: WorkflowDefinitions,
    sfn: Any,
    deploy: DeployWorkflowVersion,
) -> None:
    publish(definitions, _version(1, LAMBDA, BATCH))

    result = deploy.execute(DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh"))

    assert result.state_machine_name == "wfx-demo-mesh-v1"
    assert result.state_machine_arn.endswith(":stateMachine:wfx-demo-mesh-v1")
    assert catalog.get_version("demo", "mesh", 1).state_machine_arn == result.state_machine_arn
    assert result.version.state_machine_arn == result.state_machine_arn
    machine = sfn.describe_state_machine(stateMachineArn=result.state_machine_arn)
    definition = json.loads(machine["definition"])
    assert definition == build_state_machine(_version(1, LAMBDA, BATCH), CONFIGURATION.handlers)
    assert validate_state_machine(machine["definition"]) == []
    assert machine["roleArn"] == CONFIGURATION.role_arn
    assert machine["loggingConfiguration"]["destinations"] == [
        {"cloudWatchLogsLogGroup": {"logGroupArn": CONFIGURATION.log_group_arn}}
    ]


def test_deploying_again_updates_the_same_state_machine(
    catalog: WorkflowCatalog,
    definitions: WorkflowDefinitions,
    sfn: Any,
    deploy: DeployWorkflowVersion,
) -> None:
    publish(definitions, _version(1, LAMBDA))
    command = DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh", version=1)
    first = deploy.execute(command)

    second = deploy.execute(command)

    assert second.state_machine_arn == first.state_machine_arn
    assert len(sfn.list_state_machines()["stateMachines"]) == 1


def test_the_latest_version_is_deployed_unless_one_is_named(
    catalog: WorkflowCatalog,
    definitions: WorkflowDefinitions,
    deploy: DeployWorkflowVersion,
) -> None:
    publish(definitions, _version(1, LAMBDA))
    publish(definitions, _version(2, LAMBDA, BATCH))

    latest = deploy.execute(DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh"))
    named = deploy.execute(
        DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh", version=1)
    )

    assert latest.state_machine_name == "wfx-demo-mesh-v2"
    assert named.state_machine_name == "wfx-demo-mesh-v1"
    assert catalog.get_version("demo", "mesh", 2).state_machine_arn == latest.state_machine_arn


def test_a_version_with_a_local_only_step_is_refused_naming_the_step(
    catalog: WorkflowCatalog,
    definitions: WorkflowDefinitions,
    sfn: Any,
    deploy: DeployWorkflowVersion,
) -> None:
    publish(definitions, _version(1, LAMBDA, PYTHON))

    with pytest.raises(InvalidInputError, match=r"step stats \(python\) runs only on the local"):
        deploy.execute(DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh"))

    assert sfn.list_state_machines()["stateMachines"] == []
    assert catalog.get_version("demo", "mesh", 1).state_machine_arn is None


def test_an_unpublished_workflow_is_not_found(deploy: DeployWorkflowVersion) -> None:
    with pytest.raises(WorkflowNotFoundError, match="demo/mesh"):
        deploy.execute(DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh"))


def _stack(database: SqliteDatabase, stack: str) -> tuple[SqliteWorkflowCatalog, Any]:
    """One stack's workflow tables (names are account-wide: each stack prefixes its own)."""
    catalog = SqliteWorkflowCatalog(database, TableNames(prefix=f"{stack}-"))
    definitions = SqliteWorkflowDefinitions(database, TableNames(prefix=f"{stack}-"))
    catalog.create_tables()
    definitions.create_tables()
    return catalog, definitions


def test_two_stacks_deploying_the_same_workflow_get_a_machine_each(tmp_path: Any, sfn: Any) -> None:
    """Staging beside production: each deploy names its machine with its stack's prefix, so
    neither overwrites the other's (same workflow, same version, another role)."""
    database = SqliteDatabase(tmp_path / "wfx.db")
    results = []
    for stack, prefix in (("staging", "wfx_0a1b2c3d-"), ("production", "wfx_4e5f6a7b-")):
        catalog, definitions = _stack(database, stack)
        publish(definitions, _version(1, LAMBDA))
        configuration = replace(
            CONFIGURATION,
            role_arn=f"arn:aws:iam::{ACCOUNT}:role/{stack}",
            name_prefix=prefix,
        )
        deploy = DeployWorkflowVersion(catalog, StepFunctionsDeployer(sfn), configuration)
        results.append(
            deploy.execute(DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh"))
        )
    database.close()

    staging, production = results
    assert staging.state_machine_name == "wfx_0a1b2c3d-demo-mesh-v1"
    assert production.state_machine_name == "wfx_4e5f6a7b-demo-mesh-v1"
    assert len(sfn.list_state_machines()["stateMachines"]) == 2
    for result, stack in ((staging, "staging"), (production, "production")):
        machine = sfn.describe_state_machine(stateMachineArn=result.state_machine_arn)
        assert machine["roleArn"] == f"arn:aws:iam::{ACCOUNT}:role/{stack}"


def test_a_name_another_workflow_holds_falls_back_to_the_hashed_one_inside_the_prefix(
    catalog: WorkflowCatalog, definitions: WorkflowDefinitions, sfn: Any
) -> None:
    prefix = "wfx_0a1b2c3d-"
    sfn.create_state_machine(
        name=f"{prefix}demo-mesh-v1",
        definition=json.dumps(
            {"Comment": "another", "StartAt": "A", "States": {"A": {"Type": "Succeed"}}}
        ),
        roleArn=CONFIGURATION.role_arn,
    )
    publish(definitions, _version(1, LAMBDA))
    configuration = replace(CONFIGURATION, name_prefix=prefix)
    deploy = DeployWorkflowVersion(catalog, StepFunctionsDeployer(sfn), configuration)

    result = deploy.execute(DeployWorkflowVersionCommand(database_id="demo", workflow_id="mesh"))

    assert result.state_machine_name.startswith(prefix)
    assert result.state_machine_name != f"{prefix}demo-mesh-v1"
    assert result.state_machine_name.endswith("-v1")
