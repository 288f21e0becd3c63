"""Log locations and sub-executions a pipeline step registered (seed 000)."""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

MAX_REGISTERED_LOGS = 50
MAX_REGISTERED_SUB_EXECUTIONS = 50


class LogKind(StrEnum):
    REGISTERED = "registered"
    INVOCATION = "invocation"
    STATE_MACHINE = "stateMachine"


def _without_trailing_wildcard(group_arn: str) -> str:
    return group_arn[:-2] if group_arn.endswith(":*") else group_arn


def log_id(kind: str, group: str, stream: str = "", prefix: str = "") -> str:
    """The one place the log-id encoding lives (DESIGN §3): stable across processes and releases."""
    payload = json.dumps([kind, _without_trailing_wildcard(group), stream or "", prefix or ""])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class RegisteredLog(BaseModel):
    """A log location a pipeline reported; "" for what the producer did not send."""

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

    @property
    def location(self) -> tuple[str, str, str]:
        """Identity for de-duplication: (group ARN without ':*', else name; stream; prefix)."""
        return (self.group, self.log_stream_name, self.log_stream_prefix)

    def log_id(self, kind: LogKind | str = LogKind.REGISTERED) -> str:
        return log_id(str(kind), self.group, self.log_stream_name, self.log_stream_prefix)


class RegisteredSubExecution(BaseModel):
    """A typed locator of a process a step started (stepFunctions, batch, deadline, ...)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    resource_type: str
    resource_id: str
    label: str = ""
