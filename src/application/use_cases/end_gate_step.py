"""EndGateStep: a Step Functions task waiting at an approval gate has ended other than approved."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from application.ports.approvals import Approvals
from application.ports.executions import ExecutionStore, RunWriter
from application.ports.system import Clock, IdGenerator
from application.use_cases.approvals import approval_id_for
from application.use_cases.step_tracking import FinishStep, FinishStepCommand, StepState
from domain.approvals import TIMED_OUT_ERROR, ApprovalNotFoundError, ApprovalRequest, ApprovalStatus
from domain.run_write import RunWrite
from domain.statuses import StepStatus


class EndGateStepCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    pipeline_execution_id: str = Field(min_length=1)
    # TIMED_OUT: the task's TimeoutSeconds passed (or a read closed the gate as overdue);
    # FAILED: the gate's answer was a failure (rejected, cancelled)
    status: Literal[StepStatus.TIMED_OUT, StepStatus.FAILED]
    # what the state machine caught, for a gate whose request was never opened
    error: str | None = None
    attempt: int | None = Field(default=None, ge=1)


class EndGateStep:
    """End an approval step whose task stopped waiting: a request still PENDING is closed
    TIMED_OUT (a conditional write: a decision that lands first wins, and is read back), then the
    step ends with the gate's own error, as on the local runner. The run is ended after, by the
    completion function, with the step's error. Idempotent: a finished step stays as it is."""

    def __init__(
        self,
        approvals: Approvals,
        store: ExecutionStore,
        finish_step: FinishStep,
        clock: Clock,
        ids: IdGenerator,
        writer: RunWriter,
    ) -> None:
        self._approvals, self._store, self._finish = approvals, store, finish_step
        self._clock, self._ids, self._writer = clock, ids, writer

    def execute(self, command: EndGateStepCommand) -> StepState:
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        request = self._request(command)
        error = command.error
        if request is not None:
            if command.status is StepStatus.TIMED_OUT and request.is_pending:
                closed = request.timed_out(self._clock.now())
                request = (
                    closed
                    if self._writer.commit(RunWrite.closing(closed))
                    else self._approvals.get(request.approval_id)
                )
            error = _gate_error(request, command.status) or error
        return self._finish.execute(
            FinishStepCommand(
                workflow_execution_id=execution_id,
                pipeline_execution_id=step_id,
                status=command.status,
                error=error,
            )
        )

    def _request(self, command: EndGateStepCommand) -> ApprovalRequest | None:
        """The request of the attempt that waited: the one named, else the step's latest."""
        execution_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        attempt = command.attempt
        if attempt is None:
            run = self._store.get_run(execution_id, step_id)
            attempts = [a.attempt for a in run.attempts_of(step_id)]
            if not attempts:
                return None
            attempt = max(attempts)
        try:
            return self._approvals.get(approval_id_for(self._ids, execution_id, step_id, attempt))
        except ApprovalNotFoundError:
            return None  # the task ended before its gate opened


def _gate_error(request: ApprovalRequest, status: StepStatus) -> str | None:
    if status is StepStatus.TIMED_OUT and request.status is not ApprovalStatus.TIMED_OUT:
        if request.is_pending:
            return None
        # decided in the moment the wait ended: the task is gone, the decision came too late
        return (
            f"{TIMED_OUT_ERROR}: the step stopped waiting before its {request.status.value} "
            "decision reached it"
        )
    return request.step_error()
