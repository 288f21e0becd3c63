"""Approval gates (seed 003 APPROVAL_REQUEST): a step that waits for a person's decision.

A gate names its approvers (user ids, or `role::NAME` for anyone holding a role), a message and
a timeout. Reaching it creates one ApprovalRequest per attempt of the step; the request is
decided once - approved, rejected (with who, when and why), timed out, or cancelled with its
run - and never changes again. Only a listed approver decides: the admin role does not bypass a
gate, since a gate exists to name who answers for the step.
"""

from collections.abc import Iterable
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from domain.errors import ConflictError, NotAuthorizedError, NotFoundError

ROLE_APPROVER_PREFIX = "role::"
DEFAULT_TIMEOUT_SECONDS = 24 * 3600
MAX_TIMEOUT_SECONDS = 365 * 24 * 3600  # Step Functions' own limit on a task's wait
MAX_APPROVERS = 50
MAX_MESSAGE_CHARS = 2000
MAX_REASON_CHARS = 2000
# The lease owner of a run parked at a gate, and of one handed to whichever runner resumes it.
PARKED_OWNER_PREFIX = "parked:"
HANDOVER_OWNER_PREFIX = "handover:"

Approver = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=256, pattern=r"^(role::)?[^\s:][^\s]*$"
    ),
]
Reason = Annotated[str, StringConstraints(strip_whitespace=True, max_length=MAX_REASON_CHARS)]


class ApprovalStatus(StrEnum):
    PENDING = "PENDING"
    APPROVED = "APPROVED"
    REJECTED = "REJECTED"
    TIMED_OUT = "TIMED_OUT"
    CANCELLED = "CANCELLED"


