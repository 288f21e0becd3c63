"""What both backfill adapters share: the main table's key names and the scan cursor.

The cursor is the last key of a page as base64url JSON, the same for both stores, so a resumed
backfill is checked the same way wherever it runs.
"""

from __future__ import annotations

from adapters.records import ALL_LIST_PARTITION
from application.ports.migration import MainRowKey
from domain.errors import InvalidInputError
from domain.paging import page_token, string_fields

EXECUTION_ID = "workflowExecutionId"
WORKFLOW_KEY = "workflowDatabaseId:workflowId"
PARTITION = "allListPartition"
PARTITION_VALUE = ALL_LIST_PARTITION
_REFUSED = "cursor: not a cursor issued by backfill-list-partition"


def encode_cursor(row: MainRowKey) -> str:
    return page_token([row.workflow_execution_id, row.workflow_key])


def decode_cursor(cursor: str) -> MainRowKey:
    fields = string_fields(cursor, 2)
    if fields is None:
        raise InvalidInputError(_REFUSED)
    return MainRowKey(fields[0], fields[1])
