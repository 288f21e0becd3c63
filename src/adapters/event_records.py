"""The ExecutionEvents item (seed 003 EVENT_LOG), the same on both stores.

Free text (an error, a cause) is redacted before it is stored and capped by the item budget, so
an event item stays a few KB whatever a step printed; the complete body goes to the object store.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from json.encoder import encode_basestring_ascii
from operator import attrgetter
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


class _Escaped(dict[str, str]):
    """Texts' JSON (run ids, step ids, statuses) kept: a run's id is in each of its events, a
    step's in five. Cleared whole when full."""

    def __missing__(self, text: str) -> str:
        if len(self) >= 256:
            self.clear()
        escaped = self[text] = _escaped(text)
        return escaped


_json_of_text = _Escaped().__getitem__
# (the values, the number, the moment's text, the texts' JSON) -> the text, None: no template
_Fill = Callable[[tuple[Any, ...], int, str, Callable[[str], str]], str | None]


def _no_template(*_: Any) -> None:
    return None


_FILLS: dict[tuple[Any, ...], _Fill] = {}


def event_text(event: NewEvent, sequence_number: int) -> str | None:
    """`build_event_record`'s JSON text for `event` without its item, by the writer compiled
    for its type and shape (which values it holds, of which type): half the item's
    instructions, 14 a warm run. None when the item is not ids, numbers and statuses alone:
    free text (an error, a cause, which the budget fits), an empty text (left out of the
    item), or a value of another type (the encoder's)."""
    values = _read_event(event)
    shape = (values[1], *map(type, values))  # the type itself: its text is the writer's
    fill = _FILLS.get(shape)
    if fill is None:
        fill = _FILLS[shape] = _fill_of(shape)
    if sequence_number.__class__ is not int:
        return None
    return fill(values, sequence_number, format_date(values[2]), _json_of_text)


def _fill_of(shape: tuple[Any, ...]) -> _Fill:
    """The writer of the events of `shape`: one f-string of the item's keys in order, each
    value in its place (a text as the encoder escapes it, a number as int's text). Its source
    holds only _OPTIONAL's names and places; the type's text is a value it reads."""
    event_type, *kinds = shape
    if kinds[0] is not str or kinds[2] is not datetime or not isinstance(event_type, str):
        return _no_template
    texts = ["values[0]"]
    pieces = (
        '"workflowExecutionId":{escape(values[0])},"sequenceNumber":{number},'
        '"eventType":{type_text},"occurredAt":"{moment}"'
    )
    for place, (_, attribute) in enumerate(_OPTIONAL, 3):
        kind = kinds[place]
        if kind is type(None):
            continue
        if attribute in _REDACTED or kind not in (str, int):
            return _no_template
        if kind is str:
            texts.append(f"values[{place}]")
            pieces += f',"{attribute}":{{escape(values[{place}])}}'
        else:
            pieces += f',"{attribute}":{{values[{place}]}}'
    source = (
        "def fill(values, number, moment, escape):\n"
        f"    if not ({' and '.join(texts)}):\n"
        "        return None\n"  # an empty text, left out of the item: the encoder's
        f"    return f'{{{{{pieces}}}}}'\n"
    )
    namespace: dict[str, Any] = {"type_text": _escaped(str(event_type))}
    exec(source, namespace)  # the source holds the fixed names above and no value
    fill: _Fill = namespace["fill"]
    return fill


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
