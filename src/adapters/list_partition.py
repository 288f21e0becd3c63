"""What both backfill adapters share: the main table's key names and the scan cursor.

The cursor is the last key of a page as base64url JSON, the same for both stores, so a resumed
backfill is checked the same way wherever it runs.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from adapters.records import ALL_LIST_PARTITION
from application.ports.migration import MainRowKey
from domain.errors import InvalidInputError

EXECUTION_ID = "workflowExecutionId"
WORKFLOW_KEY = "workflowDatabaseId:workflowId"
PARTITION = "allListPartition"
PARTITION_VALUE = ALL_LIST_PARTITION
_REFUSED = "cursor: not a cursor issued by backfill-list-partition"


def encode_cursor(row: MainRowKey) -> str:
    text = json.dumps([row.workflow_execution_id, row.workflow_key], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode("utf-8")).rstrip(b"=").decode("ascii")


def decode_cursor(cursor: str) -> MainRowKey:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        decoded: Any = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise InvalidInputError(_REFUSED) from exc
    if (
        not isinstance(decoded, list)
        or len(decoded) != 2
        or not all(isinstance(part, str) and part for part in decoded)
    ):
        raise InvalidInputError(_REFUSED)
    return MainRowKey(decoded[0], decoded[1])
