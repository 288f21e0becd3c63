"""A page token nobody issued, its JSON nested deeper than Python reads, is refused as any
forged token is (exit 2, naming the token), never a RecursionError's traceback."""

from __future__ import annotations

import base64

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

DEEP = base64.urlsafe_b64encode(b"[" * 3000 + b"]" * 3000).decode().rstrip("=")


@pytest.mark.parametrize(
    "command",
    [
        ("executions", "list"),
        ("approvals", "list"),
        ("workflows", "list"),
        ("workflows", "versions", "demo/noop"),
        ("assets", "list", "demo/files"),
    ],
)
def test_a_deeply_nested_token_is_refused_as_forged(wfx: Wfx, command: tuple[str, ...]) -> None:
    wfx.publish_command_step("noop", "pass")
    source = wfx.home / "f.txt"
    source.write_text("x", encoding="utf-8")
    wfx.ok("assets", "import", "demo", "files", str(source))
    assert_bad_input(wfx(*command, "--starting-token", DEEP), "token")
