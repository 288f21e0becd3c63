"""HandleExecutionError: the state machine's catch (seed 000 handleExecutionError)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.attempts import close_latest_attempt
from application.ports import Clock, ExecutionStore, StepChange, SubProcessController
from application.use_cases.complete_execution import CompleteExecution, CompleteExecutionCommand
from application.use_cases.reconcile_execution import failure_message
from application.use_cases.stop_sub_processes import stop_sub_processes
from domain.execution import PipelineExecution, StepLog, StepOutputs, chain_order
from domain.statuses import ExecutionStatus, StepStatus

# The error row sits beside the summary row CompleteExecution writes (sort key logType).
ERROR_LOG_TYPE = "error"
_RUNNING = frozenset({StepStatus.RUNNING})


class HandleExecutionErrorCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    error: str = "States.ALL"
    cause: str = ""


class HandleExecutionErrorResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    workflow_execution_id: str
    status: ExecutionStatus
    warnings: tuple[str, ...] = ()


class HandleExecutionError:
    """Record a failed run: an error log row, in-flight sub-processes stopped, steps FAILED.

    The run is then completed FAILED through CompleteExecution (stop date, executionLog,
    executionError = the Step Functions error and cause). Steps that never started stay NEW, as
    on a normal failure. Idempotent: a terminal run is returned untouched.
    """

    def __init__(
        self,
        store: ExecutionStore,
        sub_processes: SubProcessController,
        complete_execution: CompleteExecution,
        clock: Clock,
    ) -> None:
        self._store, self._sub_processes = store, sub_processes
        self._complete, self._clock = complete_execution, clock

    def execute(self, command: HandleExecutionErrorCommand) -> HandleExecutionErrorResult:
        execution = self._store.get_execution(command.workflow_execution_id)
        if execution.is_terminal:
            return HandleExecutionErrorResult(
                workflow_execution_id=execution.workflow_execution_id, status=execution.status
            )
        execution_id = execution.workflow_execution_id
        message = failure_message(command.error, command.cause) or command.error
        steps = chain_order(self._store.list_steps(execution_id))
        warnings = stop_sub_processes(self._sub_processes, self._store, steps, self._clock.now())
        failed_steps = _failed_steps(steps)
        self._store.add_step_outputs(
            StepOutputs(logs=tuple(_error_log(step, message, warnings) for step in failed_steps))
        )
        now = self._clock.now()
        for step in steps:
            if step.status is StepStatus.RUNNING:
                change = StepChange(status=StepStatus.FAILED, stop_date=now, error=message)
                closed = self._store.transition_step(
                    execution_id, step.pipeline_execution_id, change, _RUNNING
                )
                if closed is not None:  # its attempt ends with it (seed 003)
                    close_latest_attempt(
                        self._store, step.pipeline_execution_id, StepStatus.FAILED, now, message
                    )
        completed = self._complete.execute(
            CompleteExecutionCommand(
                workflow_execution_id=execution_id, status=ExecutionStatus.FAILED, error=message
            )
        )
        return HandleExecutionErrorResult(
            workflow_execution_id=execution_id, status=completed.status, warnings=warnings
        )


def _failed_steps(steps: list[PipelineExecution]) -> list[PipelineExecution]:
    """The steps the error belongs to: those in flight, else the first that did not succeed."""
    running = [step for step in steps if step.status is StepStatus.RUNNING]
    if running:
        return running
    unfinished = [step for step in steps if step.status is not StepStatus.SUCCEEDED]
    return unfinished[:1] or steps[-1:]


def _error_log(step: PipelineExecution, message: str, warnings: tuple[str, ...]) -> StepLog:
    lines = [f"{step.pipeline_id}: FAILED", f"error: {message}", *warnings]
    return StepLog(
        pipeline_execution_id=step.pipeline_execution_id,
        workflow_execution_id=step.workflow_execution_id,
        log_type=ERROR_LOG_TYPE,
        status=StepStatus.FAILED.value,
        message="\n".join(lines),
    )
