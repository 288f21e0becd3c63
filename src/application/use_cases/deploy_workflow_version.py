"""DeployWorkflowVersion: run a published workflow version on Step Functions (its state machine)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from application.ports.orchestration import StateMachineDeployer, StateMachineTakenError
from application.ports.workflows import WorkflowCatalog
from application.state_machines import (
    HandlerArns,
    build_state_machine,
    state_machine_name,
    validate_state_machine,
)
from domain.errors import InvalidInputError, WorkflowNotFoundError
from domain.names import DEFAULT_STATE_MACHINE_PREFIX
from domain.workflow import WorkflowVersion


@dataclass(frozen=True)
class DeploymentConfiguration:
    """Where a deployed state machine runs: its role, its log group, the wfx Lambda functions,
    and what its name starts with (the stack's prefix, which the stack's roles are scoped to)."""

    role_arn: str
    log_group_arn: str
    handlers: HandlerArns
    name_prefix: str = DEFAULT_STATE_MACHINE_PREFIX


class DeployWorkflowVersionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    database_id: str
    workflow_id: str
    version: int | None = Field(default=None, ge=1)  # None: the latest version


class DeployResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    version: WorkflowVersion
    state_machine_name: str
    state_machine_arn: str
    # the version's machine was named before the deployment's prefix (a version keeps its
    # machine): roles scoped to the prefix reach it only when told its earlier name
    outside_prefix: bool = False


class DeployWorkflowVersion:
    """Create or update the version's state machine and record its ARN on the version.

    A version with a local-only step (python, command) is refused naming the step: Step Functions
    has no way to run it.
    """

    def __init__(
        self,
        catalog: WorkflowCatalog,
        deployer: StateMachineDeployer,
        configuration: DeploymentConfiguration,
    ) -> None:
        self._catalog, self._deployer, self._configuration = catalog, deployer, configuration

    def execute(self, command: DeployWorkflowVersionCommand) -> DeployResult:
        version = self._version(command)
        local = [step for step in version.steps if step.runs_locally]
        if local:
            named = ", ".join(f"{s.pipeline_id} ({s.execution_type.value})" for s in local)
            steps_run = "step {} runs" if len(local) == 1 else "steps {} run"
            raise InvalidInputError(
                f"{version.database_id}/{version.workflow_id} version {version.version} cannot "
                f"run on Step Functions: {steps_run.format(named)} only on the local runner "
                "(Step Functions runs lambda and batch steps)"
            )
        definition = build_state_machine(version, self._configuration.handlers)
        problems = validate_state_machine(definition)
        if problems:  # a generator bug: never send AWS a definition we know to be broken
            raise RuntimeError(f"generated state machine is invalid: {'; '.join(problems)}")
        name, arn = self._deploy(version, definition)
        deployed = self._catalog.record_deployment(
            version.database_id, version.workflow_id, version.version, arn
        )
        return DeployResult(
            version=deployed,
            state_machine_name=name,
            state_machine_arn=arn,
            outside_prefix=not name.startswith(self._configuration.name_prefix),
        )

    def _deploy(self, version: WorkflowVersion, definition: dict[str, Any]) -> tuple[str, str]:
        """The machine's name and ARN: the one the version records (a version's machine never
        changes, even one deployed before its stack had a prefix), else its plain name, else,
        when another workflow's machine holds that, its hashed one."""
        role, logs = self._configuration.role_arn, self._configuration.log_group_arn
        if version.state_machine_arn is not None:
            name = version.state_machine_arn.rpartition(":")[2]
            return name, self._deployer.deploy(name, definition, role, logs)
        prefix = self._configuration.name_prefix
        name = state_machine_name(version, prefix)
        try:
            return name, self._deployer.deploy(name, definition, role, logs)
        except StateMachineTakenError:
            hashed = state_machine_name(version, prefix, hashed=True)
            if hashed == name:
                raise
            return hashed, self._deployer.deploy(hashed, definition, role, logs)

    def _version(self, command: DeployWorkflowVersionCommand) -> WorkflowVersion:
        if command.version is not None:
            return self._catalog.get_version(
                command.database_id, command.workflow_id, command.version
            )
        latest = self._catalog.latest_version(command.database_id, command.workflow_id)
        if latest is None:
            raise WorkflowNotFoundError(
                f"workflow {command.database_id}/{command.workflow_id} is not published"
            )
        return latest
