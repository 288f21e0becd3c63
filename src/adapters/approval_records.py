"""Approval-request items, shared by both storage adapters: keys, sparse index keys, ISO dates.

The lists read `requestedAt:approvalId` (colon-joined, seed 000's way) newest first: unique, so a
page ends at one position in both stores, and a token is that position. The pending index is
sparse: its partition attribute is written only while a request is PENDING and removed by its
decision, so the pending list is one Query however many requests were ever decided.
"""

from __future__ import annotations

import re
from typing import Any

from adapters.records import format_date, join_key, parse_date, row_parser
from domain.approvals import ApprovalRequest
from domain.errors import InvalidInputError
from domain.paging import page_token, token_fields

Item = dict[str, Any]

PARTITION = "workflowExecutionId"
APPROVAL_ID = "approvalId"
LIST_SORT = "requestedAt:approvalId"
PENDING = "pendingApprovalsPartition"
ALL = "allApprovalsPartition"
PENDING_PARTITION = "pending"
ALL_PARTITION = "approval"
TASK_TOKEN = "taskToken"
_POSITION = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z:[A-Za-z0-9._-]{1,256}$")
_REFUSED = "startingToken: not a token issued by this list"


def list_position(request: ApprovalRequest) -> str:
    return join_key(format_date(request.requested_at), request.approval_id)


def build_approval_record(request: ApprovalRequest) -> Item:
    item: Item = {
        PARTITION: request.workflow_execution_id,
        APPROVAL_ID: request.approval_id,
        "pipelineExecutionId": request.pipeline_execution_id,
        "attempt": request.attempt,
        "pipelineId": request.pipeline_id,
        "workflowDatabaseId": request.workflow_database_id,
        "workflowId": request.workflow_id,
        "approvers": list(request.approvers),
        "message": request.message,
        "requestedAt": format_date(request.requested_at),
        "expiresAt": format_date(request.expires_at),
        "approvalStatus": request.status.value,
        LIST_SORT: list_position(request),
        ALL: ALL_PARTITION,
    }
    if request.is_pending:
        item[PENDING] = PENDING_PARTITION
    # sparse: absent means "none yet"
    optional = {
        "decidedBy": request.decided_by,
        "decidedAt": None if request.decided_at is None else format_date(request.decided_at),
        "reason": request.reason,
        TASK_TOKEN: request.task_token,
    }
    item.update({name: value for name, value in optional.items() if value})
    return item


@row_parser("WfxApprovalRequestsTable", "workflowExecutionId", "approvalId")
def parse_approval_record(item: Item) -> ApprovalRequest:
    decided_at = item.get("decidedAt")
    return ApprovalRequest(
        approval_id=item[APPROVAL_ID],
        workflow_execution_id=item[PARTITION],
        pipeline_execution_id=item["pipelineExecutionId"],
        attempt=int(item["attempt"]),
        pipeline_id=item["pipelineId"],
        workflow_database_id=item["workflowDatabaseId"],
        workflow_id=item["workflowId"],
        approvers=tuple(item["approvers"]),
        message=item.get("message", ""),
        requested_at=parse_date(item["requestedAt"]),
        expires_at=parse_date(item["expiresAt"]),
        status=item["approvalStatus"],
        decided_by=item.get("decidedBy"),
        decided_at=None if decided_at is None else parse_date(decided_at),
        reason=item.get("reason"),
        task_token=item.get(TASK_TOKEN),
    )


def encode_position(position: str) -> str:
    return page_token([position])


def decode_position(token: str) -> str:
    """The list position a token names; a token that is not one is refused, never queried."""
    try:
        fields: Any = token_fields(token)
    except ValueError as exc:
        raise InvalidInputError(_REFUSED) from exc
    if not (isinstance(fields, list) and len(fields) == 1 and isinstance(fields[0], str)):
        raise InvalidInputError(_REFUSED)
    if not _POSITION.match(fields[0]):
        raise InvalidInputError(_REFUSED)
    return fields[0]
