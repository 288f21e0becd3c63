"""The logs a step offers to a reader (seed 000 availableLogs), and the scope rule for reading."""

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum

from domain.errors import NotFoundError
from domain.logs import LogKind, LogLocation, RegisteredLog

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


class AvailableLog(LogLocation):
    """One log a step offers: its kind, its stable logId, where it is and which step it is of."""

    kind: LogKind
    log_id: str
    pipeline_execution_id: str


# A Deadline Cloud queue's session logs (as VAMS offers them): one group per farm and queue,
# shared by every job of the queue, one stream per session.
DEADLINE_SESSION_STREAM_PREFIX = "session-"
DEADLINE_JOB_SOURCE_LABEL = "Deadline Cloud job sessions"
DEADLINE_SOURCE_TYPE = "deadlineCloud"
# The group-name shapes a sourceType is derived from when none was registered (VAMS's rule)
_STATE_MACHINE_GROUP = re.compile(r"VAMS[Ss]tateMachine-")


def derive_log_group_arn(name: str, reference_arn: str) -> str:
    """The ARN of group `name` in the partition, region and account of `reference_arn` (the run's
    own log group: same account); "" when either is unusable."""
    parts = reference_arn.split(":") if reference_arn.startswith("arn:") else []
    if not name or len(parts) < 5 or not (parts[1] and parts[3] and parts[4]):
        return ""
    return f"arn:{parts[1]}:logs:{parts[3]}:{parts[4]}:log-group:{name}"


def derive_source_type(group_name: str) -> str:
    if group_name.startswith(LAMBDA_LOG_GROUP_PREFIX):
        return "lambda"
    if _STATE_MACHINE_GROUP.search(group_name):
        return "stateMachine"
    if group_name == BATCH_LOG_GROUP or group_name.startswith(BATCH_LOG_GROUP + "/"):
        return "batch"
    if group_name.startswith("/aws/vendedlogs/Pipelines/"):
        return "container"
    return "custom"


def derive_label(group_name: str) -> str:
    """The group name's last path segment."""
    return group_name.rstrip("/").split("/")[-1]


def deadline_job_log(farm_id: str, queue_id: str) -> RegisteredLog:
    """The session logs of a Deadline Cloud job: its queue's group, the session streams."""
    return RegisteredLog(
        log_group_name=f"/aws/deadline/{farm_id}/{queue_id}",
        log_stream_prefix=DEADLINE_SESSION_STREAM_PREFIX,
        label=DEADLINE_JOB_SOURCE_LABEL,
        source_type=DEADLINE_SOURCE_TYPE,
    )


def _resolved(entry: RegisteredLog, reference_arn: str) -> RegisteredLog:
    """The entry with its group as an ARN: as given, else derived from its name and the run's
    log group ARN; a name stays a name when there is no ARN to derive from (the local runner's
    log files are not in CloudWatch)."""
    arn = entry.log_group_arn or derive_log_group_arn(entry.log_group_name, reference_arn)
    name = group_name_of(arn) if arn else entry.log_group_name
    return entry.model_copy(update={"log_group_arn": arn, "log_group_name": name})


def step_available_logs(
    pipeline_execution_id: str,
    registered: Iterable[RegisteredLog],
    invocation: RegisteredLog | None = None,
    state_machine_destinations: Iterable[RegisteredLog] = (),
    deadline_jobs: Iterable[RegisteredLog] = (),
    reference_log_group_arn: str = "",
) -> tuple[AvailableLog, ...]:
    """Every log of one step, as VAMS lists them: the invocation log, Deadline job sessions, the
    registered entries in order, then sub-state-machine destinations. A group given by name is
    listed (and hashed) by the ARN derived from the run's log group ARN. One location is listed
    once across kinds: the first kind is kept and later copies fill in the stageName, label or
    sourceType it lacks; a sourceType and label still missing are derived from the group name.
    An entry without a group is left out."""
    candidates = [(LogKind.INVOCATION, invocation)] if invocation is not None else []
    candidates += [(LogKind.DEADLINE_CLOUD_JOB, entry) for entry in deadline_jobs]
    candidates += [(LogKind.REGISTERED, entry) for entry in registered]
    candidates += [(LogKind.SUB_STATE_MACHINE, entry) for entry in state_machine_destinations]
    kept: dict[tuple[str, str, str], tuple[LogKind, RegisteredLog]] = {}
    for kind, entry in candidates:
        resolved = _resolved(entry, reference_log_group_arn)
        if not resolved.group:
            continue
        known = kept.get(resolved.location)
        kept[resolved.location] = (
            (kind, resolved) if known is None else (known[0], known[1].described_from(resolved))
        )
    listed: list[AvailableLog] = []
    for kind, entry in kept.values():
        name = group_name_of(entry.group)
        described = entry.model_copy(
            update={
                "source_type": entry.source_type or derive_source_type(name),
                "label": entry.label or derive_label(name),
            }
        )
        listed.append(
            AvailableLog(
                kind=kind,
                log_id=described.log_id(kind),
                pipeline_execution_id=pipeline_execution_id,
                **described.model_dump(),
            )
        )
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
        # a group registered by name is listed by its derived ARN: compare the names
        if group_name_of(own.group) != group_name_of(entry.group):
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
