"""Log locations and sub-executions a pipeline step registered (seed 000), as VAMS stores them."""

import hashlib
import json
import re
from enum import StrEnum
from typing import Self, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

MAX_REGISTERED_LOGS = 50
MAX_REGISTERED_SUB_EXECUTIONS = 50


class LogKind(StrEnum):
    """What offers a log (VAMS's kind names): part of its logId."""

    REGISTERED = "registered"
    INVOCATION = "invocation"
    SUB_STATE_MACHINE = "subStateMachine"
    DEADLINE_CLOUD_JOB = "deadlineCloudJob"


def _without_trailing_wildcard(group_arn: str | None) -> str:
    group_arn = group_arn or ""
    return group_arn[:-2] if group_arn.endswith(":*") else group_arn


def log_id(kind: str, group: str | None, stream: str | None = "", prefix: str | None = "") -> str:
    """The one place the log-id encoding lives (DESIGN §3): stable across processes and releases.
    A missing group hashes as "" rather than failing: a reader must never crash on a bad entry."""
    payload = json.dumps([kind, _without_trailing_wildcard(group), stream or "", prefix or ""])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


_Described = TypeVar("_Described", bound=BaseModel)


def _described_from(kept: _Described, later: _Described, names: tuple[str, ...]) -> _Described:
    """`kept` with those descriptive fields it has "" in taken from `later`, a later copy of the
    same entry (a redelivery, the same location under another kind)."""
    missing = {
        name: getattr(later, name)
        for name in names
        if not getattr(kept, name) and getattr(later, name)
    }
    return kept.model_copy(update=missing) if missing else kept


