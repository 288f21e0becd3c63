"""The ports of the clock and of ids."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class IdGenerator(Protocol):
    def new_id(self) -> str: ...

    def derived_id(self, seed: str) -> str:
        """The same id for the same seed, every time (idempotent launches)."""
        ...
