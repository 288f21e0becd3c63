"""`AuditLog` adapters: one JSON line per refusal, every value redacted (a route or an object
field can carry what a caller pasted into it).

Locally the lines are appended to `audit.log` under WFX_HOME; in Lambda they go through
`logging` to CloudWatch, where a metric filter or Logs Insights query finds `"event":"denied"`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from application.ports.system import Clock
from domain.authorization import AccessDecision, Subject
from domain.redaction import redact_json

AUDIT_FILE = "audit.log"
AUDIT_LOGGER = "wfx.audit"


def denial_record(
    at: str, subject: Subject, route: str, obj: Mapping[str, Any], decision: AccessDecision
) -> dict[str, Any]:
    record = {
        "time": at,
        "event": "denied",
        "userId": subject.user_id,
        "roles": list(subject.roles),
        "route": route,
        "object": dict(obj),
        "rule": decision.rule,
    }
    redacted: dict[str, Any] = redact_json(record)
    return redacted


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


class JsonLinesAuditLog:
    """Appends to one file; O_APPEND keeps two processes' lines whole (each is one write)."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self._path, self._clock = path, clock
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._path

    def denied(
        self, subject: Subject, route: str, obj: Mapping[str, Any], decision: AccessDecision
    ) -> None:
        at = self._clock.now().isoformat()
        data = (_line(denial_record(at, subject, route, obj, decision)) + "\n").encode("utf-8")
        with self._lock:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(descriptor, data)
            finally:
                os.close(descriptor)


class LoggingAuditLog:
    """One WARNING per refusal on the `wfx.audit` logger, the message being the JSON line."""

    def __init__(self, clock: Clock, logger: logging.Logger | None = None) -> None:
        self._clock = clock
        self._logger = logger or logging.getLogger(AUDIT_LOGGER)

    def denied(
        self, subject: Subject, route: str, obj: Mapping[str, Any], decision: AccessDecision
    ) -> None:
        at = self._clock.now().isoformat()
        self._logger.warning("%s", _line(denial_record(at, subject, route, obj, decision)))
