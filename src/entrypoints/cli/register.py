"""`wfx pipelines register`: a running step (a shell script, say) registers what it started."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from domain.errors import InvalidInputError
from domain.redaction import redact
from domain.registration import LOG_SOURCE_TYPES
from entrypoints.cli.errors import EXIT_FAILED_RUN, EXIT_SERVICE_UNAVAILABLE

if TYPE_CHECKING:
    from pydantic import BaseModel

    from application.use_cases.publish_registration import (
        PublishRegistrationCommand,
    )
    from entrypoints.container import Container


@dataclass(frozen=True)
class RegisterOptions:
    """The command line as given ("" for an option left out)."""

    execution_id: str
    pipeline_execution_id: str
    log_group_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = ""
    log_stream_prefix: str = ""
    stage_name: str = ""
    label: str = ""
    source_type: str = ""
    sub_execution_type: str = ""
    sub_execution_id: str = ""
    registration_token: str = field(default="", repr=False)  # a secret: never printed


E = TypeVar("E", bound="BaseModel")
_OPTION_OF_FIELD = {"resource_type": "--sub-execution-type", "resource_id": "--sub-execution-id"}


def _entry(model: type[E], **values: str) -> E:
    """One entry of the event; a value breaking the event's rules is refused naming its option."""
    from pydantic import ValidationError

    try:
        return model(**values)
    except ValidationError as invalid:
        problem = invalid.errors()[0]
        field = str(problem["loc"][0]) if problem["loc"] else ""
        option = _OPTION_OF_FIELD.get(field, "--" + field.replace("_", "-"))
        raise InvalidInputError(f"{option}: {problem['msg']}") from None


def registration_command(options: RegisterOptions) -> PublishRegistrationCommand:
    """The publish command, or InvalidInputError naming the option and the rule."""
    from application.use_cases.publish_registration import PublishRegistrationCommand
    from application.use_cases.register_pipeline_execution import (
        LogRegistration,
        SubExecutionRegistration,
    )

    if options.source_type and options.source_type not in LOG_SOURCE_TYPES:
        raise InvalidInputError(
            f"--source-type: must be one of {', '.join(LOG_SOURCE_TYPES)}, "
            f"got {options.source_type!r}"
        )
    if bool(options.sub_execution_type) != bool(options.sub_execution_id):
        raise InvalidInputError("--sub-execution-type and --sub-execution-id: give both or neither")
    has_group = bool(options.log_group_arn or options.log_group_name)
    log_only = {
        "--log-stream-name": options.log_stream_name,
        "--log-stream-prefix": options.log_stream_prefix,
        "--stage-name": options.stage_name,
        "--source-type": options.source_type,
    }
    orphans = [name for name, value in log_only.items() if value]
    if orphans and not has_group:
        raise InvalidInputError(
            f"{', '.join(orphans)}: describe a log, which needs --log-group-arn or --log-group-name"
        )
    if not has_group and not options.sub_execution_type:
        raise InvalidInputError(
            "nothing to register: give --log-group-arn or --log-group-name, and/or "
            "--sub-execution-type with --sub-execution-id"
        )
    logs: tuple[LogRegistration, ...] = ()
    if has_group:
        logs = (
            _entry(
                LogRegistration,
                log_group_arn=options.log_group_arn,
                log_group_name=options.log_group_name,
                log_stream_name=options.log_stream_name,
                log_stream_prefix=options.log_stream_prefix,
                stage_name=options.stage_name,
                label=options.label,
                source_type=options.source_type,
            ),
        )
    sub_executions: tuple[SubExecutionRegistration, ...] = ()
    if options.sub_execution_type:
        sub_executions = (
            _entry(
                SubExecutionRegistration,
                resource_type=options.sub_execution_type,
                resource_id=options.sub_execution_id,
                label=options.label,
            ),
        )
    from pydantic import SecretStr

    return PublishRegistrationCommand(
        workflow_execution_id=options.execution_id,
        pipeline_execution_id=options.pipeline_execution_id,
        sub_executions=sub_executions,
        logs=logs,
        registration_token=SecretStr(options.registration_token)
        if options.registration_token
        else None,
    )


def register(
    container: Callable[[], Container], options: RegisterOptions, json_output: bool
) -> None:
    """Publish on the configured bus; refused on the local bus exits 1 with the reason (which
    names the step, and never the token)."""
    from application.ports import EventNotPublishedError

    command = registration_command(options)  # bad input fails before anything is opened
    try:
        published = container().publish_registration().execute(command)
    except EventNotPublishedError as failed:
        print(f"error: {redact(str(failed))}", file=sys.stderr)
        raise SystemExit(EXIT_SERVICE_UNAVAILABLE) from failed
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import RegistrationResponse

        sys.stdout.write(dump_json(RegistrationResponse.of(published).dump()) + "\n")
    elif published.accepted is None:
        sys.stdout.write(f"published {published.event_id} on {published.bus}: {published.source}\n")
    elif published.accepted:
        sys.stdout.write(f"accepted: {published.source}\n")
    for warning in published.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if published.accepted is False:
        print(f"error: registration refused: {redact(published.reason or '')}", file=sys.stderr)
        raise SystemExit(EXIT_FAILED_RUN)
