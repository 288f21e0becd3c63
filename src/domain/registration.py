"""Sub-process registration rules (seed 000): whose event it is, de-duplication, merge, caps."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from domain.errors import InvalidInputError
from domain.logs import (
    MAX_REGISTERED_LOGS,
    MAX_REGISTERED_SUB_EXECUTIONS,
    STEP_FUNCTIONS_EXECUTION,
    RegisteredLog,
    RegisteredSubExecution,
)
from domain.names import MAX_NAME_LENGTH

# {eventSourcePrefix}.execution.{executionId}.pipeline.{pipelineExecutionId}; ids hold no dots.
_SOURCE = re.compile(r".+\.execution\.(?P<execution>[^.]+)\.pipeline\.(?P<pipeline>[^.]+)")

REGISTRATION_DETAIL_TYPE = "pipeline.execution.register"
DEFAULT_EVENT_SOURCE_PREFIX = "wfx"
# What a registeredLogs entry's sourceType may be (seed 000); "" when the producer sent none.
LOG_SOURCE_TYPES = ("stateMachine", "lambda", "batch", "ecs", "container", "custom")
UNKNOWN_SOURCE_TYPE = "custom"  # what an unrecognised sourceType is stored as (as VAMS does)
# Dot-separated words; EventBridge refuses a PutEvents source starting with "aws.", and the
# whole source must stay within its 256 characters.
_PREFIX = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")
MAX_SOURCE_LENGTH = 256
# What leaves room in a source for the longest execution and step ids (MAX_NAME_LENGTH each).
MAX_SOURCE_PREFIX_LENGTH = MAX_SOURCE_LENGTH - len(".execution..pipeline.") - 2 * MAX_NAME_LENGTH


def source_ids(source: str) -> tuple[str, str] | None:
    """(executionId, pipelineExecutionId) a registration event's source names, or None."""
    found = _SOURCE.fullmatch(source)
    if found is None:
        return None
    return found["execution"], found["pipeline"]


def check_source_prefix(prefix: str, field: str = "eventSourcePrefix") -> str:
    """The prefix when it can start a registration source; InvalidInputError naming `field`."""
    if not _PREFIX.fullmatch(prefix):
        raise InvalidInputError(
            f"{field}: must be dot-separated words of letters, digits, '-' or '_', got {prefix!r}"
        )
    if prefix == "aws" or prefix.startswith("aws."):
        raise InvalidInputError(f"{field}: EventBridge reserves sources starting with 'aws.'")
    if len(prefix) > MAX_SOURCE_PREFIX_LENGTH:
        raise InvalidInputError(
            f"{field}: must be at most {MAX_SOURCE_PREFIX_LENGTH} characters, so that a source "
            f"with the longest ids fits EventBridge's {MAX_SOURCE_LENGTH}, got {len(prefix)}"
        )
    return prefix


def compose_source(prefix: str, execution_id: str, pipeline_execution_id: str) -> str:
    """`{prefix}.execution.{executionId}.pipeline.{pipelineExecutionId}`: the one place a
    registration event's source is built; `source_ids` reads back what this composes."""
    check_source_prefix(prefix)
    for field, value in (
        ("workflowExecutionId", execution_id),
        ("pipelineExecutionId", pipeline_execution_id),
    ):
        if not value or "." in value:
            raise InvalidInputError(f"{field}: must be a non-empty id without dots, got {value!r}")
    source = f"{prefix}.execution.{execution_id}.pipeline.{pipeline_execution_id}"
    if len(source) > MAX_SOURCE_LENGTH:
        raise InvalidInputError(
            f"source: EventBridge takes at most {MAX_SOURCE_LENGTH} characters, got {len(source)}"
        )
    return source


def registration_event_pattern(prefix: str) -> dict[str, list[object]]:
    """The EventBridge pattern routing every registration event under `prefix` to the handler;
    the handler itself checks that the source names the detail's own step."""
    check_source_prefix(prefix)
    return {
        "source": [{"prefix": f"{prefix}.execution."}],
        "detail-type": [REGISTRATION_DETAIL_TYPE],
    }


def source_matches(source: str, pipeline_execution_id: str) -> bool:
    """True when the source ends in `.pipeline.{pipelineExecutionId}` of a well-formed source:
    a pipeline may attach resources to its own execution alone."""
    ids = source_ids(source)
    return ids is not None and bool(pipeline_execution_id) and ids[1] == pipeline_execution_id


def merge_logs(
    stored: Iterable[RegisteredLog], incoming: Iterable[RegisteredLog]
) -> tuple[RegisteredLog, ...]:
    """Stored entries in order, then new locations, at most MAX_REGISTERED_LOGS; a known location
    gains the stageName, label or sourceType it lacked, and extra new ones are dropped."""
    merged: dict[tuple[str, str, str], RegisteredLog] = {}
    for log in stored:
        known = merged.get(log.location)
        merged[log.location] = log if known is None else known.described_from(log)
    for log in incoming:
        known = merged.get(log.location)
        if known is not None:
            merged[log.location] = known.described_from(log)
        elif len(merged) < MAX_REGISTERED_LOGS:
            merged[log.location] = log
    return tuple(merged.values())[:MAX_REGISTERED_LOGS]


