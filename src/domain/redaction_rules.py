"""The redaction policy's rules: what counts as a secret, one line at a time.

Every rule here looks inside one line, so a text is redacted the same whole or line by line; the
rules that need more than one line (private-key blocks, a bare AWS secret beside its key id) are
in domain/redaction_stream.py. Each rule keeps what announced the secret (the key name, the URL's
scheme, user and host, a token's kind prefix) and replaces only the secret with [REDACTED].

Speed: redaction runs on every log line, and a pass of Python's regex engine over a text costs
about as much as the text is long whatever the pattern, so each rule is gated by a substring test
(`in` is ~100x cheaper than a regex pass) and only the rules whose gate is met run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from domain.lazy_pattern import LazyPattern

REDACTED = "[REDACTED]"
# Shorter registered values would blank out ordinary words and numbers all over a log.
MIN_REGISTERED_LENGTH = 4

# -- key names -------------------------------------------------------------------------------------

_SECRET_WORDS = (
    r"passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|[_-]key(?![a-z0-9])"  # *_KEY, *-key: STRIPE_KEY, x-api-key; not keyboard, not fileKey
)
_SECRET_NAME = LazyPattern(rf"(?i)[\w.-]*?(?:{_SECRET_WORDS})[\w.-]*")
# Names with a secret word that are not secrets: paging and idempotency tokens (wfx prints them
# itself), and the structural keys of stores and indexes.
_NOT_SECRET_NAME = LazyPattern(
    r"(?i)(?:^|[_.-])(?:next|starting|start|continuation|page|pagination|client|idempotency)"
    r"[_.-]?tokens?$"
    r"|(?:^|[_.-])(?:public|sort|partition|primary|hash|range|foreign|object|file|cache)[_-]key$"
)
_VALUE = (
    r"\[REDACTED\]"
    r'|\\"[^"\n]*?\\"'  # \"value\" inside a JSON string
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'(?:[^'\\\n]|\\.)*'"
    r"|[\"'][^\n]*"  # a quote left open: the rest of the line is the value
    r"|(?:\[REDACTED\]|[^\s,;&}\])\"'<>\[])+"
)
# Anchored at a name's first character; the name is checked with _SECRET_NAME afterwards.
_ASSIGNMENT = LazyPattern(
    rf"(?P<name>[\w.-]++)(?P<separator>\\?[\"']?[ \t]*(?:=>|[:=])[ \t]*)(?P<value>{_VALUE})"
)
# Found in the lowered text, case-sensitively: sre's case-insensitive scan costs 8x more.
_NAME_HINT = re.compile("pass|pwd|secret|token|key")
_NAME_RUN = re.compile(r"[\w.-]++")
# `token: should have at most 8192 characters` is a field and the rule it broke, the way every
# validation message reads (`<field>: <rule>`), not a token and its value: after `NAME: ` these
# openings are the rule's words. A secret that is one of them, followed by the rest of a rule,
# is an ordinary word and shown, as registered values under MIN_REGISTERED_LENGTH are.
_RULE = LazyPattern(
    r"(?:(?:Input|String|Value|List|Tuple|Dictionary|Set|Object|Decimal|Date|Datetime|Time"
    r"|Timezone|URL|UUID|Number|Integer|Float|Boolean|Bytes|Data|Field|Text|Key)[ \t]+)?"
    r"(?:should|must|cannot|is[ \t]+not|are[ \t]+not|may[ \t]+not|has[ \t]+no)[ \t]+\w"
    r"|(?:Field[ \t]+)?required(?![\w.-])"
    r"|unknown[ \t]+key(?![\w.-])"
    r"|Extra[ \t]+inputs[ \t]+are[ \t]+not[ \t]+permitted"
    r"|Value[ \t]+error,"
)
_LONGEST_NAME = 256


def is_secret_name(name: str) -> bool:
    """Whether a key of this name holds a secret (`DB_PASSWORD`, `GITHUB_TOKEN`, `api-key`)."""
    return (
        _SECRET_NAME.compiled.fullmatch(name) is not None
        and _NOT_SECRET_NAME.compiled.search(name) is None
    )


def _is_name_character(character: str) -> bool:
    return character.isalnum() or character in "_.-"


def _redact_assignments(text: str, low: str) -> str:
    """`NAME=value`, `NAME: value`, `"name": "value"`: the value of each secret-named key."""
    if len(low) != len(text):  # a few characters change length when lowered: no shortcut
        low = "".join(character.lower()[:1] or character for character in text)
    pieces: list[str] = []
    done = 0  # text before this is copied or replaced
    tried = 0  # names before this have been tried: a name is tried once, whatever its hints
    for hint in _NAME_HINT.finditer(low):
        start = hint.start()
        if start < tried:
            continue
        floor = max(done, start - _LONGEST_NAME)
        while start > floor and _is_name_character(text[start - 1]):
            start -= 1
        name = _NAME_RUN.match(text, start)
        tried = name.end() if name else hint.end()
        if start > done and _is_name_character(text[start - 1]):
            continue  # no name is that long: a blob that happens to spell a hint
        match = _ASSIGNMENT.compiled.match(text, start)
        if match is None:
            continue
        replaced = _without_value(match)
        if replaced != match[0]:
            pieces += (text[done:start], replaced)
            done = tried = match.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _without_value(match: re.Match[str]) -> str:
    value = match["value"]
    if value == REDACTED or not is_secret_name(match["name"]) or _is_rule(match):
        return match[0]
    if value.startswith('\\"') and value.endswith('\\"') and len(value) >= 4:
        opening, inner, closing = '\\"', value[2:-2], '\\"'
    elif value[0] in "\"'" and len(value) >= 2 and value[-1] == value[0]:
        opening, inner, closing = value[0], value[1:-1], value[0]
    elif value[0] in "\"'":
        opening, inner, closing = value[0], value[1:], ""
    else:
        opening, inner, closing = "", value, ""
    if inner in ("", REDACTED):
        return match[0]
    return f"{match['name']}{match['separator']}{opening}{REDACTED}{closing}"


def _is_rule(match: re.Match[str]) -> bool:
    """`NAME: <rule>`: a colon, a space, an unquoted value opening a rule's words."""
    separator = match["separator"]
    return (
        separator.strip() == ":"
        and separator[-1] in " \t"
        and _RULE.compiled.match(match.string, match.start("value")) is not None
    )


