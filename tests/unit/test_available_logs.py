"""A step's availableLogs (order, ids, de-duplication) and the scope rule, as pure functions."""

from domain.available_logs import (
    AvailableLog,
    lambda_function_name,
    local_step_log,
    needs_execution_filter,
    state_machine_arn_of,
    step_available_logs,
)
from domain.logs import LogKind, RegisteredLog, log_id

GROUP_ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/aws/vendedlogs/states/pipeline"
SM_GROUP_ARN = "arn:aws:logs:us-east-1:123456789012:log-group:/sfn/child:*"
LAMBDA = RegisteredLog(log_group_name="/aws/lambda/convert", source_type="lambda")


def _listed(*registered: RegisteredLog) -> tuple[AvailableLog, ...]:
    return step_available_logs(
        "pipe-1",
        registered,
        invocation=LAMBDA,
        state_machine_destinations=[RegisteredLog(log_group_arn=SM_GROUP_ARN)],
    )


def test_registered_entries_come_first_then_the_invocation_log_then_the_state_machine() -> None:
    first = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_prefix="job/", label="container")
    second = RegisteredLog(log_group_name="/custom/tool", log_stream_name="run-7")
    listed = _listed(first, second)
    assert [entry.kind for entry in listed] == [
        LogKind.REGISTERED,
        LogKind.REGISTERED,
        LogKind.INVOCATION,
        LogKind.STATE_MACHINE,
    ]
    assert [entry.log_id for entry in listed] == [
        log_id("registered", GROUP_ARN, "", "job/"),
        log_id("registered", "/custom/tool", "run-7", ""),
        log_id("invocation", "/aws/lambda/convert"),
        log_id("stateMachine", SM_GROUP_ARN),
    ]
    assert listed[0].label == "container" and listed[0].pipeline_execution_id == "pipe-1"


def test_log_ids_match_fixed_vectors() -> None:
    # vectors pinned in tests/unit/test_log_ids.py, reached through the list builder
    listed = step_available_logs(
        "p", [RegisteredLog(log_group_arn=GROUP_ARN)], RegisteredLog(log_group_name="/aws/lambda/x")
    )
    assert [entry.log_id for entry in listed] == ["43bd872bcfed0781", "4fcc9e3f7f271f72"]


def test_the_same_location_of_the_same_kind_is_listed_once() -> None:
    same = RegisteredLog(log_group_arn=GROUP_ARN + ":*", label="again")
    listed = _listed(RegisteredLog(log_group_arn=GROUP_ARN), same)
    assert [entry.kind for entry in listed].count(LogKind.REGISTERED) == 1


def test_the_same_location_of_another_kind_is_listed_again_with_its_own_id() -> None:
    listed = _listed(LAMBDA)
    ids = [entry.log_id for entry in listed if entry.group == "/aws/lambda/convert"]
    assert len(ids) == 2 and ids[0] != ids[1]


def test_an_entry_without_a_group_is_not_listed() -> None:
    assert step_available_logs("p", [RegisteredLog(log_stream_name="orphan")]) == ()


def _entry(kind: LogKind, log: RegisteredLog) -> AvailableLog:
    return step_available_logs("p", [log] if kind is LogKind.REGISTERED else [], log)[0]


def test_a_registered_exact_stream_is_read_whole() -> None:
    own = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_name="job/abc")
    assert needs_execution_filter(_entry(LogKind.REGISTERED, own), [own]) is False


def test_a_stream_under_a_prefix_the_step_registered_is_read_whole() -> None:
    prefix = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_prefix="job/")
    derived = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_name="job/abc")
    assert needs_execution_filter(_entry(LogKind.INVOCATION, derived), [prefix]) is False


def test_a_stream_outside_every_registered_prefix_is_filtered() -> None:
    prefix = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_prefix="job/")
    derived = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_name="other/abc")
    assert needs_execution_filter(_entry(LogKind.INVOCATION, derived), [prefix]) is True


def test_a_prefix_registered_on_another_group_does_not_cover_the_stream() -> None:
    prefix = RegisteredLog(log_group_name="/elsewhere", log_stream_prefix="job/")
    derived = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_name="job/abc")
    assert needs_execution_filter(_entry(LogKind.INVOCATION, derived), [prefix]) is True


def test_a_derived_stream_nothing_registered_is_filtered() -> None:
    derived = local_step_log("exec-1", "pipe-1")
    assert needs_execution_filter(_entry(LogKind.INVOCATION, derived), []) is True


def test_a_group_only_or_prefix_only_entry_is_always_filtered() -> None:
    group = RegisteredLog(log_group_arn=GROUP_ARN)
    prefix = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_prefix="job/")
    assert needs_execution_filter(_entry(LogKind.REGISTERED, group), [group]) is True
    assert needs_execution_filter(_entry(LogKind.REGISTERED, prefix), [prefix]) is True


def test_an_execution_arn_names_its_state_machine() -> None:
    arn = "arn:aws:states:eu-west-1:123456789012:execution:child-sm:run-42"
    expected = "arn:aws:states:eu-west-1:123456789012:stateMachine:child-sm"
    assert state_machine_arn_of(arn) == expected
    assert state_machine_arn_of("job-123") is None
    assert state_machine_arn_of("arn:aws:batch:eu-west-1:1:job/x") is None


def test_a_lambda_arn_gives_its_function_name() -> None:
    arn = "arn:aws:lambda:us-east-1:123456789012:function:convert:live"
    assert lambda_function_name(arn) == "convert"
    assert lambda_function_name("convert") == "convert"


def test_a_log_group_arn_or_rooted_name_is_read_on_cloudwatch_and_a_name_where_the_run_ran() -> (
    None
):
    from application.available_logs import CLOUDWATCH_READER, LOCAL_READER, reader_for

    by_arn = _entry(LogKind.REGISTERED, RegisteredLog(log_group_arn=GROUP_ARN))
    rooted = _entry(LogKind.REGISTERED, RegisteredLog(log_group_name="/aws/lambda/tool"))
    by_name = _entry(LogKind.REGISTERED, RegisteredLog(log_group_name="tools"))
    assert reader_for(by_arn, "local") == CLOUDWATCH_READER
    assert reader_for(by_arn, "stepfunctions") == CLOUDWATCH_READER
    # the local runner's log files are relative to its logs root: a rooted name never is one
    assert reader_for(rooted, "local") == CLOUDWATCH_READER
    assert reader_for(by_name, "local") == LOCAL_READER
    assert reader_for(by_name, "stepfunctions") == CLOUDWATCH_READER
