"""Revoked tokens on every store: a token revoked by id is refused, other tokens not; a user's
tokens issued up to the revocation are refused, those issued after it not; and no role,
assignment or policy read ever sees a revocation."""

from __future__ import annotations

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
