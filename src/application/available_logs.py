"""Which logs each step of a run offers (seed 000 availableLogs), and which reader reads each.

The invocation log of a step is where the thing that ran it logs:
- a run on the local runner: the step's own log file (`<logs root>/<executionId>/<id>.log`);
- a run on Step Functions: by the step's type in the workflow version: a `lambda` step logs to
  `/aws/lambda/{functionName}`, a `batch` step to `/aws/batch/job`. Neither stream names the
  execution, so these are always read filtered to it.
A registered `stepFunctionsExecution` sub-execution adds its state machine's logging
destinations, a registered `deadlineCloudJob` its queue's session logs. A group known by name
only is listed by the ARN derived from the run's log group ARN (`reference_log_group_arn`), so
its logId is the one VAMS gives it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from application.ports.sub_executions import SubExecutionReader
from application.ports.workflows import WorkflowCatalog
from application.state_machine_memo import StateMachineMemo
from domain.available_logs import (
    BATCH_LOG_GROUP,
    LAMBDA_LOG_GROUP_PREFIX,
    AvailableLog,
    deadline_job_log,
    lambda_function_name,
    local_step_log,
    state_machine_arn_of,
    step_available_logs,
)
from domain.errors import DomainError
from domain.execution import ExecutionDetails, PipelineExecution, WorkflowExecution
from domain.logs import (
    DEADLINE_CLOUD_JOB,
    STEP_FUNCTIONS_EXECUTION,
    RegisteredLog,
    RegisteredSubExecution,
)
from domain.redaction import redact
from domain.stages import SubExecutionReadError
from domain.workflow import ExecutionType, StepDefinition

LOCAL_READER = "local"
CLOUDWATCH_READER = "cloudwatch"


def reader_for(entry: AvailableLog, orchestrator: str) -> str:
    """A CloudWatch Logs ARN, or a group name rooted at `/` (`/aws/lambda/...`), is read on
    CloudWatch whatever ran the step: the local runner's log files are paths relative to its logs
    root, never absolute. Any other group is read where the run ran: the local runner's log
    files, or CloudWatch for a Step Functions run."""
    if entry.log_group_arn.startswith("arn:") or entry.group.startswith("/"):
        return CLOUDWATCH_READER
    return LOCAL_READER if orchestrator == "local" else CLOUDWATCH_READER


@dataclass(frozen=True)
class FoundLogs:
    """Each step's available logs by pipelineExecutionId, and what could not be looked up."""

    by_step: dict[str, tuple[AvailableLog, ...]]
    warnings: tuple[str, ...] = ()


