"""The EventBridge event bus: PutEvents, one entry per registration event."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from adapters.aws.lazy_client import LazyClient
from application.ports.event_bus import Delivery, EventNotPublishedError
from domain.redaction import redact


class EventBridgeBus(LazyClient):
    """Puts events on one EventBridge bus; a rule there routes them on (to the handler Lambda).

    The boto3 client is built on first use (`client_factory`), so a command that never publishes
    never configures the AWS SDK. PutEvents answers 200 even when it failed an entry, so the
    entry's own ErrorCode is checked: an event silently dropped is a registration lost.
    """

    name = "eventbridge"

    def __init__(self, client_factory: Callable[[], Any], bus_name: str = "default") -> None:
        super().__init__(client_factory)
        self._bus_name = bus_name

    def publish(
        self,
        source: str,
        detail_type: str,
        detail: dict[str, Any],
        credential: str | None = None,
    ) -> Delivery:
        """`credential` is dropped unsent: on AWS, IAM on PutEvents for the source prefix is what
        says who may register (docs/aws.md), and a local token has no business leaving the host.
        """
        from botocore.exceptions import ClientError  # here: a local command never loads botocore

        entry = {
            "Source": source,
            "DetailType": detail_type,
            "Detail": json.dumps(detail),
            "EventBusName": self._bus_name,
        }
        try:
            response = self.client.put_events(Entries=[entry])
        except ClientError as error:  # a missing bus, a denied PutEvents, an oversized entry
            problem = error.response.get("Error", {})
            raise self._not_published(problem.get("Code"), problem.get("Message")) from error
        answer = (response.get("Entries") or [{}])[0]
        if response.get("FailedEntryCount", 0) or answer.get("ErrorCode") or not answer:
            raise self._not_published(answer.get("ErrorCode"), answer.get("ErrorMessage"))
        return Delivery(event_id=answer.get("EventId"))

    def _not_published(self, code: str | None, message: str | None) -> EventNotPublishedError:
        return EventNotPublishedError(
            redact(
                f"EventBridge bus {self._bus_name} did not take the event: "
                f"{code or 'unknown error'}: {message or 'no message'}"
            )
        )
