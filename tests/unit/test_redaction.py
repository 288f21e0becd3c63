"""Redaction: credentials and secrets never survive, everything else is left alone."""

import re
import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from domain.redaction import REDACTED, redact

SAFE_TEXT = st.text(alphabet=string.ascii_lowercase + string.digits + " \n.-", max_size=200)
TOKEN_CHARS = string.ascii_letters + string.digits


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("using AKIAIOSFODNN7EXAMPLE now", "AKIAIOSFODNN7EXAMPLE"),
        ("temporary ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ('{"SessionToken": "FwoGZXIvYXdzEBYaDH"}', "FwoGZXIvYXdzEBYaDH"),
        ("AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEJr", "IQoJb3JpZ2luX2VjEJr"),
        ("Authorization: Bearer abc.def-ghi_jkl", "abc.def-ghi_jkl"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9Pl",
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9Pl",
        ),
        ("db password=hunter2 ok", "hunter2"),
        ("client_secret: 's3cr3t value'", "s3cr3t value"),
        ("api_key=abc123&next=1", "abc123"),
        (
            "GET /obj?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F2026&X-Amz-Signature=f00d",
            "f00d",
        ),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXkt\n"
            "-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXkt",
        ),
    ],
)
def test_each_kind_of_secret_is_removed_and_its_name_kept(text: str, secret: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert REDACTED in redacted


def test_ordinary_log_lines_are_unchanged() -> None:
    lines = "exit code 3: boom\nsha1 da39a3ee5e6b4b0d3255bfef95601890afd80709\nwrote preview/a.svg"
    assert redact(lines) == lines


@given(st.text(max_size=300))
def test_redaction_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@given(SAFE_TEXT)
def test_text_without_secrets_is_left_alone(text: str) -> None:
    assume(not re.search(r"bearer|password|passwd|pwd|secret|token|key", text))
    assert redact(text) == text


@given(SAFE_TEXT, SAFE_TEXT, st.text(alphabet=TOKEN_CHARS, min_size=8, max_size=40))
def test_a_password_pair_never_survives_in_any_surrounding(
    before: str, after: str, value: str
) -> None:
    redacted = redact(f"{before} password={value}\n{after}")
    assert f"password={value}" not in redacted


@given(
    SAFE_TEXT, st.text(alphabet=string.ascii_uppercase + string.digits, min_size=16, max_size=16)
)
def test_an_access_key_id_never_survives(before: str, tail: str) -> None:
    key = f"AKIA{tail}"
    assert key not in redact(f"{before} {key} ")
