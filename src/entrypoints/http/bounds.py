"""The bounds of what the stores hold, put on every number at the edge: a value past them is a
400 naming the field, never the store's overflow (SQLite's INTEGER is 64-bit signed; DynamoDB
holds more, so SQLite's bound is the one both take)."""

from __future__ import annotations

MAX_STORED_INTEGER = 2**63 - 1
