"""The system clock and id generator."""

from __future__ import annotations

import secrets
import time
import uuid
from datetime import UTC, datetime

_LAUNCH_NAMESPACE = uuid.UUID("6f1c2a8e-3b9d-4d5e-9a77-0c4e8f1b2d3a")


class SystemClock:
    """UTC now."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class UuidGenerator:
    """VAMS GUIDs: 32 lowercase hex digits. A new one leads with the milliseconds since the epoch
    (then 80 random bits), so ids sort by creation: VAMS's dates are whole seconds, and the id is
    what orders the runs of one second, newest first, in the lists. Derived ids are name-based
    (UUID5), so the same seed gives the same id."""

    def new_id(self) -> str:
        return f"{time.time_ns() // 1_000_000:012x}{secrets.token_hex(10)}"

    def derived_id(self, seed: str) -> str:
        return uuid.uuid5(_LAUNCH_NAMESPACE, seed).hex
