"""The SQLite writer's per-call shortcuts give what the general path gives.

An update's shape and parameters are taken in one pass by exact type; the texts cached by shape
are the texts rendered afresh.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.event_records import (
    build_event_record,
    build_execution_event_record,
    event_text,
)
from adapters.sqlite.execution_sql import ExecutionSql, _needs_json, _shape_of
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql, dump_json
from adapters.tables import ResourceKeys, TableNames
from domain.events import EventType, NewEvent


class _Colour(StrEnum):
    RED = "red"


_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.just(_Colour.RED),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=6,
)


def _general(values: dict[str, Any]) -> tuple[tuple[tuple[str, bool], ...], list[Any]]:
    shape = tuple((name, _needs_json(value)) for name, value in values.items())
    return shape, [dump_json(v) if _needs_json(v) else v for v in values.values()]


def _pairs(shape: tuple[tuple[str, ...], tuple[bool, ...] | None]) -> tuple[tuple[str, bool], ...]:
    names, needs = shape
    return tuple(zip(names, needs or (False,) * len(names), strict=True))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _values, max_size=6))
def test_the_one_pass_shape_is_the_general_one(values: dict[str, Any]) -> None:
    shape, values_bound = _shape_of(values)
    parameters = [*values_bound]  # as the caller unpacks them
    expected_shape, expected_parameters = _general(values)
    assert _pairs(shape) == expected_shape
    assert parameters == expected_parameters
    assert [type(p) for p in parameters] == [type(p) for p in expected_parameters]


def test_a_bool_goes_through_json_not_as_an_integer() -> None:
    for values, shape, parameters in (
        ({"a": True, "b": 1}, (("a", "b"), (True, False)), ["true", 1]),
        ({"a": "x", "b": 1}, (("a", "b"), None), ["x", 1]),
    ):
        found, bound = _shape_of(values)
        assert (found, [*bound]) == (shape, parameters)


def test_cached_texts_are_the_rendered_ones() -> None:
    sql = ExecutionSql(build_schema(TableNames(prefix="T.")))
    for count in (1, 2, 3):
        first = sql.step_if_status(count)
        assert first == sql._step_if_status(count)
        assert sql.step_if_status(count) is first
        assert first.count("?") == 2 + count


@settings(max_examples=50, deadline=None)
@given(
    number=st.integers(min_value=1, max_value=10**6),
    attempt=st.none() | st.integers(min_value=0, max_value=9),
    error=st.none() | st.text(max_size=30),
)
def test_an_event_row_built_inline_is_the_tables_row(
    number: int, attempt: int | None, error: str | None
) -> None:
    # SqliteUnitOfWork._insert_numbered builds (run id, number, JSON) from the NewEvent itself
    event = NewEvent(
        workflow_execution_id="run-1",
        event_type=EventType.ATTEMPT_FINISHED,
        occurred_at=datetime(2026, 12, 4, 10, 0, 0, 123456, tzinfo=UTC),
        pipeline_execution_id="run-1-step-1",
        attempt=attempt,
        error=error,
    )
    events = TableSql.render(build_schema(TableNames())[ResourceKeys.EXECUTION_EVENTS])
    record = build_event_record(event, number)
    text = event_text(event, number) or record.json_text or dump_json(record)
    inline = (event.workflow_execution_id, number, text)
    assert inline == events.row(build_execution_event_record(event.numbered(number)))
