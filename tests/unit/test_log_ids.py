"""The log-id encoding of DESIGN §3, pinned by fixed vectors computed from the written rule."""

import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st

from domain.logs import RegisteredLog, log_id

GROUP_ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/aws/vendedlogs/states/pipeline"


def _by_the_rule(kind: str, group: str, stream: str, prefix: str) -> str:
    return hashlib.sha256(json.dumps([kind, group, stream, prefix]).encode("utf-8")).hexdigest()[
        :16
    ]


def test_fixed_vectors() -> None:
    # Computed once from the rule; an id must never change between releases or processes.
    assert log_id("registered", GROUP_ARN) == "43bd872bcfed0781"
    assert log_id("registered", "g", "s", "p") == "82d6a4b5b9b53b6d"
    assert log_id("invocation", "/aws/lambda/x") == "4fcc9e3f7f271f72"
    assert log_id("subStateMachine", GROUP_ARN, "stream-1", "") == "0edbb9ea97062640"
    assert log_id("registered", GROUP_ARN) == _by_the_rule("registered", GROUP_ARN, "", "")


def test_a_trailing_wildcard_on_the_group_arn_does_not_change_the_id() -> None:
    assert log_id("registered", GROUP_ARN + ":*") == log_id("registered", GROUP_ARN)


def test_the_kind_is_part_of_the_identity() -> None:
    assert log_id("registered", GROUP_ARN) != log_id("subStateMachine", GROUP_ARN)


def test_a_registered_log_falls_back_to_the_group_name_without_an_arn() -> None:
    log = RegisteredLog(log_group_name="/wfx/pipeline", log_stream_prefix="run-1/")
    assert log.location == ("/wfx/pipeline", "", "run-1/")
    assert log.log_id() == _by_the_rule("registered", "/wfx/pipeline", "", "run-1/")


@given(st.text(), st.text(), st.text())
def test_ids_are_sixteen_lowercase_hex_characters(group: str, stream: str, prefix: str) -> None:
    value = log_id("registered", group, stream, prefix)
    assert len(value) == 16 and set(value) <= set("0123456789abcdef")
    expected_group = group[:-2] if group.endswith(":*") else group
    assert value == _by_the_rule("registered", expected_group, stream, prefix)
