"""OpenTaskGate: a Step Functions task reaches an approval step and waits on its callback token."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports.orchestration import TaskCallbacks
from application.use_cases.approvals import PassApprovalGate, PassApprovalGateCommand
from domain.approvals import ApprovalRequest

# SendTaskSuccess / SendTaskFailure take a token of at most 2048 characters.
MAX_TASK_TOKEN_CHARS = 2048


class OpenTaskGateCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    pipeline_execution_id: str = Field(min_length=1)
    # a credential: never in a repr, so never in an error or a log line that prints the command
    task_token: str = Field(min_length=1, max_length=MAX_TASK_TOKEN_CHARS, repr=False)
    attempt: int | None = Field(default=None, ge=1)


class OpenTaskGate:
    """Open the step attempt's approval request holding the waiting task's token (once: a
    retried task finds the same request and gives it its new token). A request found closed
    already is answered at once: no decision will come to answer this token later."""

    def __init__(self, gate: PassApprovalGate, callbacks: TaskCallbacks) -> None:
        self._gate, self._callbacks = gate, callbacks

    def execute(self, command: OpenTaskGateCommand) -> ApprovalRequest:
        request = self._gate.execute(
            PassApprovalGateCommand(
                workflow_execution_id=command.workflow_execution_id,
                pipeline_execution_id=command.pipeline_execution_id,
                attempt=command.attempt,
                owner=None,
                task_token=command.task_token,
            )
        ).request
        if not request.is_pending:
            self._callbacks.answer(request.with_task_token(command.task_token))
        return request
