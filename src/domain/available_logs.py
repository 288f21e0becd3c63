"""The logs a step offers to a reader (seed 000 availableLogs), and the scope rule for reading."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from domain.errors import NotFoundError
from domain.logs import LogKind, RegisteredLog

# The local runner writes a step's log to `<logs root>/<workflowExecutionId>/<id>.log`: as a log
# location that is group = the execution's folder, stream = the step's file.
LOCAL_STEP_LOG_SUFFIX = ".log"
LAMBDA_LOG_GROUP_PREFIX = "/aws/lambda/"
BATCH_LOG_GROUP = "/aws/batch/job"  # AWS Batch's default group for every job's container log


class LogReadStatus(StrEnum):
    """What reading one log source gave."""

    READ = "read"
    EMPTY = "empty"
    NOT_FOUND = "notFound"
    ACCESS_DENIED = "accessDenied"
    ERROR = "error"
    NOT_READ = "notRead"


class AvailableLog(BaseModel):
    """One log a step offers: its kind, its stable logId, where it is and which step it is of."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: LogKind
    log_id: str
    pipeline_execution_id: str
    log_group_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = ""
    log_stream_prefix: str = ""
    stage_name: str = ""
    label: str = ""
    source_type: str = ""

    @property
    def location(self) -> RegisteredLog:
        """The location as a RegisteredLog, whose `.location` is the de-duplication identity."""
        return RegisteredLog(
            log_group_arn=self.log_group_arn,
            log_group_name=self.log_group_name,
            log_stream_name=self.log_stream_name,
            log_stream_prefix=self.log_stream_prefix,
        )

    @property
    def group(self) -> str:
        return self.location.group


def available_log(kind: LogKind, pipeline_execution_id: str, entry: RegisteredLog) -> AvailableLog:
    """An entry of the step's list; its id from the one log-id encoding (domain.logs)."""
    return AvailableLog(
        kind=kind,
        log_id=entry.log_id(kind),
        pipeline_execution_id=pipeline_execution_id,
        **entry.model_dump(),
    )


def step_available_logs(
    pipeline_execution_id: str,
    registered: Iterable[RegisteredLog],
    invocation: RegisteredLog | None = None,
    state_machine_destinations: Iterable[RegisteredLog] = (),
) -> tuple[AvailableLog, ...]:
    """Registered entries in order, then the invocation log, then sub-state-machine destinations;
    an entry whose (kind, location) came before is left out."""
    candidates = [(LogKind.REGISTERED, entry) for entry in registered]
    if invocation is not None:
        candidates.append((LogKind.INVOCATION, invocation))
    candidates += [(LogKind.STATE_MACHINE, entry) for entry in state_machine_destinations]
    seen: set[tuple[LogKind, tuple[str, str, str]]] = set()
    listed: list[AvailableLog] = []
    for kind, entry in candidates:
        if not entry.group or (kind, entry.location) in seen:
            continue
        seen.add((kind, entry.location))
        listed.append(available_log(kind, pipeline_execution_id, entry))
    return tuple(listed)


def needs_execution_filter(entry: AvailableLog, registered: Sequence[RegisteredLog]) -> bool:
    """The scope rule (seed 000): True when a read of `entry` must be filtered to the execution.

    Only an exact stream may be read whole, and only when the step registered that very stream,
    or a prefix it starts with, in the same log group: whatever a step registered is its own.
    A group, a prefix, or a derived stream nothing covers can hold other executions' lines.
    """
    stream = entry.log_stream_name
    if not stream:
        return True
    for own in registered:
        if own.group != entry.group:
            continue
        if own.log_stream_name == stream:
            return False
        if own.log_stream_prefix and stream.startswith(own.log_stream_prefix):
            return False
    return True


def lambda_function_name(function: str) -> str:
    """`name`, or the name inside `arn:aws:lambda:R:A:function:name[:qualifier]`."""
    if function.startswith("arn:"):
        parts = function.split(":")
        return parts[6] if len(parts) > 6 else function
    return function


def local_step_log(workflow_execution_id: str, pipeline_execution_id: str) -> RegisteredLog:
    """The local runner's log file of a step, as a location relative to the logs root."""
    return RegisteredLog(
        log_group_name=workflow_execution_id,
        log_stream_name=f"{pipeline_execution_id}{LOCAL_STEP_LOG_SUFFIX}",
        source_type="custom",
    )


def state_machine_arn_of(execution_arn: str) -> str | None:
    """`arn:aws:states:R:A:execution:SM:NAME` -> `arn:aws:states:R:A:stateMachine:SM`."""
    parts = execution_arn.split(":")
    if len(parts) < 8 or parts[2] != "states" or parts[5] != "execution" or not parts[6]:
        return None
    return ":".join([*parts[:5], "stateMachine", parts[6]])


class LogSourceNotFoundError(NotFoundError):
    """A logId that is not one of the execution's available logs."""

    def __init__(self, log_id: str, workflow_execution_id: str) -> None:
        super().__init__(
            f"log id {log_id}: not an available log of execution {workflow_execution_id} "
            f"(`wfx executions show {workflow_execution_id}` lists them)"
        )
        self.log_id = log_id


def group_name_of(group: str) -> str:
    """A log group's name from its ARN (`arn:aws:logs:R:A:log-group:NAME[:*]`), or the name."""
    if not group.startswith("arn:"):
        return group
    name = group.split(":log-group:", 1)[-1]
    return name[:-2] if name.endswith(":*") else name
