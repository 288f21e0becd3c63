"""The ExecutionEvents item (seed 003 EVENT_LOG), the same on both stores.

Free text (an error, a cause) is redacted before it is stored and capped by the item budget, so
an event item stays a few KB whatever a step printed; the complete body goes to the object store.
"""

from __future__ import annotations

import functools
from json.encoder import encode_basestring_ascii
from typing import Any

from pydantic import TypeAdapter

from adapters.compact_json import encode_compact
from adapters.item_budget import (
    KEPT_BYTES,
    Offloadable,
    Record,
    RecordBudget,
    declare,
    fit_item,
    new_record,
)
from adapters.records import Item, format_date, row_parser, stored_date
from domain.events import ExecutionEvent, NewEvent
from domain.redaction import redact

SEQUENCE_NUMBER = "sequenceNumber"
# On the main row, DynamoDB only: the number of the run's last event, which the next write's
# condition names (SQLite's write lock orders appends without it).
LAST_SEQUENCE_NUMBER = "lastSequenceNumber"

EVENT_BUDGET = declare(
    RecordBudget(
        "event",
        (Offloadable("error", cap=KEPT_BYTES), Offloadable("cause", cap=KEPT_BYTES)),
    )
)

# model field -> item attribute, for the optional fields (absent when they have no value)
_OPTIONAL = (
    ("pipeline_execution_id", "pipelineExecutionId"),
    ("attempt", "attempt"),
    ("status", "status"),
    ("error", "error"),
    ("cause", "cause"),
    ("trigger", "trigger"),
    ("redrive_count", "redriveCount"),
    ("sub_executions", "subExecutions"),
    ("logs", "logs"),
    ("approval_id", "approvalId"),
    ("decided_by", "decidedBy"),
)
_REDACTED = frozenset({"error", "cause"})
_escaped = encode_basestring_ascii  # a string's JSON text, as the compact encoder writes it


def build_execution_event_record(event: ExecutionEvent) -> Record:
    return build_event_record(event, event.sequence_number)


def build_event_record(event: NewEvent, sequence_number: int) -> Record:
    """The item of `event` as number `sequence_number` (a store that numbers it as it writes
    it puts its own number in)."""
    item: Item = {
        "workflowExecutionId": event.workflow_execution_id,
        SEQUENCE_NUMBER: sequence_number,
        "eventType": str(event.event_type),
        "occurredAt": format_date(event.occurred_at),
    }
    free_text = False
    # its JSON, for a store that writes JSON (SQLite), written as the values are taken: the
    # compact encoder's text (test_event_json), without its walk of the item and its escaping
    # of the same keys on every call; the date's text is digits and punctuation
    text: str | None = (
        f'{{"workflowExecutionId":{_escaped(item["workflowExecutionId"])},'
        f'"sequenceNumber":{sequence_number:d},"eventType":{_escaped(item["eventType"])},'
        f'"occurredAt":"{item["occurredAt"]}"'
        if sequence_number.__class__ is int
        else None
    )
    # each slot read by name (mypy checks them), in _OPTIONAL's order
    values: tuple[Any, ...] = (
        event.pipeline_execution_id,
        event.attempt,
        event.status,
        event.error,
        event.cause,
        event.trigger,
        event.redrive_count,
        event.sub_executions,
        event.logs,
        event.approval_id,
        event.decided_by,
    )
    for (_, attribute), value in zip(_OPTIONAL, values, strict=True):
        if value is None or value == "":
            continue
        if attribute in _REDACTED:
            value, free_text = redact(value), True
        item[attribute] = value
        if text is not None:
            kind = value.__class__
            if kind is str:
                text = f'{text},"{attribute}":{_escaped(value)}'
            elif kind is int:
                text = f'{text},"{attribute}":{value:d}'
            else:  # another type (a subclass): the encoder says it
                text = None
    if not free_text:  # ids, numbers and statuses only: far below any budget
        return new_record(item, (), encode_compact(item) if text is None else text + "}")
    return fit_item(item, EVENT_BUDGET, event.workflow_execution_id)


@row_parser("WfxExecutionEventsTable", "workflowExecutionId", SEQUENCE_NUMBER)
def parse_execution_event_record(item: Item) -> ExecutionEvent:
    values: dict[str, Any] = {
        "workflow_execution_id": item["workflowExecutionId"],
        "sequence_number": int(item[SEQUENCE_NUMBER]),
        "event_type": item["eventType"],
        "occurred_at": stored_date(item, "occurredAt"),
    }
    for name, attribute in _OPTIONAL:
        if attribute in item:
            value = item[attribute]
            values[name] = int(value) if name in _NUMBERS else value
    return _as_stored_event().validate_python(values)


@functools.cache
def _as_stored_event() -> TypeAdapter[ExecutionEvent]:
    """The validation of an event read back, by ExecutionEvent's annotations; built on the first
    read (a process that only writes events never builds it)."""
    return TypeAdapter(ExecutionEvent)


_NUMBERS = frozenset({"attempt", "redrive_count", "sub_executions", "logs"})
