"""`wfx pipelines register`: a running step (a shell script, say) registers what it started."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from domain.errors import InvalidInputError
from domain.redaction import redact
from domain.registration import LOG_SOURCE_TYPES
from entrypoints.cli.errors import EXIT_FAILED_RUN, EXIT_SERVICE_UNAVAILABLE

if TYPE_CHECKING:
    from application.use_cases.publish_registration import (
        PublishRegistrationCommand,
    )
    from entrypoints.container import Container


T = TypeVar("T")


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


# the event fields an option sets (a sub-execution's id is converted to its locator key)
_OPTION_OF_FIELD = {
    "logGroupArn": "--log-group-arn",
    "logGroupName": "--log-group-name",
    "logStreamName": "--log-stream-name",
    "logStreamPrefix": "--log-stream-prefix",
    "stageName": "--stage-name",
    "label": "--label",
    "sourceType": "--source-type",
    "resourceType": "--sub-execution-type",
}


def _checked(entry: T | None, dropped: tuple[str, ...]) -> T:
    """The entry, or InvalidInputError naming the option whose value breaks the event's rule:
    what a handler would drop is refused here, before anything is published."""
    if dropped or entry is None:
        where, _, rule = dropped[0].partition(": ")
        entry_name, _, field = where.partition(".")
        whole = "--log-group-name" if entry_name.startswith("logs") else "--sub-execution-id"
        option = _OPTION_OF_FIELD.get(field, whole)
        raise InvalidInputError(f"{option}: {re.sub(r'; (entry )?dropped$', '', rule)}")
    return entry


def _refuse_bad_combinations(options: RegisterOptions) -> None:
    """InvalidInputError naming the options when they do not describe one log and/or one
    sub-execution."""
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


def registration_command(options: RegisterOptions) -> PublishRegistrationCommand:
    """The publish command, or InvalidInputError naming the option and the rule."""
    from application.use_cases.publish_registration import PublishRegistrationCommand
    from domain.logs import RegisteredLog, RegisteredSubExecution
    from domain.registration import normalize_log, normalize_sub_execution

    _refuse_bad_combinations(options)
    has_group = bool(options.log_group_arn or options.log_group_name)
    logs: tuple[RegisteredLog, ...] = ()
    if has_group:
        log = {
            "logGroupArn": options.log_group_arn,
            "logGroupName": options.log_group_name,
            "logStreamName": options.log_stream_name,
            "logStreamPrefix": options.log_stream_prefix,
            "stageName": options.stage_name,
            "label": options.label,
            "sourceType": options.source_type,
        }
        logs = (_checked(*normalize_log(log)),)
    sub_executions: tuple[RegisteredSubExecution, ...] = ()
    if options.sub_execution_type:
        sub = {
            "resourceType": options.sub_execution_type,
            "resourceId": options.sub_execution_id,
            "label": options.label,
        }
        sub_executions = (_checked(*normalize_sub_execution(sub)),)
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
    from application.ports.event_bus import EventNotPublishedError

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
        if published.reason:  # accepted with fields dropped
            print(f"warning: {redact(published.reason)}", file=sys.stderr)
    for warning in published.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if published.accepted is False:
        print(f"error: registration refused: {redact(published.reason or '')}", file=sys.stderr)
        raise SystemExit(EXIT_FAILED_RUN)
