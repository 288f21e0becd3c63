"""Remove credentials and secrets from text that is stored or leaves wfx (logs, errors).

One function, applied before executionLog, executionError and log rows are stored and again
when they leave, so a secret a step printed never reaches a table, a terminal or a response.
Each rule keeps the name that announced the secret and replaces only its value.
"""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"

_SECRET_NAMES = (
    r"aws_secret_access_key|secret_access_key|secretaccesskey|aws_session_token|session_token"
    r"|sessiontoken|x-amz-security-token|password|passwd|pwd|passphrase|secret|client_secret"
    r"|api_key|apikey|api-key|access_token|refresh_token|auth_token|token"
)

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # PEM private keys, whole block
    (
        re.compile(
            r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----.*?-----END \1PRIVATE KEY-----",
            re.DOTALL,
        ),
        f"-----BEGIN PRIVATE KEY-----{REDACTED}-----END PRIVATE KEY-----",
    ),
    # JSON Web Tokens (header.payload.signature, base64url)
    (re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+"), REDACTED),
    # Authorization: Bearer <token>
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*"), rf"\1 {REDACTED}"),
    # presigned-URL signature parameters
    (
        re.compile(
            r"(?i)\b(X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|Signature"
            r"|AWSAccessKeyId)=[^&\s\"'<>]+"
        ),
        rf"\1={REDACTED}",
    ),
    # name=value / name: value / "name": "value" pairs whose name says secret
    (
        re.compile(
            rf"(?i)([\"']?\b(?:{_SECRET_NAMES})\b[\"']?\s*[:=]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;&}}]+)"
        ),
        rf"\1{REDACTED}",
    ),
    # AWS access key ids (long-term AKIA, temporary ASIA, and the other unique-id prefixes)
    (re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"), REDACTED),
)


def redact(text: str) -> str:
    """The text with every credential-looking value replaced by [REDACTED]; idempotent."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


def redact_optional(text: str | None) -> str | None:
    return None if text is None else redact(text)
