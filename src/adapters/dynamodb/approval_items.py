"""An approval request's part of a run's TransactWriteItems: a Put that holds only while the id
is free (opened) or the stored request PENDING (closed), or a ConditionCheck of the latter."""

from __future__ import annotations

from typing import Any

from adapters.approval_records import APPROVAL_ID, PARTITION, build_approval_record
from adapters.dynamodb.codec import to_wire
from domain.approvals import ApprovalStatus
from domain.run_write import ApprovalWrite, ApprovalWriteKind

_PENDING = {":pending": {"S": ApprovalStatus.PENDING.value}}


def approval_action(table_name: str, write: ApprovalWrite) -> tuple[str, dict[str, Any]]:
    """The transaction item's kind ("Put" or "ConditionCheck") and its request."""
    request = write.request
    if write.kind is ApprovalWriteKind.OPEN:
        return "Put", {
            "TableName": table_name,
            "Item": to_wire(build_approval_record(request)),
            "ConditionExpression": "attribute_not_exists(#sk)",
            "ExpressionAttributeNames": {"#sk": APPROVAL_ID},
        }
    names = {"#sk": APPROVAL_ID, "#status": "approvalStatus"}
    condition = "attribute_exists(#sk) AND #status = :pending"
    if write.kind is ApprovalWriteKind.CLOSE:
        return "Put", {
            "TableName": table_name,
            "Item": to_wire(build_approval_record(request)),
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": _PENDING,
        }
    key = {PARTITION: request.workflow_execution_id, APPROVAL_ID: request.approval_id}
    return "ConditionCheck", {
        "TableName": table_name,
        "Key": to_wire(key),
        "ConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": _PENDING,
    }
