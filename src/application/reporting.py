"""The RunReporter a runner calls, backed by the same use cases the Step Functions callbacks use."""

from __future__ import annotations

from application.use_cases.complete_execution import CompleteExecution, CompleteExecutionCommand
from application.use_cases.retry_step import RetryStep, RetryStepCommand
from application.use_cases.step_tracking import (
    FinishStep,
    FinishStepCommand,
    StartStep,
    StartStepCommand,
)
from domain.statuses import ExecutionStatus, StepStatus


class UseCaseRunReporter:
    """Routes runner progress to StartStep, RetryStep, FinishStep and CompleteExecution."""

    def __init__(
        self,
        start_step: StartStep,
        finish_step: FinishStep,
        complete_execution: CompleteExecution,
        retry_step: RetryStep,
    ) -> None:
        self._start, self._finish, self._complete = start_step, finish_step, complete_execution
        self._retry = retry_step

    def step_started(self, workflow_execution_id: str, pipeline_execution_id: str) -> None:
        self._start.execute(
            StartStepCommand(
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
            )
        )

    def step_retrying(
        self, workflow_execution_id: str, pipeline_execution_id: str, error: str | None = None
    ) -> None:
        self._retry.execute(
            RetryStepCommand(
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
                error=error,
            )
        )

    def step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        status: StepStatus,
        error: str | None = None,
    ) -> None:
        self._finish.execute(
            FinishStepCommand(
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
                status=status,
                error=error,
            )
        )

    def execution_completed(
        self, workflow_execution_id: str, status: ExecutionStatus, error: str | None = None
    ) -> None:
        self._complete.execute(
            CompleteExecutionCommand(
                workflow_execution_id=workflow_execution_id, status=status, error=error
            )
        )