class AvailableLogFinder:
    """Builds each step's availableLogs; a lookup that fails is a warning, never a failure."""

    def __init__(
        self,
        catalog: WorkflowCatalog,
        state_machines: SubExecutionReader,
        reference_log_group_arn: str = "",
    ) -> None:
        """`reference_log_group_arn`: the runs' log group, whose partition, region and account
        a group registered by name is in."""
        self._catalog, self._state_machines = catalog, state_machines
        self._reference = reference_log_group_arn

    def find(
        self,
        execution: WorkflowExecution,
        steps: Sequence[PipelineExecution],
        machines: StateMachineMemo | None = None,
    ) -> FoundLogs:
        """`machines`: the request's memo, when another part of the request describes too."""
        warnings: list[str] = []
        definitions = self._definitions(execution, steps, warnings)
        described = machines or StateMachineMemo(self._state_machines)
        by_step = {
            step.pipeline_execution_id: step_available_logs(
                step.pipeline_execution_id,
                step.registered_logs,
                self._invocation(execution, step, definitions.get(step.step_index)),
                self._destinations(step.registered_sub_executions, described, warnings),
                _deadline_jobs(step.registered_sub_executions),
                # a local run's logs are files, whatever the deployment's log group; a run's
                # own log group (VAMS writes it on every run) places a name as VAMS places it
                ""
                if execution.orchestrator == "local"
                else execution.execution_log_group_arn or self._reference,
            )
            for step in steps
        }
        return FoundLogs(by_step, tuple(redact(warning) for warning in warnings))

    def attach(
        self, details: ExecutionDetails, machines: StateMachineMemo | None = None
    ) -> ExecutionDetails:
        """The details with each step's availableLogs and the lookup warnings filled in."""
        found = self.find(details.execution, [entry.step for entry in details.steps], machines)
        steps = tuple(
            entry.model_copy(
                update={"available_logs": found.by_step[entry.step.pipeline_execution_id]}
            )
            for entry in details.steps
        )
        return details.model_copy(update={"steps": steps, "log_warnings": found.warnings})

    def _definitions(
        self,
        execution: WorkflowExecution,
        steps: Sequence[PipelineExecution],
        warnings: list[str],
    ) -> dict[int, StepDefinition]:
        if execution.orchestrator == "local" or not steps:
            return {}  # a local step's invocation log is its log file: no definition needed
        try:
            version = self._catalog.get_version(
                execution.workflow_database_id, execution.workflow_id, execution.workflow_version
            )
        except DomainError as error:
            warnings.append(f"invocation logs: {error}")
            return {}
        return dict(enumerate(version.steps))

    @staticmethod
    def _invocation(
        execution: WorkflowExecution, step: PipelineExecution, definition: StepDefinition | None
    ) -> RegisteredLog | None:
        if execution.orchestrator == "local":
            return local_step_log(execution.workflow_execution_id, step.pipeline_execution_id)
        if definition is None:
            # no wfx version to read (VAMS launched the run): the step row's own type and
            # resource, as VAMS reads them
            return _row_invocation(step)
        if definition.execution_type is ExecutionType.LAMBDA and definition.function_name:
            name = lambda_function_name(definition.function_name)
            return RegisteredLog(
                log_group_name=LAMBDA_LOG_GROUP_PREFIX + name, source_type="lambda"
            )
        if definition.execution_type is ExecutionType.BATCH:
            return RegisteredLog(log_group_name=BATCH_LOG_GROUP, source_type="batch")
        return None

    def _destinations(
        self,
        sub_executions: Sequence[RegisteredSubExecution],
        described: StateMachineMemo,
        warnings: list[str],
    ) -> list[RegisteredLog]:
        destinations: list[RegisteredLog] = []
        for sub in sub_executions:
            if sub.resource_type != STEP_FUNCTIONS_EXECUTION:
                continue
            arn = sub.state_machine_arn or state_machine_arn_of(sub.execution_arn)
            if not arn:
                warnings.append(f"sub-execution {sub.resource_id}: not an execution ARN")
                continue
            try:
                group_arns = described.describe(arn).log_group_arns
            except SubExecutionReadError as error:  # best effort: a lookup never fails a read
                warnings.append(str(error))  # it names the call and the state machine
                continue
            for group_arn in group_arns:
                destinations.append(
                    RegisteredLog(
                        log_group_arn=group_arn,
                        source_type="stateMachine",
                        stage_name=sub.stage_name,
                        label=sub.label,
                    )
                )
        return destinations


def _row_invocation(step: PipelineExecution) -> RegisteredLog | None:
    if step.execution_type is ExecutionType.LAMBDA and step.pipeline_resource_arn:
        name = lambda_function_name(step.pipeline_resource_arn)
        return RegisteredLog(log_group_name=LAMBDA_LOG_GROUP_PREFIX + name, source_type="lambda")
    if step.execution_type is ExecutionType.BATCH:
        return RegisteredLog(log_group_name=BATCH_LOG_GROUP, source_type="batch")
    return None


def _deadline_jobs(sub_executions: Sequence[RegisteredSubExecution]) -> list[RegisteredLog]:
    """The session logs of each registered Deadline Cloud job that names its farm and queue."""
    return [
        deadline_job_log(sub.farm_id, sub.queue_id)
        for sub in sub_executions
        if sub.resource_type == DEADLINE_CLOUD_JOB and sub.farm_id and sub.queue_id and sub.job_id
    ]
