"""Roles and their constraints, VAMS's model: a constraint allows or denies actions on the
objects its criteria match; across all of a caller's roles, one deny wins over any allow.

A constraint matches an object of its `object_type` when every `criteria_and` criterion matches
and, if it has any `criteria_or`, at least one of those does. Values are regular expressions for
the comparing operators, as in VAMS (`contains .*` matches anything; a lone `*` reads as `.*`,
the wildcard VAMS's admin constraints use).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from domain.authorization import ADMIN_ROLE, HOST_CODE_OBJECT_TYPE, Action
from domain.triggers import user_id_problem as user_name_problem

ROLE_NAME_LIMIT = 100
USER_ID_LIMIT = 256
CONSTRAINT_ID_LIMIT = 200
# Letters, digits, spaces and -_.@ (template names read as role names: "Database User"); not ':'
# (subjects are `user::<id>`, roles `role::<name>`) nor '#' (the stores' own key separators).
_ROLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.@-]*")
_FIELD_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# VAMS's object types; wfx asks about api (tier 1) and database, asset and workflow (tier 2),
# and keeps the others so that a VAMS template imports whole. `hostCode` is wfx's own: the
# right to publish a step that runs code on the service's machine (domain.authorization).
OBJECT_TYPES = frozenset(
    {
        "api",
        "web",
        "database",
        "asset",
        "pipeline",
        "workflow",
        "metadataSchema",
        "tag",
        "tagType",
        "role",
        "userRole",
        HOST_CODE_OBJECT_TYPE,
    }
)


def role_name_problem(name: str) -> str | None:
    """Why `name` cannot name a role, or None."""
    if not 1 <= len(name) <= ROLE_NAME_LIMIT:
        return f"must be 1 to {ROLE_NAME_LIMIT} characters, got {len(name)}"
    if not _ROLE_NAME.fullmatch(name) or name != name.strip():
        return (
            "must start with a letter or digit and hold only letters, digits, spaces and "
            f"-_.@ (no ':' or '#', no trailing space), got {name!r}"
        )
    return None


def lookalike_problem(name: str, existing: Iterable[str]) -> str | None:
    """Why a new role may not be called `name` beside the `existing` ones and the built-in
    `admin`: one of them is spelt the same but for case, or None."""
    for other in (ADMIN_ROLE, *existing):
        if other != name and other.casefold() == name.casefold():
            built_in = " (built in: it is allowed everything)" if other == ADMIN_ROLE else ""
            return (
                f"{name!r} differs from the role {other!r}{built_in} only in case; a user "
                f"given it would hold none of {other!r}'s rights: use {other!r} or another name"
            )
    return None


def user_id_problem(user_id: str) -> str | None:
    """Why `user_id` cannot be given a role, or None: it must name a user a token can be issued
    to and a gate can name (one rule, domain.triggers), without '#' (the stores' key separator)
    or a space at either end."""
    if not 1 <= len(user_id) <= USER_ID_LIMIT:
        return f"must be 1 to {USER_ID_LIMIT} characters, got {len(user_id)}"
    problem = user_name_problem(user_id)
    if problem is not None:
        return problem
    if user_id != user_id.strip() or "#" in user_id:
        return f"must hold no '#' and no leading or trailing space, got {user_id!r}"
    return None


def constraint_id_problem(constraint_id: str) -> str | None:
    if not 1 <= len(constraint_id) <= CONSTRAINT_ID_LIMIT:
        return f"must be 1 to {CONSTRAINT_ID_LIMIT} characters, got {len(constraint_id)}"
    if _CONTROL.search(constraint_id) or "#" in constraint_id:
        return f"must hold no control character and no '#', got {constraint_id!r}"
    return None


def _checked(problem: str | None, value: str) -> str:
    if problem is not None:
        raise ValueError(problem)
    return value


RoleName = Annotated[str, AfterValidator(lambda name: _checked(role_name_problem(name), name))]


def _stored_user_id_problem(user_id: str) -> str | None:
    """The rule of a user id before C1 controls and bidi characters were refused (12-05): an
    assignment stored then still reads, and can be taken back."""
    if not 1 <= len(user_id) <= USER_ID_LIMIT:
        return f"must be 1 to {USER_ID_LIMIT} characters, got {len(user_id)}"
    if _CONTROL.search(user_id) or user_id != user_id.strip() or "#" in user_id:
        return f"must hold no C0 control character, no '#' and no outer space, got {user_id!r}"
    return None


def _user_id(user_id: str, info: ValidationInfo) -> str:
    stored = bool(info.context and info.context.get("stored"))
    return _checked((_stored_user_id_problem if stored else user_id_problem)(user_id), user_id)


UserId = Annotated[str, AfterValidator(_user_id)]
ConstraintId = Annotated[str, AfterValidator(lambda cid: _checked(constraint_id_problem(cid), cid))]


class Role(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: RoleName
    description: str = Field(default="", max_length=1000)


class RoleAssignment(BaseModel):
    """A user holds a role (beside any role its identity provider names)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    user_id: UserId
    role: RoleName


class Operator(StrEnum):
    """How a criterion compares an object's field with its value. equals matches the whole
    field, contains any part, starts_with / ends_with either end; is_one_of holds when the field
    (one value, or a list such as `tags`) and the criterion's values share one."""

    EQUALS = "equals"
    CONTAINS = "contains"
    DOES_NOT_CONTAIN = "does_not_contain"
    STARTS_WITH = "starts_with"
    ENDS_WITH = "ends_with"
    IS_ONE_OF = "is_one_of"
    IS_NOT_ONE_OF = "is_not_one_of"


REGEX_OPERATORS = frozenset(
    {
        Operator.EQUALS,
        Operator.CONTAINS,
        Operator.DOES_NOT_CONTAIN,
        Operator.STARTS_WITH,
        Operator.ENDS_WITH,
    }
)


class Effect(StrEnum):
    ALLOW = "allow"
    DENY = "deny"


def _body(value: str) -> str:
    return ".*" if value == "*" else value


@lru_cache(maxsize=4096)
def _pattern(operator: Operator, value: str) -> re.Pattern[str]:
    body = _body(value)
    if operator is Operator.EQUALS:
        return re.compile(rf"(?:{body})\Z", re.DOTALL)
    if operator is Operator.STARTS_WITH:
        return re.compile(body, re.DOTALL)  # used with match(): anchored at the start
    if operator is Operator.ENDS_WITH:
        return re.compile(rf"(?:{body})\Z", re.DOTALL)  # used with search()
    return re.compile(body, re.DOTALL)


def field_values(obj: Mapping[str, Any], field: str) -> tuple[str, ...]:
    """An object's field as strings: none when absent, each element of a list."""
    value = obj.get(field)
    if value is None:
        return ()
    if isinstance(value, list | tuple | set | frozenset):
        return tuple(str(element) for element in value)
    return (str(value),)


# Python's engine backtracks: a repetition inside a repetition (or over alternatives) takes time
# exponential in the field's length, and each unbounded repetition one more power of it (four
# `.*` take 5 s on 256 characters). A constraint is matched on every request of its role's users,
# whose paths and names are theirs to choose.
# The stdlib's own parse of a pattern, to judge its cost (private modules typeshed leaves out).
sre_parser: Any = importlib.import_module("re._parser")
sre_constants: Any = importlib.import_module("re._constants")
_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)
_UNBOUNDED_REPEATS_LIMIT = 2
BACKTRACKING_RULE = (
    "a pattern may hold no repetition inside a repetition (nor of alternatives, such as "
    f"(a+)+ or (a|aa)*) and at most {_UNBOUNDED_REPEATS_LIMIT} unbounded repetitions (.* +), "
    "which could take minutes to match a long name"
)


