"""The registration event's source, pattern and bus settings: composed in one place, read back
by the rule that guards RegisterPipelineExecution."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.errors import InvalidInputError
from domain.registration import (
    MAX_SOURCE_PREFIX_LENGTH,
    REGISTRATION_DETAIL_TYPE,
    check_source_prefix,
    compose_source,
    registration_event_pattern,
    source_ids,
    source_matches,
)
from entrypoints.settings import Settings

WORD = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"),
    min_size=1,
    max_size=20,
)
PREFIX = (
    st.lists(WORD, min_size=1, max_size=4)
    .map(".".join)
    .filter(lambda prefix: prefix != "aws" and not prefix.startswith("aws."))
    .filter(lambda prefix: len(prefix) <= MAX_SOURCE_PREFIX_LENGTH)
)
ID = st.text(
    alphabet=st.characters(exclude_characters=".", exclude_categories=["Cs"]),  # UTF-8's
    min_size=1,
    max_size=60,
)


@given(prefix=PREFIX, execution_id=ID, pipeline_execution_id=ID)
def test_the_source_parser_reads_back_every_source_that_is_composed(
    prefix: str, execution_id: str, pipeline_execution_id: str
) -> None:
    source = compose_source(prefix, execution_id, pipeline_execution_id)

    assert source_ids(source) == (execution_id, pipeline_execution_id)
    assert source_matches(source, pipeline_execution_id)
    (pattern,) = registration_event_pattern(prefix)["source"]
    assert isinstance(pattern, dict)
    assert source.startswith(pattern["prefix"])


def test_the_source_has_the_seed_shape() -> None:
    assert compose_source("wfx", "e-1", "p-1") == "wfx.execution.e-1.pipeline.p-1"


@pytest.mark.parametrize(
    ("prefix", "rule"),
    [
        ("", "dot-separated words"),
        ("wfx.", "dot-separated words"),
        ("my prefix", "dot-separated words"),
        ("aws", "reserves"),
        ("aws.batch", "reserves"),
    ],
)
def test_a_prefix_that_cannot_start_a_source_is_refused_naming_the_field(
    prefix: str, rule: str
) -> None:
    with pytest.raises(InvalidInputError, match=f"eventSourcePrefix: .*{rule}"):
        check_source_prefix(prefix)


@pytest.mark.parametrize(
    ("execution_id", "pipeline_execution_id", "field"),
    [
        ("", "p", "workflowExecutionId"),
        ("e.1", "p", "workflowExecutionId"),
        ("e", "", "pipelineExecutionId"),
        ("e", "p.1", "pipelineExecutionId"),
        ("e" * 300, "p", "source"),
    ],
)
def test_an_id_the_parser_could_not_read_back_is_refused(
    execution_id: str, pipeline_execution_id: str, field: str
) -> None:
    with pytest.raises(InvalidInputError, match=f"^{field}: "):
        compose_source("wfx", execution_id, pipeline_execution_id)


def test_the_pattern_routes_the_prefix_and_the_registration_detail_type() -> None:
    assert registration_event_pattern("acme.prod") == {
        "source": [{"prefix": "acme.prod.execution."}],
        "detail-type": [REGISTRATION_DETAIL_TYPE],
    }


def test_the_bus_is_local_unless_the_runner_is_step_functions() -> None:
    local = Settings.from_environment({"WFX_HOME": "/tmp/h"})
    aws = Settings.from_environment({"WFX_HOME": "/tmp/h", "WFX_RUNNER": "stepfunctions"})

    assert (local.event_bus, local.event_source_prefix, local.event_bus_name) == (
        "local",
        "wfx",
        "default",
    )
    assert aws.event_bus == "eventbridge"


def test_the_bus_settings_are_read_from_the_environment() -> None:
    settings = Settings.from_environment(
        {
            "WFX_HOME": "/tmp/h",
            "WFX_EVENT_BUS": "eventbridge",
            "WFX_EVENT_SOURCE_PREFIX": "acme.prod",
            "WFX_EVENT_BUS_NAME": "orchestration",
        }
    )

    assert (settings.event_bus, settings.event_source_prefix, settings.event_bus_name) == (
        "eventbridge",
        "acme.prod",
        "orchestration",
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [("WFX_EVENT_BUS", "sqs"), ("WFX_EVENT_SOURCE_PREFIX", "aws.mine")],
)
def test_a_bad_bus_setting_is_refused_naming_the_variable(variable: str, value: str) -> None:
    with pytest.raises(InvalidInputError, match=f"^{variable}: "):
        Settings.from_environment({"WFX_HOME": "/tmp/h", variable: value})
