"""Which registered sub-processes a deployment's roles may stop: the stack's SubProcess*
parameters, passed to its functions as WFX_SUB_PROCESSES. A registration naming one outside them
is dropped, so that no run records a child its abort or error handler would be denied stopping."""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.errors import InvalidInputError
from domain.logs import (
    BATCH_JOB,
    DEADLINE_CLOUD_JOB,
    STEP_FUNCTIONS_EXECUTION,
    RegisteredSubExecution,
    parse_deadline_job,
)

# The stack's parameters (adapters/aws/stack/parameters.py), named by every refusal.
STATE_MACHINES_PARAMETER = "SubProcessStateMachinePattern"
BATCH_JOBS_PARAMETER = "SubProcessBatchJobs"
DEADLINE_FARMS_PARAMETER = "SubProcessDeadlineFarmPattern"
BATCH_NONE, BATCH_ANY = "none", "any"
# A state machine name's alphabet with IAM's wildcard, as EarlierStateMachinePattern; `*` alone
# is every machine of the account, the reach wfx had before these parameters.
STATE_MACHINE_PATTERN = r"\*|[0-9A-Za-z_-][0-9A-Za-z_*-]{0,79}"
# farm-<32 hex>, or a pattern of farm ids (`*` for every farm of the account)
DEADLINE_FARM_PATTERN = r"\*|[0-9A-Za-z_-][0-9A-Za-z_*-]{0,63}"
_KEYS = ("stateMachines", "batchJobs", "deadlineFarms", "region", "account")
_KINDS_STOPPED = (STEP_FUNCTIONS_EXECUTION, BATCH_JOB, DEADLINE_CLOUD_JOB)
_ARN_FIELDS = (
    ("executionArn", "execution_arn"),
    ("stateMachineArn", "state_machine_arn"),
    ("jobArn", "job_arn"),
    ("arn", "arn"),
)


def _matcher(pattern: str) -> re.Pattern[str]:
    """IAM's `*` (any characters, none too); every other character as itself."""
    return re.compile(".*".join(re.escape(part) for part in pattern.split("*")))


@dataclass(frozen=True)
class SubProcessReach:
    """Name patterns of the state machines whose runs (beyond the stack's own), and the Deadline
    farms whose jobs, the roles may stop; whether they may terminate Batch jobs (IAM cannot tell
    one queue's jobs from another's)."""

    state_machines: tuple[str, ...] = ()
    batch_jobs: bool = False
    deadline_farms: tuple[str, ...] = ()
    # the stack's region and account, the only ones its roles name ("": not checked)
    region: str = ""
    account: str = ""

    def refusal(self, sub: RegisteredSubExecution, where: str, own_prefix: str) -> str | None:
        """Why the deployment's roles could not stop `sub` (naming the field and the parameter),
        or None when they could, or when it is of a kind they never stop."""
        if sub.resource_type in _KINDS_STOPPED:
            elsewhere = self._elsewhere(sub, where)
            if elsewhere is not None:
                return elsewhere
        if sub.resource_type == STEP_FUNCTIONS_EXECUTION:
            return self._state_machine_refusal(sub, where, own_prefix)
        if sub.resource_type == BATCH_JOB and not self.batch_jobs:
            return (
                f"{where}.resourceType: a Batch job, which this deployment's roles may not "
                f"terminate ({BATCH_JOBS_PARAMETER} is {BATCH_NONE}); entry dropped"
            )
        if sub.resource_type == DEADLINE_CLOUD_JOB:
            return self._farm_refusal(sub, where)
        return None

    def _elsewhere(self, sub: RegisteredSubExecution, where: str) -> str | None:
        """An ARN of another region or account than the stack's: its roles name neither."""
        for key, name in _ARN_FIELDS:
            parts = str(getattr(sub, name)).split(":")
            if len(parts) < 6 or parts[0] != "arn":
                continue
            region, account = parts[3], parts[4]
            if (self.region and region != self.region) or (
                self.account and account != self.account
            ):
                return (
                    f"{where}.{key}: of region {region!r} and account {account!r}, where this "
                    "deployment's roles stop nothing (they stop in its own region and account "
                    "only); entry dropped"
                )
        return None

    def _state_machine_refusal(
        self, sub: RegisteredSubExecution, where: str, own_prefix: str
    ) -> str | None:
        for key, arn in (
            ("executionArn", sub.execution_arn),
            ("stateMachineArn", sub.state_machine_arn),
        ):
            name = _state_machine_name(arn)
            if name is None:
                continue
            if name.startswith(own_prefix) or _matches(name, self.state_machines):
                return None
            allowed = ", ".join(self.state_machines) or "empty"
            return (
                f"{where}.{key}: a run of state machine {name}, which this deployment's roles "
                f"may not stop (they stop runs of {own_prefix}* and of "
                f"{STATE_MACHINES_PARAMETER}: {allowed}); entry dropped"
            )
        return None

    def _farm_refusal(self, sub: RegisteredSubExecution, where: str) -> str | None:
        ids = parse_deadline_job(sub.job_arn or sub.arn)
        farm = sub.farm_id or (ids[0] if ids else "")
        if not farm or _matches(farm, self.deadline_farms):
            return None
        key = "farmId" if sub.farm_id else ("jobArn" if sub.job_arn else "arn")
        allowed = ", ".join(self.deadline_farms) or "empty"
        return (
            f"{where}.{key}: a job of Deadline Cloud farm {farm}, which this deployment's roles "
            f"may not cancel ({DEADLINE_FARMS_PARAMETER}: {allowed}); entry dropped"
        )


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(_matcher(pattern).fullmatch(name) for pattern in patterns)


