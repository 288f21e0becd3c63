"""CasbinAuthorizer: casbin agrees with the reference decision; the enforcer is kept until the
stored revision moves; admin and SYSTEM_USER are allowed everything."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.authz.casbin_authorizer import CasbinAuthorizer
from adapters.sqlite.authorization_store import SqliteAuthorizationStore
from adapters.sqlite.database import SqliteDatabase
from adapters.tables import TableNames
from domain.authorization import SYSTEM_USER, Action, Subject
from domain.constraints import (
    AuthorizationPolicy,
    Constraint,
    Criterion,
    Effect,
    Operator,
    Permission,
    Role,
    decide_by_constraints,
)


class FixedPolicy:
    """The two reads the authorizer makes, counted."""

    def __init__(self, constraints: list[Constraint], revision: str = "1") -> None:
        self.constraints, self.current = constraints, revision
        self.policy_reads = 0

    def revision(self) -> str:
        return self.current

    def policy(self) -> AuthorizationPolicy:
        self.policy_reads += 1
        roles = tuple(Role(name=name) for name in sorted({c.role for c in self.constraints}))
        return AuthorizationPolicy(
            revision=self.current, roles=roles, constraints=tuple(self.constraints)
        )


def rule(
    role: str,
    constraint_id: str,
    effect: Effect,
    database: str,
    action: Action = Action.GET,
    operator: Operator = Operator.EQUALS,
) -> Constraint:
    return Constraint(
        role=role,
        constraint_id=constraint_id,
        object_type="workflow",
        criteria_and=(Criterion(field="databaseId", operator=operator, value=database),),
        permissions=(Permission(action=action, effect=effect),),
    )


def workflow(database: str) -> dict[str, str]:
    return {"object__type": "workflow", "databaseId": database, "workflowId": "wf"}


def authorizer(store: FixedPolicy, max_age: float = 0.0) -> CasbinAuthorizer:
    return CasbinAuthorizer(store, max_age_seconds=max_age)  # type: ignore[arg-type]


def test_admin_and_system_user_are_allowed_everything_on_an_empty_store() -> None:
    decide = authorizer(FixedPolicy([])).decide
    assert decide(Subject(user_id="ann", roles=("admin",)), workflow("db1"), Action.DELETE).allowed
    assert decide(Subject(user_id=SYSTEM_USER), workflow("db1"), Action.POST).allowed
    refused = decide(Subject(user_id="bob"), workflow("db1"), Action.GET)
    assert not refused.allowed and refused.rule == "no role"


def test_the_decision_names_the_constraint_that_decided() -> None:
    store = FixedPolicy(
        [
            rule("viewer", "read-all", Effect.ALLOW, ".*", operator=Operator.CONTAINS),
            rule("blocked", "deny-db2", Effect.DENY, "db2"),
        ]
    )
    decide = authorizer(store).decide
    viewer = Subject(user_id="v", roles=("viewer",))
    both = Subject(user_id="b", roles=("viewer", "blocked"))
    assert decide(viewer, workflow("db2"), Action.GET).rule == "viewer/read-all"
    denied = decide(both, workflow("db2"), Action.GET)
    assert not denied.allowed and denied.rule == "blocked/deny-db2"
    assert decide(both, workflow("db1"), Action.GET).allowed
    assert decide(viewer, workflow("db1"), Action.PUT).rule == "no constraint allows it"


def test_the_policy_is_read_again_only_when_the_revision_moves() -> None:
    store = FixedPolicy([rule("viewer", "read-db1", Effect.ALLOW, "db1")])
    decide = authorizer(store).decide
    viewer = Subject(user_id="v", roles=("viewer",))
    for database in ("db1", "db2", "db1", "db2"):
        decide(viewer, workflow(database), Action.GET)
    assert store.policy_reads == 1
    store.constraints = [rule("viewer", "read-db2", Effect.ALLOW, "db2")]
    store.current = "2"
    assert decide(viewer, workflow("db2"), Action.GET).allowed
    assert not decide(viewer, workflow("db1"), Action.GET).allowed
    assert store.policy_reads == 2


def test_within_max_age_the_revision_is_not_read_at_all() -> None:
    store = FixedPolicy([rule("viewer", "read-db1", Effect.ALLOW, "db1")])
    cached = authorizer(store, max_age=3600)
    viewer = Subject(user_id="v", roles=("viewer",))
    assert cached.decide(viewer, workflow("db1"), Action.GET).allowed
    store.constraints, store.current = [], "2"
    assert cached.decide(viewer, workflow("db1"), Action.GET).allowed  # not yet seen
    cached.invalidate()
    assert not cached.decide(viewer, workflow("db1"), Action.GET).allowed


def test_a_role_set_sees_only_its_own_constraints_on_a_real_store() -> None:
    database = SqliteDatabase(None)
    store = SqliteAuthorizationStore(database, TableNames())
    store.create_tables()
    for name in ("a", "b"):
        store.add_role(Role(name=name))
    store.put_constraints([rule("a", "read-db1", Effect.ALLOW, "db1")])
    decide = CasbinAuthorizer(store, max_age_seconds=0).decide
    assert decide(Subject(user_id="x", roles=("a",)), workflow("db1"), Action.GET).allowed
    assert not decide(Subject(user_id="x", roles=("b",)), workflow("db1"), Action.GET).allowed
    store.put_constraints([rule("b", "deny-db1", Effect.DENY, "db1")])
    assert not decide(Subject(user_id="x", roles=("a", "b")), workflow("db1"), Action.GET).allowed
    database.close()


ROLES = st.sampled_from(["r1", "r2", "r3"])
DATABASES = st.sampled_from(["db1", "db2", "db.2"])
RULES = st.lists(
    st.builds(
        rule,
        ROLES,
        st.uuids().map(str),
        st.sampled_from(list(Effect)),
        DATABASES,
        st.sampled_from([Action.GET, Action.PUT]),
        st.sampled_from([Operator.EQUALS, Operator.CONTAINS, Operator.DOES_NOT_CONTAIN]),
    ),
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(RULES, st.sets(ROLES, min_size=1), DATABASES, st.sampled_from([Action.GET, Action.PUT]))
def test_casbin_decides_as_the_reference_decision(
    constraints: list[Constraint], roles: set[str], database: str, action: Action
) -> None:
    decision = authorizer(FixedPolicy(constraints)).decide(
        Subject(user_id="u", roles=tuple(sorted(roles))), workflow(database), action
    )
    held = [c for c in constraints if c.role in roles]
    allowed, _ = decide_by_constraints(held, workflow(database), action)
    assert decision.allowed == allowed
