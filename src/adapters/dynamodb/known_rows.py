"""Rows this process last saw as stored, so that a conditional write can answer with the row it
leaves without reading it back: main rows, whose event counter proves no transition came
between (DynamoDbExecutionStore.update_execution).

Step rows: every write of one moves its `registrationVersion` on (registrations and stop records
always did; moves and redrive resets do too), so a registration or a stop record made from the
row as read holds only while nothing else wrote it since.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.dynamodb.codec import from_wire, to_wire
from adapters.registration import REGISTRATION_VERSION, registration_version

Item = dict[str, Any]

_KEPT = 4096  # a few hundred runs' steps; the oldest known rows go first


class KnownRows:
    """Rows of one table by one key attribute, as this process last wrote or read them; the
    runner's threads and a server's share a store, so each change is made under a lock."""

    def __init__(self, key_attribute: str, kept: int = _KEPT) -> None:
        self._key, self._kept = key_attribute, kept
        self._rows: dict[str, Item] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Item | None:
        with self._lock:
            row = self._rows.get(key)
            return None if row is None else dict(row)

    def keep(self, item: Mapping[str, Any]) -> None:
        # through the codec: the row as a read would give it, never the caller's own objects
        row = from_wire(to_wire(dict(item)))
        key = str(row[self._key])
        with self._lock:
            self._rows.pop(key, None)
            while len(self._rows) >= self._kept:
                self._rows.pop(next(iter(self._rows)))
            self._rows[key] = row

    def forget(self, key: str) -> None:
        with self._lock:
            self._rows.pop(key, None)

    def set_if(self, key: str, attribute: str, was: object, now: object) -> None:
        """Change one attribute of a known row, if it is known with `attribute` = `was`."""
        with self._lock:
            row = self._rows.get(key)
            if row is not None and row.get(attribute) == was:
                row[attribute] = now


def version_guard(request: dict[str, Any]) -> None:
    """Make a step update move the row's version on: a registration or a stop record made from
    the row as read then holds only while no other write came between."""
    expression = str(request.get("UpdateExpression", ""))
    if not expression:
        return
    request.setdefault("ExpressionAttributeNames", {})["#rowVersion"] = REGISTRATION_VERSION
    values = request.setdefault("ExpressionAttributeValues", {})
    values[":rowStep"] = {"N": "1"}
    values[":rowZero"] = {"N": "0"}
    bump = "#rowVersion = if_not_exists(#rowVersion, :rowZero) + :rowStep"
    if expression.startswith("SET "):
        expression = f"SET {bump}, {expression[4:]}"
    else:
        expression = f"SET {bump} {expression}"
    request["UpdateExpression"] = expression


def after_write(
    known: Item, written: Mapping[str, Any], removed: Iterable[str], moved_on: bool
) -> Item:
    """The row a write made from `known` leaves: `written` set, `removed` gone, and the version
    one on when the write changed the row."""
    after = {**known, **written}
    for name in removed:
        after.pop(name, None)
    if moved_on:
        after[REGISTRATION_VERSION] = registration_version(known) + 1
    return after
