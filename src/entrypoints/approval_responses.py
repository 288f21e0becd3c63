"""Approval requests as a caller sees them, one contract for `wfx approvals ... --json` and the
HTTP routes. The task token a Step Functions gate waits on is a credential: never shown."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field

from domain.approvals import ApprovalRequest
from domain.paging import Page
from domain.redaction import redact, redact_optional
from entrypoints.responses import Response, UtcDate


class ApprovalResponse(Response):
    approval_id: str
    workflow_execution_id: str
    pipeline_execution_id: str
    attempt: int
    pipeline_id: str
    workflow_database_id: str
    workflow_id: str
    approvers: tuple[str, ...]
    message: str
    status: str
    requested_at: UtcDate
    expires_at: UtcDate
    decided_by: str | None = None
    decided_at: UtcDate | None = None
    reason: str | None = None

    @classmethod
    def of(cls, request: ApprovalRequest) -> Self:
        return cls(
            approval_id=request.approval_id,
            workflow_execution_id=request.workflow_execution_id,
            pipeline_execution_id=request.pipeline_execution_id,
            attempt=request.attempt,
            pipeline_id=request.pipeline_id,
            workflow_database_id=request.workflow_database_id,
            workflow_id=request.workflow_id,
            approvers=request.approvers,
            message=redact(request.message),
            status=request.status.value,
            requested_at=request.requested_at,
            expires_at=request.expires_at,
            decided_by=request.decided_by,
            decided_at=request.decided_at,
            reason=redact_optional(request.reason),
        )


class ApprovalPageResponse(Response):
    """A page of requests, newest first; `NextToken` continues it."""

    approvals: tuple[ApprovalResponse, ...] = Field(alias="Items")
    next_token: str | None = Field(default=None, alias="NextToken")

    @classmethod
    def of(cls, page: Page[ApprovalRequest]) -> Self:
        return cls(
            approvals=tuple(map(ApprovalResponse.of, page.items)), next_token=page.next_token
        )

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True) | {
            "NextToken": self.next_token
        }
