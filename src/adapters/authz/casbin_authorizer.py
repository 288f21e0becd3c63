"""`Authorizer` on pycasbin: the stored constraints as casbin policies, deny wins.

The model is VAMS's shape: a policy is (role, constraint, action, allow|deny); the matcher asks
a custom function whether the constraint's criteria match the request's object, and the effect
is "some allow and no deny". One enforcer is built per role set a caller holds, from only those
roles' constraints, and kept until the stored revision moves; decisions are memoised per
(roles, object, action) for the same revision, so a 50-row page asks casbin a few times at most.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

from application.ports.access import AuthorizationStore
from domain.authorization import (
    ADMIN_ROLE,
    SYSTEM_USER,
    AccessDecision,
    Action,
    Subject,
    is_administrator,
    role_key,
    subject_key,
)
from domain.constraints import AuthorizationPolicy, Constraint, Effect

if TYPE_CHECKING:
    import casbin

MODEL = """
[request_definition]
r = sub, obj, act

[policy_definition]
p = sub, constraint, act, eft

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = r.act == p.act && constraintMatches(r.obj, p.constraint)
"""
DEFAULT_DENY = "no constraint allows it"
MEMO_LIMIT = 50_000  # decisions kept per revision; a bound, not a tuning knob
DEFAULT_MAX_AGE_SECONDS = 1.0


def constraint_name(constraint: Constraint) -> str:
    """How a decision names its constraint: the role and the id (a role name holds no '/')."""
    return f"{constraint.role}/{constraint.constraint_id}"


def freeze(obj: Mapping[str, Any]) -> Hashable:
    """An object as a memo key, whatever its key order; a list value (tags) as a tuple."""
    try:
        return frozenset(obj.items())  # the usual object: every value a string
    except TypeError:
        return frozenset(
            (key, tuple(value) if isinstance(value, list | set | frozenset) else value)
            for key, value in obj.items()
        )


class _RoleSetEnforcer:
    """The casbin enforcer of one role set, and the constraints it names."""

    def __init__(self, constraints: list[Constraint]) -> None:
        import casbin

        self.by_name = {constraint_name(c): c for c in constraints}
        model = casbin.Enforcer.new_model(text=MODEL)
        self.enforcer: casbin.Enforcer = casbin.Enforcer(model)
        self.enforcer.add_function("constraintMatches", self._matches)
        rules = [
            [role_key(c.role), constraint_name(c), p.action.value, p.effect.value]
            for c in constraints
            for p in c.permissions
        ]
        if rules:
            self.enforcer.add_policies(rules)

    def _matches(self, obj: Mapping[str, Any], name: str) -> bool:
        return self.by_name[name].matches(obj)

    def decide(self, user: str, obj: Mapping[str, Any], action: Action) -> AccessDecision:
        allowed, explain = self.enforcer.enforce_ex(user, dict(obj), action.value)
        if allowed:
            return AccessDecision(allowed=True, rule=self._allowing(obj, action))
        # casbin names the deny policy that matched; none matched when nothing allowed it.
        return AccessDecision(allowed=False, rule=explain[1] if explain else DEFAULT_DENY)

    def _allowing(self, obj: Mapping[str, Any], action: Action) -> str:
        # casbin explains a deny, not an allow: the audit still wants the constraint's name.
        for name, constraint in self.by_name.items():
            if constraint.effect_on(action) is Effect.ALLOW and constraint.matches(obj):
                return name
        return ""


class _CompiledPolicy:
    def __init__(self, policy: AuthorizationPolicy) -> None:
        self.revision = policy.revision
        self._constraints = policy.constraints
        self._enforcers: dict[frozenset[str], _RoleSetEnforcer] = {}
        self.memo: dict[tuple[frozenset[str], Hashable, Action], AccessDecision] = {}
        self._lock = threading.Lock()

    def enforcer(self, roles: frozenset[str]) -> _RoleSetEnforcer:
        found = self._enforcers.get(roles)
        if found is None:
            with self._lock:
                found = self._enforcers.get(roles)
                if found is None:
                    mine = [c for c in self._constraints if c.role in roles]
                    found = self._enforcers[roles] = _RoleSetEnforcer(mine)
        return found


class CasbinAuthorizer:
    """Decides by the stored constraints; the admin role and SYSTEM_USER may do anything.

    The store's revision is read at most once per `max_age_seconds`: a change made elsewhere
    reaches a running service that much later, and a decision costs no store read meanwhile.
    """

    def __init__(
        self,
        store: AuthorizationStore,
        max_age_seconds: float = DEFAULT_MAX_AGE_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._max_age = max_age_seconds
        self._monotonic = monotonic
        self._compiled: _CompiledPolicy | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()

    def decide(self, subject: Subject, obj: Mapping[str, Any], action: Action) -> AccessDecision:
        if is_administrator(subject):
            who = SYSTEM_USER if subject.user_id == SYSTEM_USER else f"role {ADMIN_ROLE}"
            return AccessDecision(allowed=True, rule=who)
        roles = frozenset(subject.roles)
        if not roles:
            return AccessDecision(allowed=False, rule="no role")
        compiled = self._current()
        key = (roles, freeze(obj), action)
        decision = compiled.memo.get(key)
        if decision is None:
            decision = compiled.enforcer(roles).decide(subject_key(subject.user_id), obj, action)
            if len(compiled.memo) >= MEMO_LIMIT:
                compiled.memo.clear()
            compiled.memo[key] = decision
        return decision

    def invalidate(self) -> None:
        """Read the revision on the next decision (after this process changed the store)."""
        self._checked_at = float("-inf")

    def _current(self) -> _CompiledPolicy:
        now = self._monotonic()
        compiled = self._compiled
        if compiled is not None and now - self._checked_at < self._max_age:
            return compiled
        with self._lock:
            compiled = self._compiled
            if compiled is None or self._store.revision() != compiled.revision:
                compiled = self._compiled = _CompiledPolicy(self._store.policy())
            self._checked_at = now
        return compiled