class Decision(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


_DECIDED = {Decision.APPROVE: ApprovalStatus.APPROVED, Decision.REJECT: ApprovalStatus.REJECTED}
REJECTED_ERROR = "wfx.ApprovalRejected"
TIMED_OUT_ERROR = "wfx.ApprovalTimedOut"
CANCELLED_ERROR = "wfx.ApprovalCancelled"


class ApprovalNotFoundError(NotFoundError):
    def __init__(self, approval_id: str) -> None:
        super().__init__(f"approval {approval_id} not found")
        self.approval_id = approval_id


class ApprovalClosedError(ConflictError):
    """The request was decided (or timed out, or cancelled) already: it is never decided twice."""


class NotAnApproverError(NotAuthorizedError):
    """The caller is not among the gate's approvers."""


class ApprovalGate(BaseModel):
    """What an approval step of a workflow version asks for."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    approvers: tuple[Approver, ...] = Field(min_length=1, max_length=MAX_APPROVERS)
    message: str = Field(default="", max_length=MAX_MESSAGE_CHARS)
    timeout_seconds: int = Field(default=DEFAULT_TIMEOUT_SECONDS, ge=1, le=MAX_TIMEOUT_SECONDS)


def is_approver(approvers: Iterable[str], user_id: str, roles: Iterable[str]) -> bool:
    """Whether a user with these roles is one of `approvers` (by id, or by a `role::` entry)."""
    held = {f"{ROLE_APPROVER_PREFIX}{role}" for role in roles}
    return any(entry == user_id or entry in held for entry in approvers)


class ApprovalRequest(BaseModel):
    """One gate reached by one attempt of a step, and its decision once there is one."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    approval_id: str = Field(min_length=1)
    workflow_execution_id: str = Field(min_length=1)
    pipeline_execution_id: str = Field(min_length=1)
    attempt: int = Field(ge=1)
    pipeline_id: str
    workflow_database_id: str
    workflow_id: str
    approvers: tuple[str, ...] = Field(min_length=1)
    message: str = ""
    requested_at: AwareDatetime
    expires_at: AwareDatetime
    status: ApprovalStatus = ApprovalStatus.PENDING
    decided_by: str | None = None
    decided_at: AwareDatetime | None = None
    reason: str | None = None
    # Step Functions' callback token for the waiting task; a credential: kept in the store, never
    # shown (responses leave it out, and so does the model's repr, which errors and logs print).
    task_token: str | None = Field(default=None, repr=False)

    @classmethod
    def open(
        cls,
        approval_id: str,
        gate: ApprovalGate,
        *,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        pipeline_id: str,
        workflow_database_id: str,
        workflow_id: str,
        at: datetime,
        task_token: str | None = None,
    ) -> "ApprovalRequest":
        return cls(
            approval_id=approval_id,
            workflow_execution_id=workflow_execution_id,
            pipeline_execution_id=pipeline_execution_id,
            attempt=attempt,
            pipeline_id=pipeline_id,
            workflow_database_id=workflow_database_id,
            workflow_id=workflow_id,
            approvers=gate.approvers,
            message=gate.message,
            requested_at=at,
            expires_at=at + timedelta(seconds=gate.timeout_seconds),
            task_token=task_token,
        )

    @property
    def is_pending(self) -> bool:
        return self.status is ApprovalStatus.PENDING

    @property
    def workflow_key(self) -> str:
        return f"{self.workflow_database_id}:{self.workflow_id}"

    def expired(self, now: datetime) -> bool:
        return self.is_pending and now >= self.expires_at

    def allows(self, user_id: str, roles: Iterable[str]) -> bool:
        return is_approver(self.approvers, user_id, roles)

    def decide(
        self, decision: Decision, user_id: str, roles: Iterable[str], reason: str, at: datetime
    ) -> "ApprovalRequest":
        """The request as decided by `user_id`; refused for a non-approver and once closed.
        The caller times out an expired request first (`timed_out`)."""
        if not self.allows(user_id, roles):
            raise NotAnApproverError(
                f"{user_id} may not decide approval {self.approval_id}: its approvers are "
                f"{', '.join(self.approvers)}"
            )
        self.refuse_unless_pending()
        return self._closed(_DECIDED[decision], at, decided_by=user_id, reason=reason)

    def timed_out(self, at: datetime) -> "ApprovalRequest":
        self.refuse_unless_pending()
        return self._closed(ApprovalStatus.TIMED_OUT, at, reason="no decision before the timeout")

    def with_task_token(self, token: str) -> "ApprovalRequest":
        """The request as the task holding `token` waits on it (a task tried again gets a new
        token; only the newest is answered)."""
        return self.model_validate(self.__dict__ | {"task_token": token})

    def cancelled(self, at: datetime, why: str) -> "ApprovalRequest":
        self.refuse_unless_pending()
        return self._closed(ApprovalStatus.CANCELLED, at, reason=why)

    def step_error(self) -> str | None:
        """What the step's error says once the gate has closed other than approved."""
        who = f" by {self.decided_by}" if self.decided_by else ""
        why = f": {self.reason}" if self.reason else ""
        if self.status is ApprovalStatus.REJECTED:
            return f"{REJECTED_ERROR}: rejected{who}{why}"
        if self.status is ApprovalStatus.TIMED_OUT:
            return f"{TIMED_OUT_ERROR}: no decision by {_moment(self.expires_at)}"
        if self.status is ApprovalStatus.CANCELLED:
            return f"{CANCELLED_ERROR}{why}"
        return None

    def refuse_unless_pending(self) -> None:
        """ApprovalClosedError, saying how and when it closed, unless it is still PENDING."""
        if not self.is_pending:
            who = f" by {self.decided_by}" if self.decided_by else ""
            when = f" at {_moment(self.decided_at)}" if self.decided_at else ""
            raise ApprovalClosedError(
                f"approval {self.approval_id} is {self.status.value}{who}{when}: it is decided once"
            )

    def _closed(
        self,
        status: ApprovalStatus,
        at: datetime,
        decided_by: str | None = None,
        reason: str | None = None,
    ) -> "ApprovalRequest":
        changes = {"status": status, "decided_at": at, "decided_by": decided_by, "reason": reason}
        return self.model_validate(self.__dict__ | changes)


def parked_owner(approval_id: str) -> str:
    return f"{PARKED_OWNER_PREFIX}{approval_id}"


def handover_owner(approval_id: str) -> str:
    return f"{HANDOVER_OWNER_PREFIX}{approval_id}"


def parked_approval(lease_owner: str | None) -> str | None:
    """The approval a run is parked at, from its lease's owner; None when it is not parked."""
    if lease_owner and lease_owner.startswith(PARKED_OWNER_PREFIX):
        return lease_owner[len(PARKED_OWNER_PREFIX) :]
    return None


def _moment(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
