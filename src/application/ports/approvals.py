"""The port of approval requests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from domain.approvals import ApprovalRequest
    from domain.execution import UnreadableRow
    from domain.paging import Page


class Approvals(Protocol):
    """Approval requests (seed 003 APPROVAL_REQUEST), read. A request opened or closed is a
    run's transition: a `RunWriter` writes it with its event (ApprovalRequested,
    ApprovalDecided) in one atomic write, so the log never misses a gate."""

    def create_tables(self) -> None: ...

    def renew_task_token(self, request: ApprovalRequest) -> bool:
        """Store `request.task_token` on the stored request, only while it is PENDING, with no
        event (how the gate is answered is nobody's business but the orchestrator's): a Step
        Functions task tried again waits on a new token. False, nothing written, when it is not
        pending."""
        ...

    def get(self, approval_id: str) -> ApprovalRequest:
        """ApprovalNotFoundError when there is none."""
        ...

    def list_for_execution(self, workflow_execution_id: str) -> list[ApprovalRequest]:
        """A run's requests, oldest first (its partition: one query)."""
        ...

    def list_readable_for_execution(
        self, workflow_execution_id: str
    ) -> tuple[list[ApprovalRequest], tuple[UnreadableRow, ...]]:
        """list_for_execution for a read that shows what it can: a request row that cannot be
        read is left out and named (list_for_execution raises its UnreadableRowError)."""
        ...

    def list_requests(
        self, pending_only: bool, limit: int, starting_token: str | None = None
    ) -> Page[ApprovalRequest]:
        """Requests across all runs, newest first: the pending ones (a sparse index) or all of
        them; one index query per page, never a scan."""
        ...
