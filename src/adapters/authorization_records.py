"""The items of the authorization table, shared by both storage adapters.

One partition per role (`role#<name>`: the role item, then one item per constraint), one per
user (`user#<id>`: one item per role held) and one revision item. '#' is refused in role names,
user ids and constraint ids, so a key never reads two ways. Beside each role made since 12-06, a
name item keyed by the name case-folded (`roleNameFolded#<name>`), written with the role on
condition it is absent: two roles one letter-case apart never both land, however they race.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adapters.tables import REVOKED_TOKEN_EXPIRY
from domain.constraints import (
    STORED,
    AuthorizationPolicy,
    Constraint,
    Role,
    RoleAssignment,
    lookalike_problem,
)
from domain.errors import DomainError, InvalidInputError, RoleAlreadyExistsError

PARTITION = "authPartition"
SORT = "authSort"
ROLE_SORT = "#role"
REVISION_KEY = "#revision"
REVISION = "revision"
ROLE_NAME_SORT = "#roleName"

Item = dict[str, Any]


def role_partition(role_name: str) -> str:
    return f"role#{role_name}"


def user_partition(user_id: str) -> str:
    return f"user#{user_id}"


def constraint_sort(constraint_id: str) -> str:
    return f"constraint#{constraint_id}"


def assignment_sort(role_name: str) -> str:
    return f"role#{role_name}"


def revision_key() -> Item:
    return {PARTITION: REVISION_KEY, SORT: REVISION_KEY}


def build_role_record(role: Role) -> Item:
    return {
        PARTITION: role_partition(role.name),
        SORT: ROLE_SORT,
        "roleName": role.name,
        "description": role.description,
    }


def role_name_key(role_name: str) -> Item:
    # casefold, as lookalike_problem compares: `Straße` and `STRASSE` are one name too
    return {PARTITION: f"roleNameFolded#{role_name.casefold()}", SORT: ROLE_NAME_SORT}


def build_role_name_record(role: Role) -> Item:
    return role_name_key(role.name) | {"roleName": role.name}


def name_taken(role_name: str, holder: Item) -> DomainError:
    """The refusal of a role whose folded name `holder` (the stored name item) holds already."""
    other = str(holder["roleName"])
    if other == role_name:
        return RoleAlreadyExistsError(role_name)
    return InvalidInputError(f"role: {lookalike_problem(role_name, [other])}")


def build_constraint_record(constraint: Constraint) -> Item:
    return {
        PARTITION: role_partition(constraint.role),
        SORT: constraint_sort(constraint.constraint_id),
        "constraint": constraint.model_dump(mode="json"),
    }


def build_assignment_record(assignment: RoleAssignment) -> Item:
    return {
        PARTITION: user_partition(assignment.user_id),
        SORT: assignment_sort(assignment.role),
        "userId": assignment.user_id,
        "roleName": assignment.role,
    }


def is_role(item: Item) -> bool:
    return str(item[PARTITION]).startswith("role#") and item[SORT] == ROLE_SORT


def is_constraint(item: Item) -> bool:
    return str(item[PARTITION]).startswith("role#") and str(item[SORT]).startswith("constraint#")


def is_assignment(item: Item) -> bool:
    return str(item[PARTITION]).startswith("user#")


def _parse_role_record(item: Item) -> Role:
    return Role(name=item["roleName"], description=item.get("description", ""))


def _parse_constraint_record(item: Item) -> Constraint:
    return Constraint.model_validate(item["constraint"], context=STORED)


def _parse_assignment_record(item: Item) -> RoleAssignment:
    return RoleAssignment.model_validate(
        {"user_id": item["userId"], "role": item["roleName"]}, context=STORED
    )


def roles_in(items: Iterable[Item]) -> list[Role]:
    """The roles among the items, by name: every store answers in this one order."""
    return sorted((_parse_role_record(i) for i in items if is_role(i)), key=lambda role: role.name)


def constraints_in(items: Iterable[Item]) -> list[Constraint]:
    return sorted(
        (_parse_constraint_record(i) for i in items if is_constraint(i)),
        key=lambda c: (c.role, c.constraint_id),
    )


def assignments_in(items: Iterable[Item]) -> list[RoleAssignment]:
    return sorted(
        (_parse_assignment_record(i) for i in items if is_assignment(i)),
        key=lambda a: (a.user_id, a.role),
    )


def policy_of(revision: str, items: Iterable[Item]) -> AuthorizationPolicy:
    """The policy the items make, at the revision read with them."""
    items = list(items)
    return AuthorizationPolicy(
        revision=revision, roles=tuple(roles_in(items)), constraints=tuple(constraints_in(items))
    )


# Revoked tokens (a logout, `wfx auth revoke`): one item per token id, kept until the token would
# expire, and one per user whose tokens issued up to a moment are all refused. Neither partition
# prefix is `role#` or `user#`, so no role, constraint or assignment read ever takes them.
REVOKED_SORT = "#revoked"


def revoked_token_key(token_id: str) -> Item:
    return {PARTITION: f"revokedToken#{token_id}", SORT: REVOKED_SORT}


def revoked_user_key(user_id: str) -> Item:
    return {PARTITION: f"revokedUser#{user_id}", SORT: REVOKED_SORT}


def build_revoked_token_record(token_id: str, expires_at: int) -> Item:
    return revoked_token_key(token_id) | {REVOKED_TOKEN_EXPIRY: expires_at}


def build_revoked_user_record(user_id: str, issued_until: int) -> Item:
    return revoked_user_key(user_id) | {"issuedUntil": issued_until}


def revoked(token: Item | None, user: Item | None, issued_at: int) -> bool:
    """A token is refused when its id is revoked, or its user's tokens issued up to a moment
    after its own issue are."""
    return token is not None or (user is not None and issued_at <= int(user["issuedUntil"]))


# A claim on a run while `wfx import` writes it on DynamoDB (adapters/dynamodb/import_claims.py):
# one item per run being imported, deleted at the import's end, `expiresAt` its TTL (kept with
# none when the import was cut short: the mark of the state it left part of). Its
# partition prefix is none of the above: no role, assignment or revocation read takes it, and
# no VAMS reader opens this table.
IMPORT_CLAIM_SORT = "#importClaim"
IMPORT_CLAIM_STATE = "stateDigest"  # which state of the run the import writes: its main row's


def import_claim_key(workflow_execution_id: str) -> Item:
    return {PARTITION: f"importClaim#{workflow_execution_id}", SORT: IMPORT_CLAIM_SORT}


def build_import_claim_record(
    workflow_execution_id: str, token: str, claimed_at: str, expires_at: int, state: str
) -> Item:
    return import_claim_key(workflow_execution_id) | {
        "claimToken": token,
        "claimedAt": claimed_at,
        REVOKED_TOKEN_EXPIRY: expires_at,
        IMPORT_CLAIM_STATE: state,
    }
