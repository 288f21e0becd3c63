"""Criteria operators, criteriaAnd / criteriaOr, and deny wins (the reference decision)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.authorization import Action
from domain.constraints import (
    Constraint,
    Criterion,
    Effect,
    Operator,
    Permission,
    decide_by_constraints,
)

ROUTE = "/workflows/executions/{executionId}/logs"


def criterion(field: str, operator: str, value: str | tuple[str, ...]) -> Criterion:
    return Criterion(field=field, operator=Operator(operator), value=value)


@pytest.mark.parametrize(
    ("operator", "value", "field_value", "expected"),
    [
        ("equals", "db1", "db1", True),
        ("equals", "db1", "db10", False),
        ("equals", "*", "anything", True),
        ("contains", ".*", "", True),
        ("contains", "executions", ROUTE, True),
        ("does_not_contain", "logs", ROUTE, False),
        ("does_not_contain", "abort", ROUTE, True),
        ("starts_with", "/workflows", ROUTE, True),
        ("starts_with", "executions", ROUTE, False),
        ("ends_with", "/logs", ROUTE, True),
        ("ends_with", "/logs", "/workflows/executions/{executionId}/logs/x", False),
        ("is_one_of", ("db1", "db2"), "db2", True),
        ("is_one_of", ("db1", "db2"), "db3", False),
        ("is_not_one_of", ("db1", "db2"), "db3", True),
        ("is_not_one_of", "db1", "db1", False),
    ],
)
def test_each_operator_compares_as_vams_does(
    operator: str, value: str | tuple[str, ...], field_value: str, expected: bool
) -> None:
    assert criterion("field", operator, value).matches({"field": field_value}) is expected


def test_a_list_field_matches_when_one_element_does() -> None:
    tags = {"tags": ["raw", "secret"]}
    assert criterion("tags", "is_one_of", ("secret",)).matches(tags)
    assert criterion("tags", "equals", "raw").matches(tags)
    assert not criterion("tags", "does_not_contain", "sec").matches(tags)
    assert not criterion("tags", "is_not_one_of", ("secret", "x")).matches(tags)


def test_an_absent_field_matches_only_the_negative_operators() -> None:
    assert not criterion("databaseId", "contains", ".*").matches({})
    assert criterion("databaseId", "does_not_contain", "x").matches({})
    assert criterion("databaseId", "is_not_one_of", ("x",)).matches({})


def test_a_bad_pattern_is_refused_naming_the_value() -> None:
    with pytest.raises(ValueError, match="value: not a regular expression"):
        criterion("databaseId", "contains", "(")


def constraint(
    constraint_id: str,
    effect: Effect = Effect.ALLOW,
    criteria_and: tuple[Criterion, ...] = (),
    criteria_or: tuple[Criterion, ...] = (),
    object_type: str = "workflow",
    action: Action = Action.GET,
) -> Constraint:
    return Constraint(
        role="viewer",
        constraint_id=constraint_id,
        object_type=object_type,
        criteria_and=criteria_and,
        criteria_or=criteria_or,
        permissions=(Permission(action=action, effect=effect),),
    )


def test_all_and_criteria_and_one_or_criterion_must_match() -> None:
    rule = constraint(
        "c",
        criteria_and=(criterion("databaseId", "equals", "db1"),),
        criteria_or=(
            criterion("workflowId", "starts_with", "mesh"),
            criterion("workflowId", "ends_with", "report"),
        ),
    )
    base = {"object__type": "workflow", "databaseId": "db1"}
    assert rule.matches(base | {"workflowId": "mesh-x"})
    assert rule.matches(base | {"workflowId": "x-report"})
    assert not rule.matches(base | {"workflowId": "other"})
    assert not rule.matches(base | {"databaseId": "db2", "workflowId": "mesh-x"})
    assert not rule.matches({"object__type": "asset", "databaseId": "db1", "workflowId": "mesh"})


def test_a_deny_wins_over_any_allow_and_nothing_allowed_is_denied() -> None:
    obj = {"object__type": "workflow", "databaseId": "db1"}
    allow = constraint("allow-db1", criteria_and=(criterion("databaseId", "equals", "db1"),))
    deny = constraint(
        "deny-all", Effect.DENY, criteria_and=(criterion("databaseId", "contains", ".*"),)
    )
    assert decide_by_constraints([allow], obj, Action.GET) == (True, "allow-db1")
    assert decide_by_constraints([allow, deny], obj, Action.GET) == (False, "deny-all")
    assert decide_by_constraints([deny, allow], obj, Action.GET) == (False, "deny-all")
    assert decide_by_constraints([allow], obj, Action.PUT) == (False, "")


def test_a_role_name_with_a_colon_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match=re.escape("role\n")):
        constraint("c").model_validate({**constraint("c").model_dump(), "role": "a:b"})


# -- deny wins, whatever the order and the mix (property) ---------------------------------------

DATABASES = st.sampled_from(["db1", "db2", "GLOBAL"])
CRITERIA = st.builds(
    criterion,
    st.just("databaseId"),
    st.sampled_from(["equals", "contains", "starts_with", "does_not_contain"]),
    DATABASES,
)
CONSTRAINTS = st.lists(
    st.builds(
        constraint,
        st.uuids().map(str),
        st.sampled_from(list(Effect)),
        st.lists(CRITERIA, max_size=2).map(tuple),
        st.lists(CRITERIA, max_size=2).map(tuple),
        st.sampled_from(["workflow", "asset"]),
        st.sampled_from(list(Action)),
    ),
    max_size=6,
)


@given(CONSTRAINTS, DATABASES, st.sampled_from(list(Action)))
def test_one_matching_deny_always_denies(
    constraints: list[Constraint], database: str, action: Action
) -> None:
    obj = {"object__type": "workflow", "databaseId": database}
    allowed, _ = decide_by_constraints(constraints, obj, action)
    matching = [c for c in constraints if c.matches(obj) and c.effect_on(action) is not None]
    denies = any(c.effect_on(action) is Effect.DENY for c in matching)
    assert allowed == (bool(matching) and not denies)
    assert decide_by_constraints(list(reversed(constraints)), obj, action)[0] == allowed