def _state_machine_name(arn: str) -> str | None:
    """The machine's name in a state machine's or a run's ARN, else None."""
    parts = arn.split(":")
    if len(parts) < 7 or parts[2] != "states":
        return None
    if parts[5] not in ("stateMachine", "execution", "express") or not parts[6]:
        return None
    return parts[6]


def parse_sub_process_reach(value: str, source: str) -> SubProcessReach:
    """`stateMachines=P,..;batchJobs=none|any;deadlineFarms=F,..;region=R;account=A`, each part
    optional (an empty list allows nothing, no region or account any); InvalidInputError naming
    `source`, the part and its rule."""
    parts: dict[str, str] = {}
    for item in value.split(";"):
        key, equals, listed = item.strip().partition("=")
        if key not in _KEYS or not equals:
            raise InvalidInputError(
                f"{source}: {item.strip()!r} is not one of {', '.join(k + '=' for k in _KEYS)}"
            )
        parts[key] = listed.strip()
    batch = parts.get("batchJobs") or BATCH_NONE
    if batch not in (BATCH_NONE, BATCH_ANY):
        raise InvalidInputError(
            f"{source}: batchJobs must be {BATCH_NONE} or {BATCH_ANY}, got {batch!r}"
        )
    return SubProcessReach(
        state_machines=_patterns(parts.get("stateMachines", ""), STATE_MACHINE_PATTERN, source),
        batch_jobs=batch == BATCH_ANY,
        deadline_farms=_patterns(parts.get("deadlineFarms", ""), DEADLINE_FARM_PATTERN, source),
        region=_checked(parts.get("region", ""), r"[a-z]{2}(-[a-z]+)+-\d", "region", source),
        account=_checked(parts.get("account", ""), r"\d{12}", "account", source),
    )


def _checked(value: str, rule: str, part: str, source: str) -> str:
    if value and re.fullmatch(rule, value) is None:
        raise InvalidInputError(f"{source}: {part} {value!r} is not an AWS {part}")
    return value


def _patterns(listed: str, rule: str, source: str) -> tuple[str, ...]:
    patterns = tuple(pattern.strip() for pattern in listed.split(",") if pattern.strip())
    for pattern in patterns:
        if re.fullmatch(rule, pattern) is None:
            raise InvalidInputError(
                f"{source}: {pattern!r} is not a name pattern (letters, digits, _ and -, with * "
                "as the wildcard, starting with a name's character; * alone for every one)"
            )
    return patterns
