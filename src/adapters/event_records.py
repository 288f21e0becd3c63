"""The ExecutionEvents item (seed 003 EVENT_LOG), the same on both stores.

Free text (an error, a cause) is redacted before it is stored and capped by the item budget, so
an event item stays a few KB whatever a step printed; the complete body goes to the object store.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from json.encoder import encode_basestring_ascii
from operator import attrgetter, itemgetter
from typing import Any, NamedTuple

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
    if not free_text:  # ids, numbers and statuses only: far below any budget
        text = event_text(event, sequence_number)
        return new_record(item, (), encode_compact(item) if text is None else text)
    return fit_item(item, EVENT_BUDGET, event.workflow_execution_id)


# An event's values in its item's order: run id, type, moment, then _OPTIONAL's (one C call).
_read_event = attrgetter(
    "workflow_execution_id", "event_type", "occurred_at", *(name for name, _ in _OPTIONAL)
)
_Pick = Callable[[tuple[Any, ...]], tuple[Any, ...]]


class _EventText(NamedTuple):
    """The text of the events of one type and shape (which values they hold, of which type):
    their item's compact JSON cut where the values go (the run's id, the number, the moment,
    then each optional value held), and the getter of those optional values."""

    parts: list[str]
    optional: _Pick


_NO_TEMPLATE = _EventText([], tuple)  # free text, or a value of another type
_EVENT_TEXTS: dict[tuple[Any, ...], _EventText] = {}


class _Json(dict[str | int, str]):
    """The JSON of an event's texts and numbers (run ids, step ids, statuses, attempts) kept: a
    run's id is in each of its events, a step's in five. By value: a number is an int and a
    text a str here (the shape says so), and no int equals a str. Cleared whole when full."""

    def __missing__(self, value: str | int) -> str:
        if len(self) >= 256:
            self.clear()
        text = self[value] = _escaped(value) if value.__class__ is str else str(value)
        return text


_json_of = _Json().__getitem__


def event_text(event: NewEvent, sequence_number: int) -> str | None:
    """`build_event_record`'s JSON text for `event` without its item: a template per type and
    shape, filled with the values' JSON. None when the item is not ids, numbers and statuses
    alone: free text (an error, a cause, which the budget fits), an empty text (left out of
    the item), or a value of another type (the encoder's)."""
    values = _read_event(event)
    shape = (values[1], *map(type, values))  # the type itself: its text is in the template
    found = _EVENT_TEXTS.get(shape)
    if found is None:
        found = _EVENT_TEXTS[shape] = _event_text_of(shape)
    if found is _NO_TEMPLATE or sequence_number.__class__ is not int:
        return None
    optional = found.optional(values)
    if not values[0] or "" in optional:
        return None
    parts = found.parts.copy()
    parts[1] = _json_of(values[0])
    parts[3] = str(sequence_number)
    parts[5] = format_date(values[2])
    parts[7::2] = map(_json_of, optional)
    return "".join(parts)


def _event_text_of(shape: tuple[Any, ...]) -> _EventText:
    event_type, *kinds = shape
    if kinds[0] is not str or kinds[2] is not datetime or not isinstance(event_type, str):
        return _NO_TEMPLATE
    type_text = _escaped(str(event_type))
    parts = ['{"workflowExecutionId":', "", ',"sequenceNumber":', "", f',"eventType":{type_text}']
    parts[-1] += ',"occurredAt":"'
    parts += ("", '"')
    held = []  # the optional values' places among the values
    for place, (_, attribute) in enumerate(_OPTIONAL, 3):
        kind = kinds[place]
        if kind is type(None):
            continue
        if attribute in _REDACTED or kind not in (str, int):
            return _NO_TEMPLATE
        parts[-1] += f',"{attribute}":'
        parts += ("", "")
        held.append(place)
    parts[-1] += "}"
    return _EventText(parts, _picker(held))


def _picker(places: list[int]) -> _Pick:
    """The values at `places`, as a tuple even when there is one or none."""
    if len(places) > 1:
        return itemgetter(*places)
    if places:
        (place,) = places
        return lambda values: (values[place],)
    return lambda values: ()


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
