"""The ports of registration events: the bus and the credentials a step signs them with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Delivery:
    """What publishing an event came to. A bus that delivers later (EventBridge) knows only the
    event id (`accepted` None); the in-process bus knows whether its subscriber accepted it."""

    event_id: str | None = None
    accepted: bool | None = None
    reason: str | None = None
    warnings: tuple[str, ...] = ()  # what an accepting subscriber left out


class EventNotPublishedError(RuntimeError):
    """The bus did not take the event (EventBridge failed the entry); the message says why."""


class EventBus(Protocol):
    """Where a step publishes its registration events (EventBridge, or the local runner's bus)."""

    @property
    def name(self) -> str: ...

    def publish(
        self,
        source: str,
        detail_type: str,
        detail: dict[str, Any],
        credential: str | None = None,
    ) -> Delivery:
        """Put one event; raises EventNotPublishedError when the bus refuses it.

        `credential` (the step's registration token) goes to an in-process subscriber beside
        the event, never into it: EventBridge is never sent one, its IAM policy decides who
        may publish."""
        ...


class RegistrationCredentials(Protocol):
    """Per-step credentials of local registrations: issued to a step, checked on its events."""

    def issue(self, workflow_execution_id: str, pipeline_execution_id: str) -> str: ...

    def verify(
        self, workflow_execution_id: str, pipeline_execution_id: str, token: str
    ) -> bool: ...
