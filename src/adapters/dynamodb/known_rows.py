"""A step row's version: every write of one moves its `registrationVersion` on (registrations
and stop records always did; moves and redrive resets do too), so a registration or a stop record
made from the row as read holds only while nothing else wrote it since."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from adapters.registration import REGISTRATION_VERSION, registration_version

Item = dict[str, Any]


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
