"""`Approvals` on DynamoDB: reads on the approval-requests table and its indexes, and a task
token renewed. A request opened or closed is a run's transition, written with its event by the
run writer (`DynamoDbExecutionStore.commit`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from adapters.approval_records import (
    ALL,
    ALL_PARTITION,
    APPROVAL_ID,
    LIST_SORT,
    PARTITION,
    PENDING,
    PENDING_PARTITION,
    TASK_TOKEN,
    decode_position,
    encode_position,
    parse_approval_record,
)
from adapters.dynamodb.codec import to_wire
from adapters.dynamodb.requests import get_item, partition_query, query_partition, query_up_to
from adapters.dynamodb.schema import create_tables
from adapters.readable_reads import ApprovalReads
from adapters.records import listed_rows, readable_rows
from adapters.tables import (
    APPROVALS_BY_DATE_INDEX,
    APPROVALS_BY_ID_INDEX,
    PENDING_APPROVALS_INDEX,
    ResourceKeys,
    TableNames,
)
from domain.approvals import ApprovalNotFoundError, ApprovalRequest, ApprovalStatus
from domain.execution import UnreadableRow
from domain.paging import Page

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient


class DynamoDbApprovals(ApprovalReads):
    """Approval requests in wfx's approval-requests table."""

    def __init__(self, client: DynamoDBClient, tables: TableNames) -> None:
        self._client, self._tables = client, tables
        self._table_name = tables.get_table_name(ResourceKeys.APPROVAL_REQUESTS)

    def create_tables(self) -> None:
        create_tables(self._client, self._tables)

    def _key(self, request: ApprovalRequest) -> dict[str, str]:
        return {PARTITION: request.workflow_execution_id, APPROVAL_ID: request.approval_id}

    def renew_task_token(self, request: ApprovalRequest) -> bool:
        if not request.is_pending or not request.task_token:
            return False
        try:
            self._client.update_item(
                TableName=self._table_name,
                Key=to_wire(self._key(request)),
                UpdateExpression="SET #token = :token",
                ConditionExpression="#status = :pending",
                ExpressionAttributeNames={"#token": TASK_TOKEN, "#status": "approvalStatus"},
                ExpressionAttributeValues={
                    ":token": {"S": request.task_token},
                    ":pending": {"S": ApprovalStatus.PENDING.value},
                },
            )
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def get(self, approval_id: str) -> ApprovalRequest:
        if not approval_id:
            raise ApprovalNotFoundError(approval_id)
        # the index gives the run (its key); the item itself is then read consistently
        found = query_partition(
            self._client, self._table_name, APPROVAL_ID, approval_id, APPROVALS_BY_ID_INDEX
        )
        for candidate in found:
            key = {PARTITION: candidate[PARTITION], APPROVAL_ID: approval_id}
            item = get_item(self._client, self._table_name, key)
            if item is not None:
                return parse_approval_record(item)
        raise ApprovalNotFoundError(approval_id)

    def _read_approvals(
        self, workflow_execution_id: str, left_out: list[UnreadableRow] | None
    ) -> list[ApprovalRequest]:
        if not workflow_execution_id:
            return []
        items = query_partition(self._client, self._table_name, PARTITION, workflow_execution_id)
        # a row another writer left without its sort attribute is named by the parser
        items.sort(key=lambda item: str(item.get(LIST_SORT, "")))
        return readable_rows(parse_approval_record, items, left_out)

    def list_requests(
        self, pending_only: bool, limit: int, starting_token: str | None = None
    ) -> Page[ApprovalRequest]:
        index, attribute, partition = (
            (PENDING_APPROVALS_INDEX, PENDING, PENDING_PARTITION)
            if pending_only
            else (APPROVALS_BY_DATE_INDEX, ALL, ALL_PARTITION)
        )
        request = partition_query(self._table_name, attribute, partition, index, newest_first=True)
        if starting_token is not None:
            request["KeyConditionExpression"] += " AND #sk < :before"
            request["ExpressionAttributeNames"]["#sk"] = LIST_SORT
            request["ExpressionAttributeValues"][":before"] = {"S": decode_position(starting_token)}
        items = query_up_to(self._client, request, limit + 1)
        requests = listed_rows(parse_approval_record, items[:limit])
        # the page's last row read, not listed: one left out still moves the list on
        token = encode_position(str(items[limit - 1][LIST_SORT])) if len(items) > limit else None
        return Page(items=tuple(requests), next_token=token)
