"""The local runner's in-process event bus: an event reaches its subscriber before publish
returns, and the subscriber's verdict comes back to the publisher."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from application.ports.event_bus import Delivery

# (envelope, credential the publisher gave or None) -> verdict
Subscriber = Callable[[dict[str, Any], str | None], Delivery]


class LocalEventBus:
    """Routes an event by detail type and source prefix, as an EventBridge rule would, and hands
    the subscriber the envelope EventBridge would deliver (`source`, `detail-type`, `detail`...).

    An event no subscription matches is not delivered, and says so: on a laptop a registration
    that went nowhere should be visible, not lost. The publisher's credential is handed to the
    subscriber beside the envelope, never inside it, so no subscriber stores or logs it with the
    event.
    """

    name = "local"

    def __init__(self, region: str = "local", account: str = "000000000000") -> None:
        self._region, self._account = region, account
        self._subscriptions: list[tuple[str, str, Subscriber]] = []
        self._lock = threading.Lock()

    def subscribe(self, detail_type: str, source_prefix: str, subscriber: Subscriber) -> None:
        """Deliver events of `detail_type` whose source starts with `source_prefix`."""
        with self._lock:
            self._subscriptions.append((detail_type, source_prefix, subscriber))

    def publish(
        self,
        source: str,
        detail_type: str,
        detail: dict[str, Any],
        credential: str | None = None,
    ) -> Delivery:
        event_id = str(uuid.uuid4())
        with self._lock:
            matching = [
                subscriber
                for wanted_type, prefix, subscriber in self._subscriptions
                if wanted_type == detail_type and source.startswith(prefix)
            ]
        if not matching:
            return Delivery(
                event_id,
                accepted=False,
                reason=f"no subscription on the local bus matches {detail_type!r} from {source!r}",
            )
        envelope = {
            "version": "0",
            "id": event_id,
            "detail-type": detail_type,
            "source": source,
            "account": self._account,
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": self._region,
            "resources": [],
            "detail": detail,
        }
        outcomes = [subscriber(envelope, credential) for subscriber in matching]
        refused = next((outcome for outcome in outcomes if outcome.accepted is False), None)
        if refused is not None:
            return Delivery(event_id, accepted=False, reason=refused.reason)
        # accepted, with what a subscriber noted (a registration's dropped fields) and warned of
        noted = "; ".join(outcome.reason for outcome in outcomes if outcome.reason)
        warnings = tuple(warning for outcome in outcomes for warning in outcome.warnings)
        return Delivery(event_id, accepted=True, reason=noted or None, warnings=warnings)
