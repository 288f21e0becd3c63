"""`wfx auth token USER`: a token the local key in WFX_HOME verifies, with the roles asked for."""

from __future__ import annotations

import os
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

import jwt
import pytest

from adapters.identity.local_key import KEY_FILE_NAME, LocalSigningKey
from adapters.identity.local_tokens import LocalTokenVerifier
from domain.authorization import Subject
from entrypoints.container import build_container, create_all_tables
from entrypoints.settings import Settings
from tests.e2e.cli import Wfx, assert_bad_input


def test_a_printed_token_verifies_with_the_homes_key_and_names_user_and_roles(wfx: Wfx) -> None:
    printed = wfx.ok("auth", "token", "alice", "--role", "admin", "--role", "viewer")
    token = printed.stdout.strip()

    assert printed.stdout == token + "\n" and printed.stderr == ""
    assert stat.S_IMODE((wfx.home / KEY_FILE_NAME).stat().st_mode) == 0o600
    assert LocalTokenVerifier(LocalSigningKey(wfx.home)).verify(token) == Subject(
        user_id="alice", roles=("admin", "viewer")
    )
    # the container's verifier (what the HTTP service will ask) agrees; it also reads the
    # store's revoked tokens, so the store has its tables, as the CLI makes them on first use
    settings = Settings.from_environment({"WFX_HOME": str(wfx.home)})
    container = build_container(settings)
    create_all_tables(container)
    assert container.token_verifier().verify(token).user_id == "alice"


@pytest.mark.parametrize(("ttl", "seconds"), [("30m", 1800), ("2d", 172800), ("90", 90)])
def test_the_ttl_sets_the_expiry(wfx: Wfx, ttl: str, seconds: int) -> None:
    token = wfx.ok("auth", "token", "bob", "--ttl", ttl).stdout.strip()

    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == seconds
    assert abs(claims["iat"] - datetime.now(UTC).timestamp()) < 60


@pytest.mark.parametrize("ttl", ["soon", "1y", "0", "-5"])
def test_a_bad_ttl_exits_2_naming_the_option(wfx: Wfx, ttl: str) -> None:
    assert_bad_input(wfx("auth", "token", "bob", "--ttl", ttl), "--ttl")
    assert not (wfx.home / KEY_FILE_NAME).exists()


def test_a_key_file_wfx_cannot_sign_with_is_refused_with_a_whole_message(wfx: Wfx) -> None:
    key = wfx.home / KEY_FILE_NAME
    key.write_text("not a key\n")
    key.chmod(0o600)
    # redaction read `key.pem: the` as a secret after its name and printed `[REDACTED] an Ed25519`
    assert_bad_input(
        wfx("auth", "token", "bob"), str(key), "is not an Ed25519 private key in PEM", "delete it"
    )
    key.chmod(0o644)
    refused = wfx("auth", "token", "bob")
    assert_bad_input(refused, str(key), "is open to other users (mode 0644)", "`chmod 600` it")
    assert "REDACTED" not in refused.stderr


def test_a_key_file_that_is_a_link_out_of_the_home_is_not_followed(
    wfx: Wfx, tmp_path: Path
) -> None:
    elsewhere = wfx.in_home(tmp_path / "elsewhere")
    assert elsewhere("auth", "token", "bob").code == 0  # a good key, 0600, outside this home
    key = wfx.home / KEY_FILE_NAME
    key.symlink_to(elsewhere.home / KEY_FILE_NAME)

    refused = wfx("auth", "token", "bob")
    assert_bad_input(refused, str(key), "is a symbolic link", "WFX_HOME")
    key.unlink()
    key.symlink_to(tmp_path / "nowhere.pem")  # dangling: not "cannot write" the home
    assert_bad_input(wfx("auth", "token", "bob"), str(key), "is a symbolic link")
    assert not (tmp_path / "nowhere.pem").exists()


def test_a_key_path_that_is_no_file_is_refused_at_once(wfx: Wfx) -> None:
    """A FIFO there held `wfx auth token` (and the service's start) in its open for ever; a
    folder there failed with `IsADirectoryError`."""
    key = wfx.home / KEY_FILE_NAME
    wfx.home.mkdir(parents=True, exist_ok=True)
    os.mkfifo(key)
    assert_bad_input(wfx("auth", "token", "bob", timeout=10), str(key), "is not a file")
    key.unlink()
    key.mkdir()
    assert_bad_input(wfx("auth", "token", "bob", timeout=10), str(key), "is not a file")


def test_every_user_a_token_is_issued_for_can_be_revoked_by_name(wfx: Wfx) -> None:
    # an e-mail address may hold '#': its token was issued, and `revoke USER` refused it
    user = "a#b@example.com"
    assert wfx("auth", "token", user).code == 0
    revoked = wfx("auth", "revoke", user)
    assert revoked.code == 0, str(revoked)
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        (stored,) = connection.execute(
            'SELECT "authPartition" FROM "WfxAuthorizationTable" '
            "WHERE \"authPartition\" LIKE 'revokedUser#%'"
        ).fetchone()
    assert stored == f"revokedUser#{user}"
    # the rule of a bad token id read whole, where redaction took `--token-id: must` for a secret
    pasted = wfx("auth", "revoke", "--token-id", "x" * 300)
    assert_bad_input(pasted, "--token-id", "must be 1-256 characters")