# -- values that are secrets wherever they appear --------------------------------------------------

# A password may hold a raw `?` or `#` (connection strings rarely percent-encode them); a `/`
# ends it, so `http://host:8080/a@b` is a port and a path, not a password.
_URL_PASSWORD = LazyPattern(
    r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\"'<>]*:)(?P<password>[^\s/\"'<>]+)@"
)


def _url_without_password(match: re.Match[str]) -> str:
    if match["password"] == REDACTED:
        return match[0]
    return f"{match['head']}{REDACTED}@"


_AUTHORIZATION = LazyPattern(
    r"(?i)\b(?P<scheme>bearer|authorization[ \t]*[:=][ \t]*basic)[ \t]+[A-Za-z0-9\-._~+/]+=*"
)
_PRESIGNED = LazyPattern(
    r"(?i)\b(?P<parameter>X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|Signature"
    r"|AWSAccessKeyId)=(?!\[REDACTED\])[^&\s\"'<>]+"
)
_JWT = LazyPattern(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+")
# Kind prefix kept: `ghp_[REDACTED]` still says a GitHub token was there.
_GITHUB_HINT = re.compile("gh[pousr]_|github_pat_")
_GITHUB = LazyPattern(r"\b(?P<kind>gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}")
_SLACK = LazyPattern(r"\b(?P<kind>xox[abposr]-)[A-Za-z0-9-]{10,}")
_API_KEY = LazyPattern(r"\b(?P<kind>sk-|[sr]k_(?:live|test)_)[A-Za-z0-9_-]{16,}")
# AWS unique-id prefixes: long-term AKIA, temporary ASIA, and the user/role/group ones.
AWS_KEY_ID_PREFIXES = ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA")
AWS_KEY_ID = LazyPattern(rf"\b(?:{'|'.join(AWS_KEY_ID_PREFIXES)})[A-Z0-9]{{16}}\b")
_AWS_KEY_ID_HINT = re.compile("|".join(AWS_KEY_ID_PREFIXES))


def _kind_kept(match: re.Match[str]) -> str:
    return f"{match['kind']}{REDACTED}"


def has_aws_key_id(text: str) -> bool:
    return (
        _AWS_KEY_ID_HINT.search(text) is not None and AWS_KEY_ID.compiled.search(text) is not None
    )


def _redact_values(text: str, low: str) -> str:
    """The rules that know a secret by its shape; each runs only when its hint is in the text
    (`low` is the text lowered before any rule ran: [REDACTED] adds none of the hints)."""
    if "://" in text and "@" in text:
        text = _URL_PASSWORD.compiled.sub(_url_without_password, text)
    if "bearer" in low or "authorization" in low:
        text = _AUTHORIZATION.compiled.sub(rf"\g<scheme> {REDACTED}", text)
    if "signature=" in low or "x-amz-" in low or "awsaccesskeyid=" in low:
        text = _PRESIGNED.compiled.sub(rf"\g<parameter>={REDACTED}", text)
    if "eyJ" in text:
        text = _JWT.compiled.sub(REDACTED, text)
    if "_" in text and _GITHUB_HINT.search(text):
        text = _GITHUB.compiled.sub(_kind_kept, text)
    if "xox" in text:
        text = _SLACK.compiled.sub(_kind_kept, text)
    if "k-" in text or "k_" in text:
        text = _API_KEY.compiled.sub(_kind_kept, text)
    if _AWS_KEY_ID_HINT.search(text):
        text = AWS_KEY_ID.compiled.sub(REDACTED, text)
    return text


# -- secrets the user registers (WFX_REDACT, WFX_REDACT_FILE) ------------------------------------

_registered: tuple[str, ...] = ()


def configure_registered_secrets(values: Iterable[str]) -> None:
    """The literal secrets every later redaction in this process removes; replaces earlier ones.

    Values shorter than MIN_REGISTERED_LENGTH are ignored, as are parts of the [REDACTED] marker
    itself (redacting them would make redaction change its own output)."""
    global _registered
    kept = {
        value
        for value in (raw.strip() for raw in values)
        if len(value) >= MIN_REGISTERED_LENGTH and value not in REDACTED and REDACTED not in value
    }
    # Longest first: a secret that contains another is removed whole, not around the shorter one.
    _registered = tuple(sorted(kept, key=lambda value: (-len(value), value)))


def registered_secrets() -> tuple[str, ...]:
    return _registered


def redact_line_local(text: str) -> str:
    """Apply every single-line rule, then the registered secrets, to a line or a whole text."""
    low = text.lower()
    if _NAME_HINT.search(low):
        # key names first: `GITHUB_TOKEN=ghp_...` reads better by its name than by its kind
        text = _redact_assignments(text, low)
    return redact_shapes(text, low)


def redact_shapes(text: str, low: str | None = None) -> str:
    """The rules that know a secret by its shape, then the registered secrets; not key names."""
    text = _redact_values(text, text.lower() if low is None else low)
    for secret in _registered:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