def merge_sub_executions(
    stored: Iterable[RegisteredSubExecution], incoming: Iterable[RegisteredSubExecution]
) -> tuple[RegisteredSubExecution, ...]:
    """As merge_logs, with identity (resourceType, locator keys) and the stageName and label
    merged in."""
    merged: dict[object, RegisteredSubExecution] = {}
    for entry in stored:
        identity = entry.identity
        known = merged.get(identity)
        merged[identity] = entry if known is None else known.described_from(entry)
    for entry in incoming:
        identity = entry.identity
        known = merged.get(identity)
        if known is not None:
            merged[identity] = known.described_from(entry)
        elif len(merged) < MAX_REGISTERED_SUB_EXECUTIONS:
            merged[identity] = entry
    return tuple(merged.values())[:MAX_REGISTERED_SUB_EXECUTIONS]


# -- field-level validation of a registration event (as VAMS: a bad field is dropped) -----------


@dataclass(frozen=True)
class FieldRule:
    """What a value of one event field must be: a pattern, and the rule in words for a report."""

    pattern: re.Pattern[str]
    text: str

    def allows(self, value: object) -> bool:
        return (
            isinstance(value, str)
            and self.pattern.fullmatch(value) is not None
            # a lone surrogate (JSON's `"\ud800"`) matches `\S` and `[^...]`, but is no text:
            # no store holds it, no answer that carried it could be encoded
            and _SURROGATE.search(value) is None
        )


_SURROGATE = re.compile("[\ud800-\udfff]")


_PRINTABLE = r"[^\x00-\x1f\x7f]"
ARN_RULE = FieldRule(
    re.compile(r"arn:[\w-]+:[\w-]+:[\w-]*:\d*:\S{1,1900}"),
    "an ARN (arn:partition:service:region:account:resource)",
)
ID_RULE = FieldRule(re.compile(r"[-_a-zA-Z0-9]{3,63}"), "3 to 63 letters, digits, '-' or '_'")
PROCESS_ID_RULE = FieldRule(re.compile(r"[1-9][0-9]{0,9}"), "a process id (a positive number)")
LOG_GROUP_ARN_RULE = FieldRule(
    re.compile(r"arn:[\w-]+:logs:[\w-]+:\d{12}:log-group:[.\-_/#A-Za-z0-9]{1,512}(:\*)?"),
    "a log group ARN (arn:partition:logs:region:account:log-group:name)",
)
LOG_GROUP_NAME_RULE = FieldRule(
    re.compile(r"[.\-_/#A-Za-z0-9]{1,512}"), "1 to 512 of letters, digits and . - _ / #"
)
LOG_STREAM_RULE = FieldRule(
    re.compile(r"[^:*\x00-\x1f\x7f]{1,512}"), "1 to 512 characters, without ':', '*' or controls"
)
STAGE_NAME_RULE = FieldRule(
    re.compile(f"{_PRINTABLE}{{1,80}}"), "a state name: 1 to 80 characters, no controls"
)
LABEL_RULE = FieldRule(re.compile(f"{_PRINTABLE}{{1,256}}"), "1 to 256 characters, no controls")

# camelCase event key -> (model field, rule); VAMS's locator keys, then wfx's local process id
SUB_EXECUTION_LOCATOR_RULES: dict[str, tuple[str, FieldRule]] = {
    "stateMachineArn": ("state_machine_arn", ARN_RULE),
    "executionArn": ("execution_arn", ARN_RULE),
    "jobArn": ("job_arn", ARN_RULE),
    "jobId": ("job_id", ID_RULE),
    "taskArn": ("task_arn", ARN_RULE),
    "clusterArn": ("cluster_arn", ARN_RULE),
    "farmId": ("farm_id", ID_RULE),
    "queueId": ("queue_id", ID_RULE),
    "arn": ("arn", ARN_RULE),
    "localProcessId": ("local_process_id", PROCESS_ID_RULE),
}
_DESCRIPTION_RULES: dict[str, tuple[str, FieldRule]] = {
    "stageName": ("stage_name", STAGE_NAME_RULE),
    "label": ("label", LABEL_RULE),
}
LOG_FIELD_RULES: dict[str, tuple[str, FieldRule]] = {
    "logGroupArn": ("log_group_arn", LOG_GROUP_ARN_RULE),
    "logGroupName": ("log_group_name", LOG_GROUP_NAME_RULE),
    "logStreamName": ("log_stream_name", LOG_STREAM_RULE),
    "logStreamPrefix": ("log_stream_prefix", LOG_STREAM_RULE),
    **_DESCRIPTION_RULES,
}
# wfx's former entry: {resourceType, resourceId, label}
_LEGACY_KEYS = frozenset({"resourceType", "resourceId", "label"})


