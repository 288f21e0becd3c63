"""AbortExecution: stop a run that is still going, its registered sub-processes first."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports import (
    Clock,
    ExecutionStore,
    LogStore,
    ObjectStore,
    Orchestrator,
    SubProcessController,
)
from application.use_cases.complete_execution import fit_run_log
from application.use_cases.reconcile_execution import close_open_steps, failure_message
from application.use_cases.stop_sub_processes import stop_sub_processes
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus, StepStatus

ABORT_ERROR = "wfx.Aborted"
DEFAULT_CAUSE = "Aborted on request"


class AbortExecutionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    cause: str = DEFAULT_CAUSE


class AbortResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    execution: WorkflowExecution
    # Sub-processes left running (a type that cannot be stopped, a stop that failed).
    warnings: tuple[str, ...] = ()


class AbortExecution:
    """Stop an open run: sub-processes, then the orchestrator, then the rows (ABORTED).

    A terminal run is returned unchanged and the orchestrator is not called (seed 000).
    """

    def __init__(
        self,
        store: ExecutionStore,
        orchestrator: Orchestrator,
        sub_processes: SubProcessController,
        logs: LogStore,
        objects: ObjectStore,
        clock: Clock,
    ) -> None:
        self._store, self._orchestrator, self._sub_processes = store, orchestrator, sub_processes
        self._logs, self._objects, self._clock = logs, objects, clock

    def execute(self, command: AbortExecutionCommand) -> AbortResult:
        execution = self._store.get_execution(command.workflow_execution_id)
        if execution.is_terminal:
            return AbortResult(execution=execution)
        execution_id = execution.workflow_execution_id
        steps = self._store.list_steps(execution_id)
        warnings = stop_sub_processes(self._sub_processes, self._store, steps, self._clock.now())
        self._orchestrator.stop_execution(execution, ABORT_ERROR, command.cause)
        now = self._clock.now()
        error = failure_message(ABORT_ERROR, command.cause)
        close_open_steps(self._store, execution_id, StepStatus.ABORTED, now, error)
        log, log_object_key = fit_run_log(self._logs, self._objects, execution_id)
        aborted = execution.complete(
            ExecutionStatus.ABORTED, at=now, log=log, error=error, log_object_key=log_object_key
        )
        if not self._store.save_execution(aborted, expected=frozenset({execution.status})):
            # it ended meanwhile (its last step reported): what is stored is the truth
            aborted = self._store.get_execution(execution_id)
        return AbortResult(execution=aborted, warnings=warnings)
