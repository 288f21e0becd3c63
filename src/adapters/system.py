"""The system clock and id generator."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

_LAUNCH_NAMESPACE = uuid.UUID("6f1c2a8e-3b9d-4d5e-9a77-0c4e8f1b2d3a")


class SystemClock:
    """UTC now."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class UuidGenerator:
    """Random GUIDs; derived ids are name-based (UUID5), so the same seed gives the same id."""

    def new_id(self) -> str:
        return str(uuid.uuid4())

    def derived_id(self, seed: str) -> str:
        return str(uuid.uuid5(_LAUNCH_NAMESPACE, seed))
