"""PublishRegistration: a running step reports what it started, as an event on the bus.

The producer's side of seed 000's sub-process registration: the source is composed from the
step's own ids, so the handler on the other side (RegisterPipelineExecution) accepts it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from application.ports import Delivery, EventBus
from application.use_cases.register_pipeline_execution import (
    LogRegistration,
    RegisterPipelineExecution,
    RegisterPipelineExecutionCommand,
    RegistrationDetail,
    SubExecutionRegistration,
)
from application.validation_messages import describe_validation_error
from domain.redaction import redact
from domain.registration import REGISTRATION_DETAIL_TYPE, compose_source


class PublishRegistrationCommand(BaseModel):
    """The step the event is about, and the sub-executions and logs it started."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    sub_executions: tuple[SubExecutionRegistration, ...] = ()
    logs: tuple[LogRegistration, ...] = ()


class PublishedRegistration(BaseModel):
    """Where the event went and what came of it (`accepted` None: the bus delivers later)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    bus: str
    source: str
    event_id: str | None = None
    accepted: bool | None = None
    reason: str | None = None


class PublishRegistration:
    """Put a `pipeline.execution.register` event for one step on the configured bus."""

    def __init__(self, bus: EventBus, source_prefix: str) -> None:
        self._bus, self._prefix = bus, source_prefix

    def execute(self, command: PublishRegistrationCommand) -> PublishedRegistration:
        source = compose_source(
            self._prefix, command.workflow_execution_id, command.pipeline_execution_id
        )
        detail = RegistrationDetail(
            pipeline_execution_id=command.pipeline_execution_id,
            workflow_execution_id=command.workflow_execution_id,
            sub_executions=command.sub_executions,
            logs=command.logs,
        )
        delivery = self._bus.publish(
            source, REGISTRATION_DETAIL_TYPE, detail.model_dump(mode="json", by_alias=True)
        )
        return PublishedRegistration(
            bus=self._bus.name,
            source=source,
            event_id=delivery.event_id,
            accepted=delivery.accepted,
            reason=None if delivery.reason is None else redact(delivery.reason),
        )

    def register(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        sub_executions: Iterable[Mapping[str, Any]] = (),
        logs: Iterable[Mapping[str, Any]] = (),
    ) -> PublishedRegistration:
        """The same, from the event's own camelCase entries: what a python step is given as
        its `register` keyword, bound to its ids."""
        command = PublishRegistrationCommand(
            workflow_execution_id=workflow_execution_id,
            pipeline_execution_id=pipeline_execution_id,
            sub_executions=tuple(
                SubExecutionRegistration.model_validate(entry) for entry in sub_executions
            ),
            logs=tuple(LogRegistration.model_validate(entry) for entry in logs),
        )
        return self.execute(command)


def registration_subscriber(
    register: Callable[[], RegisterPipelineExecution],
) -> Callable[[dict[str, Any]], Delivery]:
    """The in-process bus's subscriber for registration events: the envelope goes to
    RegisterPipelineExecution at once, and its verdict comes back to the publisher."""

    def deliver(envelope: dict[str, Any]) -> Delivery:
        event_id = envelope.get("id")
        try:
            command = RegisterPipelineExecutionCommand.model_validate(envelope)
        except ValidationError as invalid:
            return Delivery(event_id, accepted=False, reason=describe_validation_error(invalid))
        result = register().execute(command)
        return Delivery(event_id, accepted=result.accepted, reason=result.reason)

    return deliver