def _subpatterns(node: tuple[Any, Any]) -> list[Any]:
    """The parsed sequences directly under one node of a parsed pattern."""
    opcode, argument = node
    if opcode in _REPEATS:
        return [argument[2]]
    if opcode is sre_constants.SUBPATTERN:
        return [argument[3]]
    if opcode is sre_constants.BRANCH:
        return list(argument[1])
    if opcode in (sre_constants.ASSERT, sre_constants.ASSERT_NOT, sre_constants.ATOMIC_GROUP):
        return [argument[1] if opcode is not sre_constants.ATOMIC_GROUP else argument]
    if opcode is sre_constants.GROUPREF_EXISTS:
        return [branch for branch in argument[1:] if branch is not None]
    return []


def _backtracks(sequence: Any, repeated: bool = False) -> tuple[bool, int]:
    """(whether `sequence` repeats a repetition or alternatives, its unbounded repetitions)."""
    unbounded = 0
    for node in sequence:
        opcode, argument = node
        is_repeat = opcode in _REPEATS and argument[1] > 1
        if repeated and (is_repeat or opcode is sre_constants.BRANCH):
            return True, unbounded
        if is_repeat and argument[1] is sre_constants.MAXREPEAT:
            unbounded += 1
        for inner in _subpatterns(node):
            nested, count = _backtracks(inner, repeated or is_repeat)
            if nested:
                return True, unbounded
            unbounded += count
    return False, unbounded


