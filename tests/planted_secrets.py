"""Secrets of every kind the redaction policy knows, generated, each in the form it is met in.

Shared by the tests of every path a secret can take (domain, stream, records, step logs, CLI).
A `Plant` is a piece of text and the substrings of it that must never survive redaction. Fixed
prefixes are assembled from parts so that no secret scanner flags this file.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from hypothesis import assume
from hypothesis import strategies as st

from domain.redaction import configure_redaction

ALNUM = string.ascii_letters + string.digits
BASE64 = ALNUM + "+/"
GITHUB_KINDS = tuple(
    kind + "_" for kind in ("gh" + "p", "gh" + "o", "gh" + "u", "gh" + "s", "gh" + "r")
)
GITHUB_PAT = "github" + "_pat_"
SLACK_KINDS = tuple("xo" + "x" + letter + "-" for letter in "bpas")
AWS_KEY_ID_PREFIX = "AK" + "IA"
PEM_LABELS = (
    "PRIVATE KEY",
    "RSA PRIVATE KEY",
    "EC PRIVATE KEY",
    "DSA PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
)
SECRET_NAMES = (
    "PASSWORD",
    "DB_PASSWORD",
    "PGPASSWORD",
    "mysql_pwd",
    "GITHUB_TOKEN",
    "SLACK_BOT_TOKEN",
    "access_token",
    "client_secret",
    "AWS_SECRET_ACCESS_KEY",
    "STRIPE_KEY",
    "x-api-key",
    "apiKey",
    "passphrase",
)


@dataclass(frozen=True)
class Plant:
    """Text that holds secrets; `secrets` must all be gone from it once redacted."""

    kind: str
    text: str
    secrets: tuple[str, ...]


# The strategies below are made once and drawn from again: a strategy is a description, and
# each new one was validated again (its alphabet's intervals built) on its first draw, which was
# most of the time of drawing a plant. The values drawn are the same.


@functools.cache
def _token(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=size, max_size=size)


@functools.cache
def _value(min_size: int = 8) -> st.SearchStrategy[str]:
    # starts and ends with a letter so no surrounding text can make it look shorter
    return st.builds(
        lambda head, middle, tail: head + middle + tail,
        st.sampled_from(string.ascii_letters),
        st.text(alphabet=ALNUM + "!%*#", min_size=min_size - 2, max_size=30),
        st.sampled_from(string.ascii_letters),
    )


@st.composite
def key_named(draw: st.DrawFn) -> Plant:
    name = draw(st.sampled_from(SECRET_NAMES))
    value = draw(_value())
    spaced = f"{value} {draw(_value())}"
    form = draw(st.integers(0, 7))
    text = (
        f"{name}={value}",
        f"export {name}={value}",
        f"{name}: {value}",
        f'"{name}": "{value}"',
        f"{name}='{spaced}'",
        f'export {name}="{spaced}"',
        f'{{\\"{name}\\": \\"{spaced}\\"}}',
        f"{name} = {value}",
    )[form]
    return Plant("key name", text, (value, spaced) if spaced in text else (value,))


@st.composite
def url_password(draw: st.DrawFn) -> Plant:
    scheme = draw(st.sampled_from(("postgres", "mysql", "https", "redis", "amqp", "mongodb+srv")))
    user = draw(st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=10))
    password = draw(_value())
    host = draw(st.sampled_from(("db", "db.internal:5432", "10.0.0.7", "cache")))
    return Plant("url password", f"{scheme}://{user}:{password}@{host}/x", (password,))


@st.composite
def service_token(draw: st.DrawFn) -> Plant:
    kind = draw(st.sampled_from(("github", "github-pat", "slack", "api-key")))
    if kind == "github":
        token = draw(st.sampled_from(GITHUB_KINDS)) + draw(_token(ALNUM, 36))
    elif kind == "github-pat":
        token = GITHUB_PAT + draw(_token(ALNUM, 22)) + "_" + draw(_token(ALNUM, 59))
    elif kind == "slack":
        digits = draw(_token(string.digits, 12))
        token = draw(st.sampled_from(SLACK_KINDS)) + f"{digits}-{draw(_token(ALNUM, 24))}"
    else:
        token = draw(st.sampled_from(("sk-", "sk-proj-"))) + draw(_token(ALNUM, 40))
    secret = token.split("_", 1)[-1] if kind == "github" else token[-20:]
    return Plant(kind, token, (secret,))


def _key_id(tail: str) -> str:
    return AWS_KEY_ID_PREFIX + tail


@st.composite
def aws_keys(draw: st.DrawFn) -> Plant:
    key_id = _key_id(draw(_token(string.ascii_uppercase + string.digits, 16)))
    secret = draw(_token(BASE64, 40))
    if draw(st.booleans()):
        text = f"aws_access_key_id = {key_id}\naws_secret_access_key = {secret}"
        return Plant("aws key=value", text, (key_id, secret))
    # the bare secret on its own line, up to three lines before or after its key id
    between = draw(
        st.lists(st.sampled_from(("", "ok", "# credentials", "region us-east-1")), max_size=2)
    )
    lines = [key_id, *between, secret]
    if draw(st.booleans()):
        lines.reverse()
    return Plant("aws bare secret", "\n".join(lines), (key_id, secret))


@st.composite
def jwt(draw: st.DrawFn) -> Plant:
    b64url = ALNUM + "-_"
    header = "ey" + "J" + draw(_token(b64url, 16))
    payload = "ey" + "J" + draw(_token(b64url, 24))
    signature = draw(_token(b64url, 32))
    return Plant("jwt", f"{header}.{payload}.{signature}", (payload, signature))


@st.composite
def bearer(draw: st.DrawFn) -> Plant:
    token = draw(_token(ALNUM + "-._~", 24))
    return Plant("bearer", f"Authorization: Bearer {token}", (token,))


@st.composite
def private_key(draw: st.DrawFn) -> Plant:
    label = draw(st.sampled_from(PEM_LABELS))
    body = draw(st.lists(_token(BASE64, 64), min_size=1, max_size=8))
    last = draw(_token(BASE64, 20)) + "=="
    lines = [f"-----BEGIN {label}-----", *body, last]
    cut = draw(st.booleans())  # a log cut off inside the block: no END line
    if not cut:
        lines.append(f"-----END {label}-----")
    return Plant("pem cut" if cut else "pem", "\n".join(lines), (*body, last))


@functools.cache
def any_secret() -> st.SearchStrategy[Plant]:
    """One planted secret of any kind the policy knows (registered ones: see `registered`)."""
    return st.one_of(
        key_named(), url_password(), service_token(), aws_keys(), jwt(), bearer(), private_key()
    )


def registered_value() -> st.SearchStrategy[str]:
    return _value(min_size=6)


@contextmanager
def registered(*values: str) -> Iterator[None]:
    """The values registered as WFX_REDACT would for the duration of the block."""
    configure_redaction(values)
    try:
        yield
    finally:
        configure_redaction(())


# Text around a secret: anything printable, kept off the secret by a separator so it cannot
# become part of it (a letter glued to a bare value would just lengthen the value). What UTF-8
# encodes: every character but the surrogates (Cs), so no codec= (hypothesis built its table of
# UTF-8 by encoding each of 1.1 M characters, 3.4 s CPU in a process with no .hypothesis yet).
NOISE = st.text(
    alphabet=st.characters(exclude_categories=("Cs", "Cc")) | st.sampled_from("\n\t"),
    max_size=80,
)
SEPARATOR = st.sampled_from((" ", "\n", "\t", "\n\n", " | "))


@st.composite
def embedded(draw: st.DrawFn, plant: st.SearchStrategy[Plant] | None = None) -> Plant:
    """A planted secret with generated text before and after it."""
    inner = draw(plant if plant is not None else any_secret())
    before, after = draw(NOISE), draw(NOISE)
    assume(not any(secret in before or secret in after for secret in inner.secrets))
    text = before + draw(SEPARATOR) + inner.text + draw(SEPARATOR) + after
    return Plant(inner.kind, text, inner.secrets)
