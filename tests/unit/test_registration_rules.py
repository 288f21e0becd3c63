"""Sub-process registration rules: source check, de-duplication, merge, caps (seed 000)."""

from __future__ import annotations

from random import Random

from hypothesis import given
from hypothesis import strategies as st

from domain.logs import (
    MAX_REGISTERED_LOGS,
    MAX_REGISTERED_SUB_EXECUTIONS,
    RegisteredLog,
    RegisteredSubExecution,
)
from domain.registration import merge_logs, merge_sub_executions, source_ids, source_matches

ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/wfx/pipe"


def test_a_source_naming_the_pipeline_execution_is_accepted() -> None:
    assert source_matches("wfx.execution.e1.pipeline.p1", "p1")
    assert source_ids("org.wfx.execution.e1.pipeline.p1") == ("e1", "p1")


def test_spoofed_sources_are_rejected() -> None:
    assert not source_matches("wfx.execution.e1.pipeline.p2", "p1")
    assert not source_matches("wfx.execution.e1.pipeline.p1x", "p1")
    assert not source_matches("wfx.execution.e1.pipeline.xp1", "p1")
    assert not source_matches("wfx.execution.e1.pipeline.p1.extra", "p1")
    assert not source_matches("execution.e1.pipeline.p1", "p1")  # no prefix
    assert not source_matches("wfx.pipeline.p1", "p1")  # no execution
    assert not source_matches("wfx.execution..pipeline.p1", "p1")
    assert not source_matches("wfx.execution.e1.pipeline.", "")


def test_a_log_is_deduplicated_by_location_ignoring_a_trailing_wildcard() -> None:
    stored = (RegisteredLog(log_group_arn=ARN, log_stream_name="s"),)
    incoming = (RegisteredLog(log_group_arn=ARN + ":*", log_stream_name="s"),)

    assert merge_logs(stored, incoming) == stored


def test_a_redelivery_fills_in_what_the_stored_entry_lacks_and_keeps_what_it_has() -> None:
    stored = (RegisteredLog(log_group_name="/g", label="first"),)
    incoming = (
        RegisteredLog(log_group_name="/g", label="second", stage_name="Mesh", source_type="lambda"),
    )

    assert merge_logs(stored, incoming) == (
        RegisteredLog(log_group_name="/g", label="first", stage_name="Mesh", source_type="lambda"),
    )


def test_new_locations_are_appended_in_order_after_the_stored_ones() -> None:
    stored = (RegisteredLog(log_group_name="/a"),)
    incoming = (RegisteredLog(log_group_name="/c"), RegisteredLog(log_group_name="/b"))

    merged = merge_logs(stored, incoming)

    assert [log.log_group_name for log in merged] == ["/a", "/c", "/b"]


def test_logs_beyond_the_cap_are_dropped_but_known_ones_still_merge() -> None:
    stored = tuple(RegisteredLog(log_group_name=f"/g{n}") for n in range(MAX_REGISTERED_LOGS))
    incoming = (
        RegisteredLog(log_group_name="/new"),
        RegisteredLog(log_group_name="/g0", label="x"),
    )

    merged = merge_logs(stored, incoming)

    assert len(merged) == MAX_REGISTERED_LOGS
    assert merged[0].label == "x"
    assert all(log.log_group_name != "/new" for log in merged)


def test_a_sub_execution_is_identified_by_type_and_locator_and_gains_a_label_and_stage() -> None:
    stored = (RegisteredSubExecution(resource_type="batchJob", job_id="j1"),)
    incoming = (
        RegisteredSubExecution(resource_type="batchJob", job_id="j1", label="render"),
        RegisteredSubExecution(resource_type="batchJob", job_id="j1", stage_name="Render"),
        RegisteredSubExecution(resource_type="batchJob", job_id="j1", job_arn=ARN),
        RegisteredSubExecution(resource_type="ecsTask", job_id="j1"),
    )

    assert merge_sub_executions(stored, incoming) == (
        RegisteredSubExecution(
            resource_type="batchJob", job_id="j1", label="render", stage_name="Render"
        ),
        RegisteredSubExecution(resource_type="batchJob", job_id="j1", job_arn=ARN),
        RegisteredSubExecution(resource_type="ecsTask", job_id="j1"),
    )


