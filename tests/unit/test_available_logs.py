"""A step's availableLogs (order, ids, de-duplication) and the scope rule, as pure functions."""

import hashlib
import json

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
# the run's own log group: a group registered by name is in its partition, region and account
RUN_GROUP_ARN = "arn:aws:logs:eu-west-1:210987654321:log-group:/aws/vendedlogs/states/wfx:*"
DERIVED = "arn:aws:logs:eu-west-1:210987654321:log-group:"
DEADLINE = RegisteredLog(
    log_group_name="/aws/deadline/farm-1/queue-2",
    log_stream_prefix="session-",
    label="Deadline Cloud job sessions",
    source_type="deadlineCloud",
)


def _by_the_rule(kind: str, group: str, stream: str = "", prefix: str = "") -> str:
    payload = json.dumps([kind, group, stream, prefix]).encode("utf-8")
    return hashlib.sha256(payload).hexdigest()[:16]


def _listed(*registered: RegisteredLog) -> tuple[AvailableLog, ...]:
    return step_available_logs(
        "pipe-1",
        registered,
        invocation=LAMBDA,
        state_machine_destinations=[RegisteredLog(log_group_arn=SM_GROUP_ARN)],
        deadline_jobs=[DEADLINE],
        reference_log_group_arn=RUN_GROUP_ARN,
    )


def test_the_order_is_invocation_deadline_job_registered_then_sub_state_machine() -> None:
    first = RegisteredLog(log_group_arn=GROUP_ARN, log_stream_prefix="job/", label="container")
    second = RegisteredLog(log_group_name="/custom/tool", log_stream_name="run-7")
    listed = _listed(first, second)
    assert [entry.kind for entry in listed] == [
        LogKind.INVOCATION,
        LogKind.DEADLINE_CLOUD_JOB,
        LogKind.REGISTERED,
        LogKind.REGISTERED,
        LogKind.SUB_STATE_MACHINE,
    ]
    assert [entry.log_id for entry in listed] == [
        _by_the_rule("invocation", DERIVED + "/aws/lambda/convert"),
        _by_the_rule("deadlineCloudJob", DERIVED + "/aws/deadline/farm-1/queue-2", "", "session-"),
        _by_the_rule("registered", GROUP_ARN, "", "job/"),
        _by_the_rule("registered", DERIVED + "/custom/tool", "run-7"),
        _by_the_rule("subStateMachine", SM_GROUP_ARN[:-2]),
    ]
    assert listed[2].label == "container" and listed[2].pipeline_execution_id == "pipe-1"


def test_log_ids_match_fixed_vectors() -> None:
    # computed once from the rule: an id must never change between releases or processes
    listed = step_available_logs(
        "p",
        [RegisteredLog(log_group_arn=GROUP_ARN), RegisteredLog(log_group_name="/custom/tool")],
        RegisteredLog(log_group_name="/aws/lambda/x"),
        reference_log_group_arn=RUN_GROUP_ARN,
    )
    assert [entry.log_id for entry in listed] == [
        "197fac312c39411d",
        "43bd872bcfed0781",
        "8509e7597a3a6fb8",
    ]


def test_a_group_given_by_name_is_listed_by_the_arn_derived_from_the_runs_log_group() -> None:
    listed = _listed(RegisteredLog(log_group_name="/custom/tool"))
    tool = next(entry for entry in listed if entry.kind is LogKind.REGISTERED)
    assert tool.log_group_arn == DERIVED + "/custom/tool"
    assert tool.log_group_name == "/custom/tool"


def test_without_a_run_log_group_a_name_stays_a_name() -> None:
    # the local runner's log files are not in CloudWatch: nothing to derive an ARN from
    listed = step_available_logs("p", [RegisteredLog(log_group_name="e1", log_stream_name="a")])
    assert listed[0].log_group_arn == "" and listed[0].group == "e1"
    assert listed[0].log_id == _by_the_rule("registered", "e1", "a")


def test_the_same_location_of_the_same_kind_is_listed_once() -> None:
    same = RegisteredLog(log_group_arn=GROUP_ARN + ":*", label="again")
    listed = _listed(RegisteredLog(log_group_arn=GROUP_ARN), same)
    assert [entry.kind for entry in listed].count(LogKind.REGISTERED) == 1


def test_one_location_is_listed_once_across_kinds_the_first_kind_kept_and_filled_in() -> None:
    # registered by name AND by ARN, both the invocation log's group: one entry, kind invocation
    by_arn = RegisteredLog(log_group_arn=DERIVED + "/aws/lambda/convert:*", stage_name="Convert")
    by_name = RegisteredLog(log_group_name="/aws/lambda/convert", label="converter")
    listed = _listed(by_arn, by_name)
    lambdas = [entry for entry in listed if entry.group == DERIVED + "/aws/lambda/convert"]
    assert len(lambdas) == 1
    assert lambdas[0].kind is LogKind.INVOCATION
    assert (lambdas[0].stage_name, lambdas[0].label, lambdas[0].source_type) == (
        "Convert",
        "converter",
        "lambda",
    )
    assert lambdas[0].log_id == _by_the_rule("invocation", DERIVED + "/aws/lambda/convert")


def test_a_source_type_and_label_not_registered_are_derived_from_the_group_name() -> None:
    listed = step_available_logs(
        "p",
        [
            RegisteredLog(log_group_name="/aws/batch/job"),
            RegisteredLog(log_group_name="/aws/vendedlogs/Pipelines/mesh/"),
            RegisteredLog(log_group_name="/org/VAMSStateMachine-ab12"),
            RegisteredLog(log_group_name="/aws/lambda/fn", label="mine", source_type="custom"),
            RegisteredLog(log_group_name="/tools/render"),
        ],
    )
    assert [(entry.source_type, entry.label) for entry in listed] == [
        ("batch", "job"),
        ("container", "mesh"),
        ("stateMachine", "VAMSStateMachine-ab12"),
        ("custom", "mine"),
        ("custom", "render"),
    ]


def test_a_missing_group_does_not_fail_the_log_id() -> None:
    assert log_id("registered", None) == _by_the_rule("registered", "")


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
