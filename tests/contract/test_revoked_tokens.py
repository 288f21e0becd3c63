"""Revoked tokens on every store: a token revoked by id is refused, other tokens not; a user's
tokens issued up to the revocation are refused, those issued after it not; and no role,
assignment or policy read ever sees a revocation."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from domain.constraints import Role, RoleAssignment

STORES = ["sqlite_file", "sqlite_memory", "dynamodb"]


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_authorization_store")


def test_a_token_revoked_by_id_is_refused_and_no_other(store: Any) -> None:
    assert not store.is_revoked("t1", "alice", 100)
    store.revoke_token("t1", expires_at=2_000_000_000)
    assert store.is_revoked("t1", "alice", 100)
    assert store.is_revoked("t1", "bob", 100)  # the id is the token, whoever it names
    assert not store.is_revoked("t2", "alice", 100)


def test_a_user_s_tokens_issued_until_the_revocation_are_refused(store: Any) -> None:
    store.revoke_user("alice", issued_until=1000)
    assert store.is_revoked("t1", "alice", 999)
    assert store.is_revoked("t1", "alice", 1000)
    assert not store.is_revoked("t1", "alice", 1001)  # issued after: a new login works
    assert not store.is_revoked("t1", "bob", 999)
    store.revoke_user("alice", issued_until=2000)  # a later revocation moves the moment on
    assert store.is_revoked("t1", "alice", 1500)


def test_revocations_are_no_roles_assignments_or_policy(store: Any) -> None:
    store.add_role(Role(name="reader"))
    store.assign(RoleAssignment(user_id="alice", role="reader"))
    before = (store.list_roles(), store.list_assignments(), store.policy())
    store.revoke_token("t1", expires_at=2_000_000_000)
    store.revoke_user("alice", issued_until=1000)
    assert (store.list_roles(), store.list_assignments(), store.policy()) == before
    assert store.roles_of("alice") == ("reader",)


def test_a_revocation_past_its_token_s_expiry_is_removed_by_the_next_on_sqlite(
    sqlite_file_authorization_store: Any, tmp_path: Path
) -> None:
    # every logout adds one; an expired token is refused by its `exp` anyway, and every policy
    # or role read goes through the whole table
    store = sqlite_file_authorization_store
    now = int(time.time())
    store.revoke_token("old", expires_at=now - 1)
    store.revoke_token("live", expires_at=now + 3600)
    store.revoke_user("alice", issued_until=now - 10**6)  # a user's: no expiry, kept
    store.revoke_token("next", expires_at=now + 3600)

    with sqlite3.connect(tmp_path / "wfx.db") as connection:
        kept = connection.execute(
            'SELECT "authPartition" FROM "WfxAuthorizationTable" ORDER BY 1'
        ).fetchall()
    assert [key for (key,) in kept] == [
        "revokedToken#live",
        "revokedToken#next",
        "revokedUser#alice",
    ]
    assert store.is_revoked("live", "bob", now) and store.is_revoked("next", "bob", now)
