"""Seed 001's execution-name rules: the execution id is also the Step Functions execution name."""

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import InvalidInputError
from domain.names import (
    execution_id_problem,
    execution_name_problem,
    is_logging_safe,
    validate_execution_name,
)


def test_a_guid_is_a_valid_logging_safe_name() -> None:
    name = str(uuid.uuid4())
    assert validate_execution_name(name) == name


@pytest.mark.parametrize("length", [0, 81])
def test_a_name_outside_one_to_eighty_characters_is_refused(length: int) -> None:
    problem = execution_name_problem("a" * length)
    assert problem is not None and "1 to 80" in problem


def test_eighty_characters_is_the_longest_name() -> None:
    assert execution_name_problem("a" * 80) is None


@pytest.mark.parametrize(
    "char", [*' <>{}[]?*"#%\\^|~`$&,;:/', "\t", "\x00", "\x1f", "\x7f", "\x9f", "\ufffe"]
)
def test_each_forbidden_character_is_refused_and_named(char: str) -> None:
    problem = execution_name_problem(f"run{char}1")
    assert problem is not None and repr(char) in problem


def test_a_valid_name_outside_the_logging_safe_set_is_refused_with_the_reason() -> None:
    assert execution_name_problem("run.1") is None
    with pytest.raises(InvalidInputError, match="workflowExecutionId: must contain only 0-9"):
        validate_execution_name("run.1")


@given(st.text(alphabet="abcXYZ019-_", min_size=1, max_size=80))
def test_every_logging_safe_name_up_to_eighty_characters_is_accepted(name: str) -> None:
    assert is_logging_safe(name)
    assert validate_execution_name(name) == name


@given(st.text(min_size=1, max_size=80))
def test_an_accepted_name_never_holds_a_forbidden_character(name: str) -> None:
    if execution_name_problem(name) is None:
        assert not any(c in name for c in ' <>{}[]?*"#%\\^|~`$&,;:/')


@pytest.mark.parametrize("identifier", [".", ".."])
def test_an_id_that_names_a_folder_is_no_stored_id_though_a_valid_execution_name(
    identifier: str,
) -> None:
    assert execution_name_problem(identifier) is None
    assert execution_id_problem(identifier) == "must not be . or .. (an id names a folder)"
    assert execution_id_problem("run.1") is None
