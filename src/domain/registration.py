"""Sub-process registration rules (seed 000): whose event it is, de-duplication, merge, caps."""

from __future__ import annotations

import re
from collections.abc import Iterable

from domain.errors import InvalidInputError
from domain.logs import (
    MAX_REGISTERED_LOGS,
    MAX_REGISTERED_SUB_EXECUTIONS,
    RegisteredLog,
    RegisteredSubExecution,
)

# {eventSourcePrefix}.execution.{executionId}.pipeline.{pipelineExecutionId}; ids hold no dots.
_SOURCE = re.compile(r".+\.execution\.(?P<execution>[^.]+)\.pipeline\.(?P<pipeline>[^.]+)")

REGISTRATION_DETAIL_TYPE = "pipeline.execution.register"
DEFAULT_EVENT_SOURCE_PREFIX = "wfx"
# What a registeredLogs entry's sourceType may be (seed 000); "" when the producer sent none.
LOG_SOURCE_TYPES = ("stateMachine", "lambda", "batch", "ecs", "container", "custom")
# Dot-separated words; EventBridge refuses a PutEvents source starting with "aws.", and the
# whole source must stay within its 256 characters.
_PREFIX = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*")
_MAX_SOURCE_LENGTH = 256

# The descriptive fields a redelivery may fill in where the stored entry has "".
_LOG_DESCRIPTIONS = ("stage_name", "label", "source_type")


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
    if len(source) > _MAX_SOURCE_LENGTH:
        raise InvalidInputError(
            f"source: EventBridge takes at most {_MAX_SOURCE_LENGTH} characters, got {len(source)}"
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


def _filled_log(stored: RegisteredLog, incoming: RegisteredLog) -> RegisteredLog:
    missing = {
        name: getattr(incoming, name)
        for name in _LOG_DESCRIPTIONS
        if not getattr(stored, name) and getattr(incoming, name)
    }
    return stored.model_copy(update=missing) if missing else stored


def merge_logs(
    stored: Iterable[RegisteredLog], incoming: Iterable[RegisteredLog]
) -> tuple[RegisteredLog, ...]:
    """Stored entries in order, then new locations, at most MAX_REGISTERED_LOGS; a known location
    gains the stageName, label or sourceType it lacked, and extra new ones are dropped."""
    merged: dict[tuple[str, str, str], RegisteredLog] = {}
    for log in stored:
        known = merged.get(log.location)
        merged[log.location] = log if known is None else _filled_log(known, log)
    for log in incoming:
        known = merged.get(log.location)
        if known is not None:
            merged[log.location] = _filled_log(known, log)
        elif len(merged) < MAX_REGISTERED_LOGS:
            merged[log.location] = log
    return tuple(merged.values())[:MAX_REGISTERED_LOGS]


def _filled_sub_execution(
    stored: RegisteredSubExecution, incoming: RegisteredSubExecution
) -> RegisteredSubExecution:
    if stored.label or not incoming.label:
        return stored
    return stored.model_copy(update={"label": incoming.label})


def merge_sub_executions(
    stored: Iterable[RegisteredSubExecution], incoming: Iterable[RegisteredSubExecution]
) -> tuple[RegisteredSubExecution, ...]:
    """As merge_logs, with identity (resourceType, resourceId) and the label merged in."""
    merged: dict[tuple[str, str], RegisteredSubExecution] = {}
    for entry in stored:
        identity = (entry.resource_type, entry.resource_id)
        known = merged.get(identity)
        merged[identity] = entry if known is None else _filled_sub_execution(known, entry)
    for entry in incoming:
        identity = (entry.resource_type, entry.resource_id)
        known = merged.get(identity)
        if known is not None:
            merged[identity] = _filled_sub_execution(known, entry)
        elif len(merged) < MAX_REGISTERED_SUB_EXECUTIONS:
            merged[identity] = entry
    return tuple(merged.values())[:MAX_REGISTERED_SUB_EXECUTIONS]
