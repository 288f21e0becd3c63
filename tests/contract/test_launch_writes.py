"""A launch's writes on every store, each one RunWrite: the run alone for a runner elsewhere,
or leased with its first step started; then the orchestrator's reference, or the run FAILED
when it would not start - with the steps the launch started and their attempts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest

from adapters.system import SystemClock, UuidGenerator
from application.ports.orchestration import Described, LaunchClaim
from application.use_cases.launch_execution import LaunchExecution, LaunchExecutionCommand
from domain.assets import AssetFile
from domain.execution import PipelineExecution, WorkflowExecution
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import InputFileArity, WorkflowVersion
from tests.contract.builders import a_version

ARN = "arn:aws:states:us-east-1:111122223333:execution:wfx:run-1"


def one_step_on_no_file() -> WorkflowVersion:
    version = a_version(1)
    (step,) = version.steps
    no_file = step.model_copy(update={"input_file_arity": InputFileArity.NONE})
    return version.model_copy(update={"steps": (no_file,)})


class OneVersion:
    """The workflow catalog: version 1 of db1/wf1, published."""

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion:
        return one_step_on_no_file()

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion:
        return one_step_on_no_file()


class NoAssets:
    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        return []


class Orchestrator:
    """Starts the run as told: with a reference, or failing; claims it at launch if `claim`."""

    name = "local"
    synchronous = False

    def __init__(self, *, claim: bool, reference: str | None = None, fails: bool = False) -> None:
        self._claim, self._reference, self._fails = claim, reference, fails

    def start_problem(self, version: WorkflowVersion) -> str | None:
        return None

    def launch_claim(self) -> LaunchClaim | None:
        return LaunchClaim("runner-1", timedelta(seconds=30)) if self._claim else None

    def start_execution(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        steps: Sequence[PipelineExecution],
    ) -> str | None:
        if self._fails:
            raise RuntimeError("no runner slot")
        return self._reference

    def ended_run(self, workflow_execution_id: str) -> None:
        return None

    def describe_execution(self, execution: WorkflowExecution) -> None:
        return None

    def describe_each(self, executions: Sequence[WorkflowExecution]) -> list[Described]:
        return [Described.of(self.describe_execution, execution) for execution in executions]

    def lost_runner(self, execution: WorkflowExecution) -> None:
        return None


def launch(store: Any, orchestrator: Orchestrator) -> LaunchExecution:
    # the stubs have only what a launch asks of them
    workflows: Any = OneVersion()
    assets: Any = NoAssets()
    started: Any = orchestrator
    return LaunchExecution(store, workflows, assets, started, SystemClock(), UuidGenerator())


def command() -> LaunchExecutionCommand:
    return LaunchExecutionCommand(
        workflow_database_id="db1", workflow_id="wf1", user_id="alice", client_token="token-1"
    )


def test_a_run_for_a_runner_elsewhere_is_written_alone_with_its_reference(
    execution_store: Any,
) -> None:
    result = launch(execution_store, Orchestrator(claim=False, reference=ARN)).execute(command())
    run_id = result.execution.workflow_execution_id
    stored = execution_store.get_execution(run_id)
    assert stored.execution_arn == ARN and result.execution.execution_arn == ARN
    assert stored.runner_lease is None and stored.status is ExecutionStatus.RUNNING
    assert {s.status for s in execution_store.list_steps(run_id)} == {StepStatus.NEW}


@pytest.mark.parametrize("claim", [False, True], ids=["unclaimed", "claimed"])
def test_a_run_its_orchestrator_would_not_start_ends_failed_with_its_started_steps(
    execution_store: Any, claim: bool
) -> None:
    failing = launch(execution_store, Orchestrator(claim=claim, fails=True))
    with pytest.raises(RuntimeError, match="no runner slot"):
        failing.execute(command())
    run = execution_store.get_run(UuidGenerator().derived_id("launch:token-1"))
    assert run.execution.status is ExecutionStatus.FAILED
    assert run.execution.execution_error == "local could not start the execution: no runner slot"
    # the claimed launch started the first step: it ends with the run, its attempt too
    expected = StepStatus.FAILED if claim else StepStatus.NEW
    assert [step.status for step in run.steps] == [expected]
    assert [attempt.status for attempt in run.attempts] == ([StepStatus.FAILED] if claim else [])
    if claim:
        (step,) = run.steps
        assert step.stop_date is not None and step.error == run.execution.execution_error
