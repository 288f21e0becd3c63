"""The parts the container builds for sub-process registration: the bus a registration event is
published on (the in-process bus, or EventBridge), the EventBridge client and the local steps'
registration credentials, each imported lazily (the container imports this module whatever the
command, and most commands build none of them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from application.ports.event_bus import EventBus, RegistrationCredentials
    from application.use_cases.register_pipeline_execution import RegisterPipelineExecution


def local_event_bus(
    register: Callable[[], RegisterPipelineExecution],
    credentials: RegistrationCredentials,
    source_prefix: str,
    region: str,
) -> EventBus:
    """The in-process bus with the subscription the template's rule makes on EventBridge, which
    takes only events carrying the registration token of the step they name."""
    from adapters.local.event_bus import LocalEventBus
    from application.use_cases.publish_registration import registration_subscriber
    from domain.registration import REGISTRATION_DETAIL_TYPE, registration_event_pattern

    bus = LocalEventBus(region=region)
    (source_pattern,) = registration_event_pattern(source_prefix)["source"]
    assert isinstance(source_pattern, dict)  # {"prefix": ...}, the same rule as the template's
    bus.subscribe(
        REGISTRATION_DETAIL_TYPE,
        str(source_pattern["prefix"]),
        registration_subscriber(register, credentials),
    )
    return bus


def registration_credentials(home: str) -> RegistrationCredentials:
    from adapters.local.registration_credentials import HmacRegistrationCredentials

    return HmacRegistrationCredentials(Path(home))


def eventbridge_bus(client: Callable[[], Any], bus_name: str) -> EventBus:
    from adapters.aws.eventbridge import EventBridgeBus

    return EventBridgeBus(client, bus_name)
