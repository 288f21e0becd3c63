"""Remove credentials and secrets from text that is stored or leaves wfx: the one policy.

Applied before anything is stored (step log files, rows, the run log in the object store) and
again on every way out (CLI text and JSON, log reads, error messages), so a secret a step printed,
or one written into a workflow's command, never reaches a table, a file, a terminal or a response.

What is a secret: values under a secret-sounding key name (`*PASSWORD*`, `*SECRET*`, `*TOKEN*`,
`*_KEY`, ...) in `NAME=value`, `NAME: value`, `"name": "value"` form; URL passwords; GitHub,
Slack and `sk-` API tokens; JWTs; bearer and basic credentials; presigned-URL signatures; AWS
key ids, and a bare secret key beside one; private-key blocks of every kind, even cut off; and
the literal values the user registers (WFX_REDACT, WFX_REDACT_FILE, see entrypoints/settings.py).
Each rule keeps what announced the secret and replaces only the secret with [REDACTED];
redact(redact(x)) == redact(x).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.redaction_rules import (
    MIN_REGISTERED_LENGTH,
    REDACTED,
    configure_registered_secrets,
    is_secret_name,
    redact_line_local,
    redact_shapes,
    registered_secrets,
)
from domain.redaction_stream import (
    StreamRedactor,
    needs_lines,
    redact_lines,
    redact_text,
    redacted_lines,
    redacted_pieces,
)

__all__ = [
    "MIN_REGISTERED_LENGTH",
    "REDACTED",
    "StreamRedactor",
    "configure_redaction",
    "is_secret_name",
    "redact",
    "redact_executable",
    "redact_json",
    "redact_lines",
    "redact_optional",
    "redacted_lines",
    "redacted_pieces",
    "registered_secrets",
]


def configure_redaction(registered: Iterable[str]) -> None:
    """Set the user's registered secrets for every later redaction in this process."""
    configure_registered_secrets(registered)


def redact(text: str) -> str:
    """The text with every secret replaced by [REDACTED]; idempotent."""
    if needs_lines(text):
        return redact_text(text)
    return redact_line_local(text)


def redact_optional(text: str | None) -> str | None:
    return None if text is None else redact(text)


def redact_executable(text: str) -> str:
    """What can be kept of text wfx will run (a step's command, a handler reference): secrets
    known by their shape (URL passwords, tokens, keys, key blocks) and the registered ones go,
    while key-name rules do not apply, because in code they cannot tell `token = f()` or
    `'password=' + value` from a secret, and a command they rewrote would no longer run. For
    the same reason only whole key blocks go: a BEGIN alone is a program printing a header."""
    if needs_lines(text):
        return redact_text(text, line_rule=redact_shapes, cut_blocks=False)
    return redact_shapes(text)


def redact_json(value: Any) -> Any:
    """A JSON-shaped value with every string redacted and every scalar under a secret-named key
    (`{"DB_PASSWORD": ...}`) replaced, whatever it looks like; keys and structure are kept."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {
            (redact(key) if isinstance(key, str) else key): _under(key, item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_json(item) for item in value]
    return value


def _under(key: object, value: Any) -> Any:
    if (
        isinstance(key, str)
        and isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and value != ""
        and is_secret_name(key)
    ):
        return REDACTED
    return redact_json(value)
