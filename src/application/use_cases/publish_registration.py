"""PublishRegistration: a running step reports what it started, as an event on the bus.

The producer's side of seed 000's sub-process registration: the source is composed from the
step's own ids, so the handler on the other side (RegisterPipelineExecution) accepts it. On the
local bus the step also proves it is that step, with the registration token the runner gave it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError
from pydantic.alias_generators import to_camel

from application.ports.event_bus import Delivery, EventBus, RegistrationCredentials
from application.use_cases.record_cost import ReportedUsage
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecution,
    RegisterPipelineExecutionCommand,
    RegistrationDetail,
)
from application.validation_messages import describe_validation_error
from domain.errors import InvalidInputError
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.redaction import redact
from domain.registration import (
    REGISTRATION_DETAIL_TYPE,
    compose_source,
    normalize_log,
    normalize_sub_execution,
    source_ids,
)


class PublishRegistrationCommand(BaseModel):
    """The step the event is about, the sub-executions and logs it started, and the step's
    registration token (a secret: never in a repr, a dump or the event)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    sub_executions: tuple[RegisteredSubExecution, ...] = ()
    logs: tuple[RegisteredLog, ...] = ()
    costs: tuple[ReportedUsage, ...] = ()  # usage for the cost ledger
    registration_token: SecretStr | None = None


class PublishedRegistration(BaseModel):
    """Where the event went and what came of it (`accepted` None: the bus delivers later)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    bus: str
    source: str
    event_id: str | None = None
    accepted: bool | None = None
    reason: str | None = None
    warnings: tuple[str, ...] = ()


class PublishRegistration:
    """Put a `pipeline.execution.register` event for one step on the configured bus."""

    def __init__(self, bus: EventBus, source_prefix: str) -> None:
        self._bus, self._prefix = bus, source_prefix

    def execute(self, command: PublishRegistrationCommand) -> PublishedRegistration:
        source = compose_source(
            self._prefix, command.workflow_execution_id, command.pipeline_execution_id
        )
        # VAMS's shape: one `subExecution`; wfx's `subExecutions` list only for more than one
        subs = [
            sub.model_dump(by_alias=True, exclude_defaults=True) for sub in command.sub_executions
        ]
        detail = RegistrationDetail(
            pipeline_execution_id=command.pipeline_execution_id,
            workflow_execution_id=command.workflow_execution_id,
            sub_execution=subs[0] if len(subs) == 1 else None,
            sub_executions=tuple(subs) if len(subs) > 1 else (),
            logs=tuple(
                {to_camel(name): value for name, value in log.model_dump().items()}
                for log in command.logs
            ),
            costs=command.costs,
        )
        token = command.registration_token
        delivery = self._bus.publish(
            source,
            REGISTRATION_DETAIL_TYPE,
            # an event without costs carries no `costs` key, as before the ledger
            detail.model_dump(mode="json", by_alias=True, exclude_defaults=True),
            credential=None if token is None else token.get_secret_value(),
        )
        return PublishedRegistration(
            bus=self._bus.name,
            source=source,
            event_id=delivery.event_id,
            accepted=delivery.accepted,
            reason=None if delivery.reason is None else redact(delivery.reason),
            warnings=tuple(redact(warning) for warning in delivery.warnings),
        )

    def register(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        sub_executions: Iterable[Mapping[str, Any]] = (),
        logs: Iterable[Mapping[str, Any]] = (),
        registration_token: SecretStr | str | None = None,
        costs: Iterable[Mapping[str, Any]] = (),
    ) -> PublishedRegistration:
        """The same, from the event's own camelCase entries: what a python step is given as
        its `register` keyword, bound to its ids and its registration token."""
        token = (
            SecretStr(registration_token)
            if isinstance(registration_token, str)
            else registration_token
        )
        checked_subs = [
            normalize_sub_execution(entry, f"subExecutions[{index}]")
            for index, entry in enumerate(sub_executions)
        ]
        checked_logs = [normalize_log(entry, f"logs[{index}]") for index, entry in enumerate(logs)]
        dropped = [
            problem for _, problems in (*checked_subs, *checked_logs) for problem in problems
        ]
        if dropped:  # the producer's own call: refused whole, naming each field and its rule
            raise InvalidInputError("; ".join(dropped))
        command = PublishRegistrationCommand(
            workflow_execution_id=workflow_execution_id,
            pipeline_execution_id=pipeline_execution_id,
            sub_executions=tuple(sub for sub, _ in checked_subs if sub is not None),
            logs=tuple(log for log, _ in checked_logs if log is not None),
            costs=tuple(ReportedUsage.model_validate(entry) for entry in costs),
            registration_token=token,
        )
        return self.execute(command)


def registration_subscriber(
    register: Callable[[], RegisterPipelineExecution], credentials: RegistrationCredentials
) -> Callable[[dict[str, Any], str | None], Delivery]:
    """The in-process bus's subscriber for registration events: an event with the registration
    token of the step its source names goes to RegisterPipelineExecution at once, and its
    verdict comes back to the publisher; any other is refused before anything is read."""

    def deliver(envelope: dict[str, Any], credential: str | None) -> Delivery:
        event_id = envelope.get("id")
        try:
            command = RegisterPipelineExecutionCommand.model_validate(envelope)
        except ValidationError as invalid:
            return Delivery(event_id, accepted=False, reason=describe_validation_error(invalid))
        refusal = credential_refusal(command.source, credential, credentials)
        if refusal is not None:
            return Delivery(event_id, accepted=False, reason=refusal)
        result = register().execute(command)
        # accepted with fields dropped: the publisher hears which, and why
        reason = result.reason or "; ".join(result.dropped) or None
        return Delivery(event_id, accepted=result.accepted, reason=reason, warnings=result.warnings)

    return deliver


def credential_refusal(
    source: str, credential: str | None, credentials: RegistrationCredentials
) -> str | None:
    """Why the event's credential does not prove it comes from the step its source names, or
    None when it does. The reason names the step, never the token."""
    ids = source_ids(source)
    if ids is None:
        return None  # names no step: RegisterPipelineExecution refuses the source itself
    execution_id, pipeline_execution_id = ids
    step = f"step {pipeline_execution_id} of execution {execution_id}"
    if not credential:
        return (
            f"{step}: no registration token; a local step registers with the one its runner "
            "gave it (WFX_REGISTRATION_TOKEN, or its `register` keyword)"
        )
    if not credentials.verify(execution_id, pipeline_execution_id, credential):
        return f"{step}: the registration token is not this step's"
    return None
