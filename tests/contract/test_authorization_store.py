"""The AuthorizationStore contract: roles, constraints, assignments and the revision."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from application.ports.access import AuthorizationStore
from domain.authorization import Action
from domain.constraints import (
    STORED,
    Constraint,
    Criterion,
    Effect,
    Operator,
    Permission,
    Role,
    RoleAssignment,
)
from domain.errors import InvalidInputError, RoleAlreadyExistsError, RoleNotFoundError


def a_constraint(role: str, constraint_id: str, database: str = "db1") -> Constraint:
    return Constraint(
        role=role,
        constraint_id=constraint_id,
        object_type="workflow",
        criteria_and=(Criterion(field="databaseId", operator=Operator.EQUALS, value=database),),
        criteria_or=(Criterion(field="tags", operator=Operator.IS_ONE_OF, value=("a", "b")),),
        permissions=(Permission(action=Action.GET, effect=Effect.ALLOW),),
    )


def test_a_new_store_has_no_role_and_revision_zero(authorization_store: AuthorizationStore) -> None:
    assert authorization_store.list_roles() == []
    assert authorization_store.list_constraints() == []
    assert authorization_store.list_assignments() == []
    assert authorization_store.revision() == "0"
    assert authorization_store.policy().revision == "0"


def test_roles_are_listed_by_name_and_refused_twice(
    authorization_store: AuthorizationStore,
) -> None:
    authorization_store.add_role(Role(name="Database User", description="users of db1"))
    authorization_store.add_role(Role(name="analyst"))
    with pytest.raises(RoleAlreadyExistsError, match="analyst"):
        authorization_store.add_role(Role(name="analyst", description="again"))
    assert authorization_store.list_roles() == [
        Role(name="Database User", description="users of db1"),
        Role(name="analyst"),
    ]


def test_every_role_or_constraint_write_moves_the_revision(
    authorization_store: AuthorizationStore,
) -> None:
    seen = {authorization_store.revision()}
    authorization_store.add_role(Role(name="analyst"))
    seen.add(authorization_store.revision())
    authorization_store.put_constraints([a_constraint("analyst", "read-db1")])
    seen.add(authorization_store.revision())
    authorization_store.delete_role("analyst")
    seen.add(authorization_store.revision())
    assert len(seen) == 4


def test_constraints_round_trip_and_replace_by_id(authorization_store: AuthorizationStore) -> None:
    authorization_store.add_role(Role(name="analyst"))
    authorization_store.add_role(Role(name="viewer"))
    first = a_constraint("analyst", "read-db1")
    authorization_store.put_constraints([first, a_constraint("viewer", "read-db1")])
    replaced = a_constraint("analyst", "read-db1", database="db2")
    authorization_store.put_constraints([replaced])
    assert authorization_store.list_constraints("analyst") == [replaced]
    assert [c.role for c in authorization_store.list_constraints()] == ["analyst", "viewer"]
    policy = authorization_store.policy()
    assert policy.revision == authorization_store.revision()
    assert [r.name for r in policy.roles] == ["analyst", "viewer"]
    assert policy.constraints[0] == replaced


def test_a_constraint_or_assignment_of_a_missing_role_is_refused(
    authorization_store: AuthorizationStore,
) -> None:
    with pytest.raises(RoleNotFoundError, match="ghost"):
        authorization_store.put_constraints([a_constraint("ghost", "read-db1")])
    with pytest.raises(RoleNotFoundError, match="ghost"):
        authorization_store.assign(RoleAssignment(user_id="alice", role="ghost"))
    with pytest.raises(RoleNotFoundError, match="ghost"):
        authorization_store.delete_role("ghost")
    assert authorization_store.list_constraints() == []
    assert authorization_store.list_assignments() == []


def test_assignments_are_idempotent_and_listed_per_user(
    authorization_store: AuthorizationStore,
) -> None:
    for name in ("analyst", "viewer"):
        authorization_store.add_role(Role(name=name))
    authorization_store.assign(RoleAssignment(user_id="bob", role="viewer"))
    authorization_store.assign(RoleAssignment(user_id="alice@example.com", role="viewer"))
    authorization_store.assign(RoleAssignment(user_id="alice@example.com", role="analyst"))
    authorization_store.assign(RoleAssignment(user_id="alice@example.com", role="analyst"))
    assert authorization_store.roles_of("alice@example.com") == ("analyst", "viewer")
    assert authorization_store.roles_of("nobody") == ()
    assert [(a.user_id, a.role) for a in authorization_store.list_assignments()] == [
        ("alice@example.com", "analyst"),
        ("alice@example.com", "viewer"),
        ("bob", "viewer"),
    ]
    assert authorization_store.unassign(RoleAssignment(user_id="bob", role="viewer"))
    assert not authorization_store.unassign(RoleAssignment(user_id="bob", role="viewer"))
    assert authorization_store.list_assignments("bob") == []


def test_deleting_a_role_drops_its_constraints_and_assignments(
    authorization_store: AuthorizationStore,
) -> None:
    for name in ("analyst", "viewer"):
        authorization_store.add_role(Role(name=name))
    authorization_store.put_constraints(
        [a_constraint("analyst", "read-db1"), a_constraint("viewer", "read-db1")]
    )
    authorization_store.assign(RoleAssignment(user_id="alice", role="analyst"))
    authorization_store.assign(RoleAssignment(user_id="alice", role="viewer"))
    authorization_store.delete_role("analyst")
    assert [r.name for r in authorization_store.list_roles()] == ["viewer"]
    assert [c.role for c in authorization_store.list_constraints()] == ["viewer"]
    assert authorization_store.roles_of("alice") == ("viewer",)


def test_many_constraints_are_written_at_once(authorization_store: AuthorizationStore) -> None:
    authorization_store.add_role(Role(name="analyst"))
    constraints = [a_constraint("analyst", f"c{index:03}") for index in range(120)]
    authorization_store.put_constraints(constraints)
    assert authorization_store.list_constraints("analyst") == constraints


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: Role(name="role::admin"), "name"),
        (lambda: Role(name="a#b"), "name"),
        (lambda: Role(name=" padded"), "name"),
        (lambda: RoleAssignment(user_id="", role="viewer"), "user_id"),
        (lambda: RoleAssignment(user_id="a\nb", role="viewer"), "user_id"),
        (lambda: a_constraint("viewer", "has#hash"), "constraint_id"),
    ],
)
def test_bad_names_are_refused_naming_the_field_and_the_rule(build: object, field: str) -> None:
    with pytest.raises(ValidationError) as refused:
        build()  # type: ignore[operator]
    error = refused.value.errors()[0]
    assert error["loc"] == (field,)
    assert "must" in error["msg"]


def test_a_constraint_stored_before_patterns_were_bounded_still_reads(
    authorization_store: AuthorizationStore,
) -> None:
    # refused as input now (it backtracks without end), but one such old row must not make
    # every request's policy unreadable
    shape = a_constraint("old", "old-slow").model_dump(mode="json")
    shape["criteria_and"][0]["value"] = "(a+)+$"
    with pytest.raises(ValidationError, match="repetition inside a repetition"):
        Constraint.model_validate(shape)
    authorization_store.add_role(Role(name="old"))
    authorization_store.put_constraints([Constraint.model_validate(shape, context=STORED)])

    (read,) = authorization_store.policy().constraints
    assert read.criteria_and[0].value == "(a+)+$"
    assert authorization_store.list_constraints("old") == [read]


def test_a_role_one_letter_case_from_a_stored_one_is_refused_by_the_write_itself(
    authorization_store: AuthorizationStore,
) -> None:
    # the use case's look at the roles is advisory: a create racing it lands here, after the
    # other's write, and the store's own write refuses it
    authorization_store.add_role(Role(name="Analyst", description="first"))
    revision = authorization_store.revision()
    for lookalike in ("analyst", "ANALYST"):
        with pytest.raises(InvalidInputError, match=f"role: '{lookalike}' .*'Analyst'.* case"):
            authorization_store.add_role(Role(name=lookalike))
    with pytest.raises(RoleAlreadyExistsError, match="Analyst"):
        authorization_store.add_role(Role(name="Analyst", description="again"))
    assert authorization_store.list_roles() == [Role(name="Analyst", description="first")]
    assert authorization_store.revision() == revision  # nothing of a refused create written

    authorization_store.delete_role("Analyst")  # its name goes with it
    authorization_store.add_role(Role(name="analyst"))
    assert authorization_store.list_roles() == [Role(name="analyst")]
    assert authorization_store.policy().roles == (Role(name="analyst"),)