def _checked_fields(
    raw: Mapping[str, object],
    rules: Mapping[str, tuple[str, FieldRule]],
    where: str,
    dropped: list[str],
) -> dict[str, str]:
    """The fields of `raw` that keep their rule; each one that does not is named in `dropped`."""
    kept: dict[str, str] = {}
    for key, (name, rule) in rules.items():
        value = raw.get(key)
        if value in (None, ""):
            continue
        if rule.allows(value):
            kept[name] = str(value)
        else:
            dropped.append(f"{where}.{key}: must be {rule.text}; dropped")
    return kept


def _unknown_keys(raw: Mapping[str, object], known: Iterable[str], where: str) -> list[str]:
    return [f"{where}.{key}: not a field of this entry; dropped" for key in raw if key not in known]


def _legacy_sub_execution(raw: Mapping[str, object], where: str) -> dict[str, object] | str:
    """wfx's former entry as the typed entry it stands for, or why it cannot be read."""
    resource_type, resource_id = raw.get("resourceType"), raw.get("resourceId")
    if not isinstance(resource_type, str) or not resource_type:
        return f"{where}.resourceType: must be a non-empty string; entry dropped"
    if not isinstance(resource_id, str) or not resource_id:
        return f"{where}.resourceId: must be a non-empty string; entry dropped"
    label = raw.get("label")
    typed = RegisteredSubExecution.of_resource(resource_type, resource_id)
    converted: dict[str, object] = typed.model_dump(by_alias=True, exclude_defaults=True)
    if label not in (None, ""):
        converted["label"] = label
    return converted


def normalize_sub_execution(
    raw: object, where: str = "subExecution"
) -> tuple[RegisteredSubExecution | None, tuple[str, ...]]:
    """A reported sub-execution as a typed locator, and what was dropped from it.

    As VAMS: the resourceType defaults to a Step Functions execution; a locator key breaking its
    rule is dropped and the rest kept; an entry left with no locator, or with an invalid
    resourceType, is dropped whole. wfx's former `{resourceType, resourceId}` is converted first.
    """
    if not isinstance(raw, Mapping):
        return None, (f"{where}: must be an object; dropped",)
    entry: Mapping[str, object] = raw
    if "resourceId" in raw:
        unknown = _unknown_keys(raw, _LEGACY_KEYS, where)
        converted = _legacy_sub_execution(raw, where)
        if isinstance(converted, str):
            return None, (*unknown, converted)
        entry = converted
    else:
        known = ("resourceType", *SUB_EXECUTION_LOCATOR_RULES, *_DESCRIPTION_RULES)
        unknown = _unknown_keys(raw, known, where)
    dropped = list(unknown)
    resource_type = entry.get("resourceType") or STEP_FUNCTIONS_EXECUTION
    if not ID_RULE.allows(resource_type):
        dropped.append(f"{where}.resourceType: must be {ID_RULE.text}; entry dropped")
        return None, tuple(dropped)
    locator = _checked_fields(entry, SUB_EXECUTION_LOCATOR_RULES, where, dropped)
    if not locator:
        keys = ", ".join(SUB_EXECUTION_LOCATOR_RULES)
        dropped.append(f"{where}: no valid locator ({keys}); entry dropped")
        return None, tuple(dropped)
    described = _checked_fields(entry, _DESCRIPTION_RULES, where, dropped)
    return (
        RegisteredSubExecution(resource_type=str(resource_type), **locator, **described),
        tuple(dropped),
    )


def normalize_log(
    raw: object, where: str = "logs[0]"
) -> tuple[RegisteredLog | None, tuple[str, ...]]:
    """A reported log location, and what was dropped from it: as VAMS, a field breaking its rule
    is dropped and the rest kept, an unrecognised sourceType is stored as `custom`, and an entry
    left with neither a valid logGroupArn nor logGroupName is dropped whole."""
    if not isinstance(raw, Mapping):
        return None, (f"{where}: must be an object; dropped",)
    dropped = _unknown_keys(raw, (*LOG_FIELD_RULES, "sourceType"), where)
    fields = _checked_fields(raw, LOG_FIELD_RULES, where, dropped)
    source_type = raw.get("sourceType")
    if source_type not in (None, "") and source_type not in LOG_SOURCE_TYPES:
        dropped.append(
            f"{where}.sourceType: must be one of {', '.join(LOG_SOURCE_TYPES)}; "
            f"stored as {UNKNOWN_SOURCE_TYPE}"
        )
        source_type = UNKNOWN_SOURCE_TYPE
    if not (fields.get("log_group_arn") or fields.get("log_group_name")):
        dropped.append(f"{where}: no valid logGroupArn or logGroupName; entry dropped")
        return None, tuple(dropped)
    return RegisteredLog(**fields, source_type=str(source_type or "")), tuple(dropped)
