"""HandleExecutionError: the state machine's catch (seed 000 handleExecutionError)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import RunLifecycleStore
from application.ports.sub_executions import SubProcessController
from application.ports.system import Clock
from application.sub_process_stops import stop_sub_processes
from application.use_cases.complete_execution import CompleteExecution
from domain.execution import PipelineExecution, StepLog, StepOutputs, chain_order
from domain.run import failure_message
from domain.statuses import ExecutionStatus, StepStatus

# The error row sits beside the summary row CompleteExecution writes (sort key logType).
ERROR_LOG_TYPE = "error"


class HandleExecutionErrorCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    # None when the catch carried no error: the run then keeps no executionError (seed 000)
    error: str | None = None
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
        store: RunLifecycleStore,
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
        message = failure_message(command.error, command.cause)
        steps = chain_order(self._store.list_steps(execution_id))
        warnings = stop_sub_processes(self._sub_processes, self._store, steps, self._clock.now())
        self._store.add_step_outputs(
            StepOutputs(logs=tuple(_error_log(s, message, warnings) for s in _failed_steps(steps)))
        )
        # In-flight steps FAILED, then the run (ABORTED instead if an abort was requested: a
        # task fails when the abort stops its child).
        ended = self._complete.end(
            execution_id,
            ExecutionStatus.FAILED,
            lambda run, at, log, key: run.fail(at, message, log, key, command.cause or None),
        )
        return HandleExecutionErrorResult(
            workflow_execution_id=execution_id, status=ended.status, warnings=warnings
        )


def _failed_steps(steps: list[PipelineExecution]) -> list[PipelineExecution]:
    """The steps the error belongs to: those in flight, else the first that did not succeed."""
    running = [step for step in steps if step.status is StepStatus.RUNNING]
    if running:
        return running
    unfinished = [step for step in steps if step.status is not StepStatus.SUCCEEDED]
    return unfinished[:1] or steps[-1:]


def _error_log(step: PipelineExecution, message: str | None, warnings: tuple[str, ...]) -> StepLog:
    lines = [f"{step.pipeline_id}: FAILED", f"error: {message or 'none given'}", *warnings]
    return StepLog(
        pipeline_execution_id=step.pipeline_execution_id,
        workflow_execution_id=step.workflow_execution_id,
        log_type=ERROR_LOG_TYPE,
        status=StepStatus.FAILED.value,
        message="\n".join(lines),
    )