def test_sub_executions_beyond_the_cap_are_dropped() -> None:
    incoming = tuple(
        RegisteredSubExecution(resource_type="batchJob", job_id=f"j{n}")
        for n in range(MAX_REGISTERED_SUB_EXECUTIONS + 5)
    )

    merged = merge_sub_executions((), incoming)

    assert merged == incoming[:MAX_REGISTERED_SUB_EXECUTIONS]


# -- properties --------------------------------------------------------------------------------

_text = st.sampled_from(["", "a", "b"])
logs = st.builds(
    RegisteredLog,
    log_group_arn=st.sampled_from(["", ARN, ARN + ":*"]),
    log_group_name=st.sampled_from(["", "/g1", "/g2"]),
    log_stream_name=st.sampled_from(["", "s1", "s2"]),
    log_stream_prefix=st.sampled_from(["", "p/"]),
    stage_name=_text,
    label=_text,
    source_type=st.sampled_from(["", "lambda", "batch"]),
)


def _sub_execution(
    resource_type: str, job_id: str, execution_arn: str, stage_name: str, label: str
) -> RegisteredSubExecution:
    return RegisteredSubExecution(
        resource_type=resource_type,
        job_id=job_id,
        execution_arn=execution_arn,
        stage_name=stage_name,
        label=label,
    )


sub_executions = st.builds(
    _sub_execution,
    resource_type=st.sampled_from(["batchJob", "stepFunctionsExecution"]),
    job_id=st.text(alphabet="xyz", min_size=1, max_size=2),
    execution_arn=st.sampled_from(["", "x"]),
    stage_name=_text,
    label=_text,
)
many_logs = st.lists(
    st.builds(RegisteredLog, log_group_name=st.text(alphabet="abcdefgh", min_size=1, max_size=3)),
    max_size=120,
)


@given(st.lists(logs, max_size=20), st.lists(logs, max_size=20))
def test_merging_the_same_log_batch_twice_changes_nothing(
    stored: list[RegisteredLog], incoming: list[RegisteredLog]
) -> None:
    once = merge_logs(stored, incoming)
    assert merge_logs(once, incoming) == once


@given(st.lists(sub_executions, max_size=20), st.lists(sub_executions, max_size=20))
def test_merging_the_same_sub_execution_batch_twice_changes_nothing(
    stored: list[RegisteredSubExecution], incoming: list[RegisteredSubExecution]
) -> None:
    once = merge_sub_executions(stored, incoming)
    assert merge_sub_executions(once, incoming) == once


@given(st.lists(logs, max_size=30), st.randoms(use_true_random=False))
def test_the_set_of_locations_does_not_depend_on_delivery_order(
    incoming: list[RegisteredLog], random: Random
) -> None:
    shuffled = list(incoming)
    random.shuffle(shuffled)
    forward = {log.location for log in merge_logs((), incoming)}
    backward = {log.location for log in merge_logs((), shuffled)}
    assert forward == backward == {log.location for log in incoming}


@given(many_logs, many_logs)
def test_the_log_cap_holds_and_no_location_repeats(
    first: list[RegisteredLog], second: list[RegisteredLog]
) -> None:
    merged = merge_logs(merge_logs((), first), second)
    distinct = {log.location for log in [*first, *second]}
    assert len(merged) == min(MAX_REGISTERED_LOGS, len(distinct))
    assert len({log.location for log in merged}) == len(merged)


@given(st.lists(sub_executions, max_size=120))
def test_the_sub_execution_cap_holds_and_no_identity_repeats(
    incoming: list[RegisteredSubExecution],
) -> None:
    merged = merge_sub_executions((), incoming)
    distinct = {s.identity for s in incoming}
    assert len(merged) == min(MAX_REGISTERED_SUB_EXECUTIONS, len(distinct))
    assert len({s.identity for s in merged}) == len(merged)
