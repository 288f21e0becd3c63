"""Rows this process last saw as stored, so that a conditional write can answer with the row it
leaves without reading it back.

Step rows: every write of one moves its `registrationVersion` on (registrations and stop records
always did; moves and redrive resets do too). A write made from a known step row holds only
while the stored version and status are still the known ones, so on success the stored row is
the known row with the written attributes: nothing else can have changed it. When that
condition fails, the row as stored now comes back with the refusal (ALL_OLD), and is known from
then on. Main rows: their event counter plays that part (DynamoDbExecutionStore.update_execution).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.dynamodb.codec import from_wire, to_wire
from adapters.records import STEP_STATUS
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

    def keep_all(self, items: Iterable[Mapping[str, Any]]) -> None:
        for item in items:
            self.keep(item)

    def forget(self, key: str) -> None:
        with self._lock:
            self._rows.pop(key, None)

    def set_if(self, key: str, attribute: str, was: object, now: object) -> None:
        """Change one attribute of a known row, if it is known with `attribute` = `was`."""
        with self._lock:
            row = self._rows.get(key)
            if row is not None and row.get(attribute) == was:
                row[attribute] = now


def version_guard(request: dict[str, Any], known: Item | None) -> None:
    """Make a step update move the row's version on and, with a known row, hold only while the
    stored row is still that one (its version and its status)."""
    names = request.setdefault("ExpressionAttributeNames", {})
    values = request.setdefault("ExpressionAttributeValues", {})
    names["#rowVersion"] = REGISTRATION_VERSION
    expression = str(request.get("UpdateExpression", ""))
    if expression:
        values[":rowStep"] = {"N": "1"}
        values[":rowZero"] = {"N": "0"}
        bump = "#rowVersion = if_not_exists(#rowVersion, :rowZero) + :rowStep"
        if expression.startswith("SET "):
            expression = f"SET {bump}, {expression[4:]}"
        else:
            expression = f"SET {bump} {expression}"
        request["UpdateExpression"] = expression
    if known is None:
        if not expression:
            del names["#rowVersion"]
        return
    version = registration_version(known)
    if version:
        values[":rowKnown"] = {"N": str(version)}
        held = "#rowVersion = :rowKnown"
    else:
        held = "attribute_not_exists(#rowVersion)"
    names["#rowStatus"] = STEP_STATUS
    values[":rowKnownStatus"] = {"S": str(known[STEP_STATUS])}
    request["ConditionExpression"] = (
        f"({request['ConditionExpression']}) AND {held} AND #rowStatus = :rowKnownStatus"
    )


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