# The validation context of a constraint read back from a store: a pattern stored before the
# check above still reads, so that one old row does not refuse every request's policy.
STORED: dict[str, bool] = {"stored": True}


def backtracking_problem(pattern: str) -> str | None:
    """Why matching `pattern` could take too long, or None (a pattern that compiles)."""
    nested, unbounded = _backtracks(sre_parser.parse(pattern).data)
    if nested or unbounded > _UNBOUNDED_REPEATS_LIMIT:
        return BACKTRACKING_RULE
    return None


class Criterion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    field: str
    operator: Operator
    value: str | tuple[str, ...]

    @field_validator("field")
    @classmethod
    def _field_name(cls, field: str) -> str:
        if not _FIELD_NAME.fullmatch(field):
            raise ValueError(f"must be a field name such as databaseId, got {field!r}")
        return field

    @model_validator(mode="after")
    def _value_fits_operator(self, info: ValidationInfo) -> Criterion:
        if self.operator in REGEX_OPERATORS:
            if not isinstance(self.value, str):
                raise ValueError(f"value: {self.operator.value} takes one value, not a list")
            try:
                _pattern(self.operator, self.value)
            except re.error as error:
                raise ValueError(
                    f"value: not a regular expression ({error}): {self.value!r}"
                ) from None
            stored = bool(info.context and info.context.get("stored"))
            problem = None if stored else backtracking_problem(_body(self.value))
            if problem is not None:
                raise ValueError(f"value: {problem}, got {self.value!r}")
        return self

    @property
    def values(self) -> tuple[str, ...]:
        return (self.value,) if isinstance(self.value, str) else self.value

    def matches(self, obj: Mapping[str, Any]) -> bool:
        present = field_values(obj, self.field)
        operator = self.operator
        if operator is Operator.IS_ONE_OF:
            return not set(present).isdisjoint(self.values)
        if operator is Operator.IS_NOT_ONE_OF:
            return set(present).isdisjoint(self.values)
        assert isinstance(self.value, str)
        pattern = _pattern(operator, self.value)
        if operator is Operator.DOES_NOT_CONTAIN:
            return not any(pattern.search(value) for value in present)
        if operator in (Operator.EQUALS, Operator.STARTS_WITH):
            return any(pattern.match(value) for value in present)
        return any(pattern.search(value) for value in present)


class Permission(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    action: Action
    effect: Effect


class Constraint(BaseModel):
    """One rule of one role: on the objects it matches, each permission allows or denies an
    action."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    role: RoleName
    constraint_id: ConstraintId
    object_type: str
    description: str = Field(default="", max_length=1000)
    criteria_and: tuple[Criterion, ...] = ()
    criteria_or: tuple[Criterion, ...] = ()
    permissions: tuple[Permission, ...] = Field(min_length=1)

    @field_validator("object_type")
    @classmethod
    def _known_type(cls, object_type: str) -> str:
        if object_type not in OBJECT_TYPES:
            known = ", ".join(sorted(OBJECT_TYPES))
            raise ValueError(f"must be one of {known}, got {object_type!r}")
        return object_type

    def matches(self, obj: Mapping[str, Any]) -> bool:
        if obj.get("object__type") != self.object_type:
            return False
        if not all(criterion.matches(obj) for criterion in self.criteria_and):
            return False
        return not self.criteria_or or any(c.matches(obj) for c in self.criteria_or)

    def effect_on(self, action: Action) -> Effect | None:
        """What this constraint says of `action` (deny first, if it says both)."""
        effects = {p.effect for p in self.permissions if p.action is action}
        if Effect.DENY in effects:
            return Effect.DENY
        return Effect.ALLOW if effects else None


def decide_by_constraints(
    constraints: Iterable[Constraint], obj: Mapping[str, Any], action: Action
) -> tuple[bool, str]:
    """The reference decision, without casbin: (allowed, deciding constraint id). A deny wins;
    no matching allow is a deny by default (rule ""). The tests hold the authorizer to it."""
    allowed_by = ""
    for constraint in constraints:
        effect = constraint.effect_on(action)
        if effect is None or not constraint.matches(obj):
            continue
        if effect is Effect.DENY:
            return False, constraint.constraint_id
        allowed_by = allowed_by or constraint.constraint_id
    return bool(allowed_by), allowed_by


class AuthorizationPolicy(BaseModel):
    """Every role and constraint as of one revision of the authorization tables."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    revision: str
    roles: tuple[Role, ...] = ()
    constraints: tuple[Constraint, ...] = ()