class LogLocation(BaseModel):
    """Where a log is (its group by ARN or name, a stream or a stream prefix) and what describes
    it; "" for what its producer did not send."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    log_group_arn: str = ""
    log_group_name: str = ""
    log_stream_name: str = ""
    log_stream_prefix: str = ""
    stage_name: str = ""
    label: str = ""
    source_type: str = ""

    @property
    def group(self) -> str:
        return _without_trailing_wildcard(self.log_group_arn) or self.log_group_name

    def described_from(self, later: Self) -> Self:
        """The stageName, label and sourceType this lacks, from `later`."""
        return _described_from(self, later, ("stage_name", "label", "source_type"))


class RegisteredLog(LogLocation):
    """A log location a pipeline reported."""

    @property
    def location(self) -> tuple[str, str, str]:
        """Identity for de-duplication: (group ARN without ':*', else name; stream; prefix)."""
        return (self.group, self.log_stream_name, self.log_stream_prefix)

    def log_id(self, kind: LogKind | str = LogKind.REGISTERED) -> str:
        return log_id(str(kind), self.group, self.log_stream_name, self.log_stream_prefix)


# The resourceTypes VAMS names (and stops); wfx adds its local runner's processes.
STEP_FUNCTIONS_EXECUTION = "stepFunctionsExecution"
BATCH_JOB = "batchJob"
DEADLINE_CLOUD_JOB = "deadlineCloudJob"
ECS_TASK = "ecsTask"
LOCAL_PROCESS = "localProcess"

# wfx's resourceTypes before it stored VAMS's typed locators, and what each is now.
LEGACY_RESOURCE_TYPES = {
    "stepFunctions": STEP_FUNCTIONS_EXECUTION,
    "batch": BATCH_JOB,
    "deadline": DEADLINE_CLOUD_JOB,
}

# The keys that locate a sub-process (VAMS's, then wfx's local process id, a name VAMS does not
# use); stageName and label only describe it.
LOCATOR_FIELDS = (
    "state_machine_arn",
    "execution_arn",
    "job_arn",
    "job_id",
    "task_arn",
    "cluster_arn",
    "farm_id",
    "queue_id",
    "arn",
    "local_process_id",
)

# farm-<id>/queue-<id>/job-<id>, or the job ARN
# arn:<partition>:deadline:<region>:<account>:farm/farm-<id>/queue/queue-<id>/job/job-<id>
_DEADLINE_PATH = re.compile(r"^(farm-[\w-]+)/(queue-[\w-]+)/(job-[\w-]+)$")
_DEADLINE_ARN = re.compile(
    r"^arn:[\w-]+:deadline:[\w-]*:\d*:farm/(farm-[\w-]+)/queue/(queue-[\w-]+)/job/(job-[\w-]+)$"
)


def parse_deadline_job(resource_id: str) -> tuple[str, str, str] | None:
    """(farmId, queueId, jobId) of `farm-../queue-../job-..` or a job ARN, else None."""
    match = _DEADLINE_PATH.match(resource_id) or _DEADLINE_ARN.match(resource_id)
    return (match.group(1), match.group(2), match.group(3)) if match else None


class RegisteredSubExecution(BaseModel):
    """A typed locator of a process a step started, as VAMS stores it (DESIGN §3): the
    resourceType and whichever locator keys apply; "" for a key it does not carry."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        defer_build=True,
    )

    resource_type: str
    state_machine_arn: str = ""
    execution_arn: str = ""
    job_arn: str = ""
    job_id: str = ""
    task_arn: str = ""
    cluster_arn: str = ""
    farm_id: str = ""
    queue_id: str = ""
    arn: str = ""
    local_process_id: str = ""
    stage_name: str = ""
    label: str = ""

    @classmethod
    def of_resource(
        cls, resource_type: str, resource_id: str, label: str = ""
    ) -> "RegisteredSubExecution":
        """wfx's former `{resourceType, resourceId}` as a typed locator: the id goes to the key
        its type locates by; a type wfx never named keeps its id as the generic `arn`."""
        kind = LEGACY_RESOURCE_TYPES.get(resource_type, resource_type)
        locator: dict[str, str]
        if kind == STEP_FUNCTIONS_EXECUTION:
            locator = {"execution_arn": resource_id}
        elif kind == BATCH_JOB:
            locator = {"job_arn" if resource_id.startswith("arn:") else "job_id": resource_id}
        elif kind == DEADLINE_CLOUD_JOB:
            ids = parse_deadline_job(resource_id)
            locator = (
                dict(zip(("farm_id", "queue_id", "job_id"), ids, strict=True))
                if ids
                else {"arn" if resource_id.startswith("arn:") else "job_id": resource_id}
            )
        elif kind == ECS_TASK:
            locator = {"task_arn": resource_id}
        elif kind == LOCAL_PROCESS:
            locator = {"local_process_id": resource_id}
        else:
            locator = {"arn": resource_id}
        return cls(resource_type=kind, label=label, **locator)

    @property
    def locator(self) -> tuple[tuple[str, str], ...]:
        """The locator keys it carries, in a fixed order: with the type, its identity."""
        return tuple((name, getattr(self, name)) for name in LOCATOR_FIELDS if getattr(self, name))

    @property
    def identity(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return (self.resource_type, self.locator)

    def described_from(self, later: Self) -> Self:
        """The stageName and label this lacks, from `later`."""
        return _described_from(self, later, ("stage_name", "label"))

    @property
    def resource_id(self) -> str:
        """The one id it is shown and recorded by (an abort's stop record): what `of_resource`
        reads back to the same locator for the types wfx stops."""
        if self.resource_type == DEADLINE_CLOUD_JOB and self.farm_id and self.queue_id:
            return f"{self.farm_id}/{self.queue_id}/{self.job_id}"
        preferred = {
            STEP_FUNCTIONS_EXECUTION: ("execution_arn",),
            BATCH_JOB: ("job_id", "job_arn"),
            ECS_TASK: ("task_arn",),
            LOCAL_PROCESS: ("local_process_id",),
        }.get(self.resource_type, ())
        for name in (*preferred, "arn", *LOCATOR_FIELDS):
            if getattr(self, name):
                return str(getattr(self, name))
        return ""
