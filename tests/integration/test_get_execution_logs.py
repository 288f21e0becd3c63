"""GetExecutionDetails' availableLogs and GetExecutionLogs for a Step Functions run, on the SQLite
file store and on DynamoDB, reading CloudWatch Logs and describing Step Functions on moto: the
invocation log derived from the step's type, a sub-state-machine's destination, the scope rule,
paging by the service's own token, and redaction."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto import mock_aws

from adapters.aws.cloudwatch_logs import CloudWatchLogReader
from adapters.aws.sub_executions import AwsSubExecutionReader
from adapters.local.log_reader import LocalFileLogReader
from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.system import SystemClock
from application.available_logs import AvailableLogFinder
from application.ports.executions import ExecutionStore
from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
from application.use_cases.get_execution_details import (
    GetExecutionDetails,
    GetExecutionDetailsQuery,
)
from application.use_cases.get_execution_logs import (
    ExecutionLogs,
    GetExecutionLogs,
    GetExecutionLogsQuery,
)
from application.use_cases.register_pipeline_execution import (
    RegisterPipelineExecutionCommand,
)
from domain.available_logs import AvailableLog, LogReadStatus, LogSourceNotFoundError
from domain.errors import InvalidInputError
from domain.execution import StepLog, StepOutputs
from domain.logs import LogKind, log_id
from domain.workflow import ExecutionType, StepDefinition
from entrypoints.responses import ExecutionLogsResponse
from tests.contract.builders import a_launch, a_registrar, a_version, publish, step_id, write_launch

REGION = "us-east-1"
ACCOUNT = "123456789012"
RUN = "e1"
FIRST, SECOND = step_id(RUN, 0), step_id(RUN, 1)
SECRET = "AKIA" + "IOSFODNN7EXAMPLE"
INNER_GROUP_ARN = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/sfn/inner:*"


@dataclass
class World:
    store: ExecutionStore
    logs: Any
    sfn: Any
    details: GetExecutionDetails
    read: GetExecutionLogs
    inner_run: str
    # a finder with the runs' log group ARN: (details, read) as the container builds them
    with_run_log_group: Any = None


def _put(logs: Any, group: str, stream: str, messages: list[str]) -> None:
    if not logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"]:
        logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    now = int(time.time() * 1000)  # moto refuses events older than 14 days
    events = [{"timestamp": now + i, "message": m} for i, m in enumerate(messages)]
    logs.put_log_events(logGroupName=group, logStreamName=stream, logEvents=events)


def _setup(
    store: ExecutionStore,
    catalog: WorkflowCatalog,
    definitions: WorkflowDefinitions,
    tmp_path: Any,
) -> World:
    launch = a_launch(RUN)
    on_aws = launch.execution.model_copy(update={"orchestrator": "stepfunctions"})
    write_launch(store, launch.model_copy(update={"execution": on_aws}))
    base = a_version(1)
    lambda_step = StepDefinition(
        pipeline_id="pipe0",
        pipeline_database_id="db1",
        execution_type=ExecutionType.LAMBDA,
        function_name=f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:convert",
    )
    batch_step = StepDefinition(
        pipeline_id="pipe1",
        pipeline_database_id="db1",
        execution_type=ExecutionType.BATCH,
        job_queue="q",
        job_definition="d",
    )
    publish(definitions, base.model_copy(update={"steps": (lambda_step, batch_step)}))

    logs = boto3.client("logs", region_name=REGION)
    _put(logs, "/aws/lambda/convert", "2024/03/04/[$LATEST]abc", [
        f"{RUN} start", "other-run start", f"{RUN} token aws_access_key_id={SECRET}", f"{RUN} end",
    ])  # fmt: skip
    _put(logs, "/pipelines/inner", "job/a", ["inner a1", "inner a2", "inner a3"])
    _put(logs, "/pipelines/inner", "other/b", [f"b line {RUN}", "b line of another run"])
    sfn = boto3.client("stepfunctions", region_name=REGION)
    machine = sfn.create_state_machine(
        name="inner",
        definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
        roleArn=f"arn:aws:iam::{ACCOUNT}:role/inner",
        loggingConfiguration={
            "level": "ALL",
            "includeExecutionData": False,
            "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": INNER_GROUP_ARN}}],
        },
    )
    inner_run = sfn.start_execution(stateMachineArn=machine["stateMachineArn"], name="r1")
    event = {
        "source": f"wfx.execution.{RUN}.pipeline.{FIRST}",
        "detail-type": "pipeline.execution.register",
        "detail": {
            "pipelineExecutionId": FIRST,
            "subExecution": {
                "resourceType": "stepFunctionsExecution",
                "executionArn": inner_run["executionArn"],
                "label": "inner",
            },
            "logs": [
                {"logGroupName": "/pipelines/inner", "logStreamName": "job/a", "label": "job"},
                {"logGroupName": "/pipelines/inner", "logStreamPrefix": "other/"},
            ],
        },
    }
    accepted = a_registrar(store).execute(RegisterPipelineExecutionCommand.model_validate(event))
    assert accepted.accepted, accepted.reason
    state_machines = AwsSubExecutionReader(lambda: sfn, lambda: None)

    def reading(
        run_log_group_arn: str, at_once: bool = True
    ) -> tuple[GetExecutionDetails, GetExecutionLogs]:
        finder = AvailableLogFinder(catalog, state_machines, run_log_group_arn)
        reader = CloudWatchLogReader(lambda: logs, concurrent_reads=at_once)
        read = GetExecutionLogs(
            store,
            finder,
            {"cloudwatch": lambda: reader, "local": lambda: LocalFileLogReader(tmp_path / "logs")},
            FileLogStore(tmp_path / "logs"),
            FilesystemObjectStore(tmp_path / "objects"),
        )
        details = GetExecutionDetails(
            store, available_logs=finder, state_machines=state_machines, clock=SystemClock()
        )
        return details, read

    details, read = reading("")
    return World(store, logs, sfn, details, read, inner_run["executionArn"], reading)


@pytest.fixture(params=["sqlite_file", "dynamodb"])
def world(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> Iterator[World]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(name, value)
    store = request.getfixturevalue(f"{request.param}_execution_store")
    catalog = request.getfixturevalue(f"{request.param}_workflow_catalog")
    definitions = request.getfixturevalue(f"{request.param}_workflow_definitions")
    if request.param == "dynamodb":
        # already inside the DynamoDB fixture's mock
        yield _setup(store, catalog, definitions, tmp_path)
        return
    with mock_aws():
        yield _setup(store, catalog, definitions, tmp_path)


def _available(world: World) -> dict[str, tuple[AvailableLog, ...]]:
    details = world.details.execute(GetExecutionDetailsQuery(workflow_execution_id=RUN))
    assert details.log_warnings == ()
    return {entry.step.pipeline_execution_id: entry.available_logs for entry in details.steps}


def _one(world: World, log_id: str, **query: Any) -> ExecutionLogs:
    return world.read.execute(
        GetExecutionLogsQuery(workflow_execution_id=RUN, log_id=log_id, **query)
    )


def _id(world: World, kind: LogKind, where: str) -> str:
    for logs in _available(world).values():
        for entry in logs:
            place = f"{entry.group} {entry.log_stream_name}{entry.log_stream_prefix}".strip()
            if entry.kind is kind and place == where:
                return entry.log_id
    raise AssertionError(f"no {kind} log at {where}: {_available(world)}")


def test_the_details_list_registered_invocation_and_state_machine_logs(world: World) -> None:
    available = _available(world)

    # VAMS's order: the invocation log, registered entries, sub-state-machine destinations
    assert [(e.kind, e.group) for e in available[FIRST]] == [
        (LogKind.INVOCATION, "/aws/lambda/convert"),
        (LogKind.REGISTERED, "/pipelines/inner"),
        (LogKind.REGISTERED, "/pipelines/inner"),
        (LogKind.SUB_STATE_MACHINE, INNER_GROUP_ARN.removesuffix(":*")),
    ]
    assert [(e.kind, e.group) for e in available[SECOND]] == [
        (LogKind.INVOCATION, "/aws/batch/job")
    ]
    assert available[FIRST][3].label == "inner"


def test_a_registered_stream_is_read_whole_and_the_others_are_not_read(world: World) -> None:
    log_id = _id(world, LogKind.REGISTERED, "/pipelines/inner job/a")

    result = _one(world, log_id)

    assert [line.message for line in result.lines] == ["inner a1", "inner a2", "inner a3"]
    read = [s for s in result.log_sources if s.status is not LogReadStatus.NOT_READ]
    assert [(s.source.log_id, s.execution_filtered) for s in read] == [(log_id, False)]
    assert len(result.log_sources) == 5
    assert {line.log_id for line in result.lines} == {log_id}


def test_a_prefix_is_read_filtered_to_the_execution(world: World) -> None:
    result = _one(world, _id(world, LogKind.REGISTERED, "/pipelines/inner other/"))
    assert [line.message for line in result.lines] == [f"b line {RUN}"]


def test_the_lambda_invocation_log_is_filtered_and_redacted(world: World) -> None:
    result = _one(world, _id(world, LogKind.INVOCATION, "/aws/lambda/convert"))

    messages = [line.message for line in result.lines]
    assert messages[0] == f"{RUN} start" and messages[-1] == f"{RUN} end"
    assert "other-run start" not in messages
    assert SECRET not in " ".join(messages) and "[REDACTED]" in messages[1]


def test_one_source_is_paged_with_the_services_own_token(world: World) -> None:
    log_id = _id(world, LogKind.REGISTERED, "/pipelines/inner job/a")
    first = _one(world, log_id, limit=2)
    assert first.next_token is not None
    rest = _one(world, log_id, limit=2, next_token=first.next_token)
    assert [line.message for line in first.lines + rest.lines] == [
        "inner a1",
        "inner a2",
        "inner a3",
    ]


def test_full_mode_reads_every_source_with_its_status(world: World) -> None:
    result = world.read.execute(GetExecutionLogsQuery(workflow_execution_id=RUN, full=True))
    statuses = {(s.source.kind, s.source.group): s.status for s in result.log_sources}
    assert statuses[(LogKind.INVOCATION, "/aws/batch/job")] is LogReadStatus.NOT_FOUND
    assert (
        statuses[
            (LogKind.SUB_STATE_MACHINE, "arn:aws:logs:us-east-1:123456789012:log-group:/sfn/inner")
        ]
        is LogReadStatus.NOT_FOUND
    )
    assert statuses[(LogKind.INVOCATION, "/aws/lambda/convert")] is LogReadStatus.READ
    assert result.run_log is None


def test_full_mode_reads_the_sources_at_once_with_the_answer_read_one_by_one(
    world: World,
) -> None:
    """The first two CloudWatch requests wait for each other: read one after another, the first
    would wait for ever (10 s, then the barrier breaks and the read fails)."""
    query = GetExecutionLogsQuery(workflow_execution_id=RUN, full=True)
    _, one_by_one = world.with_run_log_group("", at_once=False)
    expected = one_by_one.execute(query)
    barrier, requests = threading.Barrier(2, timeout=10), itertools.count()

    def meet(**_: Any) -> None:
        if next(requests) < 2:
            barrier.wait()

    world.logs.meta.events.register("before-call.cloudwatch-logs", meet)
    try:
        result = world.read.execute(query)
    finally:
        world.logs.meta.events.unregister("before-call.cloudwatch-logs", meet)
    assert next(requests) > 5  # every source's requests went through the hook
    assert result == expected
    assert [line.message for line in result.lines] == [line.message for line in expected.lines]
    assert len(result.log_sources) == 5 and len(result.lines) > 3


def test_an_unknown_log_id_is_not_found_naming_it(world: World) -> None:
    with pytest.raises(LogSourceNotFoundError, match="ffffffffffffffff"):
        _one(world, "ffffffffffffffff")


def test_a_next_token_without_a_log_id_is_refused(world: World) -> None:
    with pytest.raises(InvalidInputError, match="next_token"):
        world.read.execute(GetExecutionLogsQuery(workflow_execution_id=RUN, next_token="t"))


def test_a_state_machine_that_cannot_be_described_is_a_warning_not_a_failure(
    world: World,
) -> None:
    gone = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:deleted-machine:r9"
    event = {
        "source": f"wfx.execution.{RUN}.pipeline.{SECOND}",
        "detail-type": "pipeline.execution.register",
        "detail": {
            "pipelineExecutionId": SECOND,
            "subExecutions": [{"resourceType": "stepFunctions", "resourceId": gone}],
        },
    }
    a_registrar(world.store).execute(RegisterPipelineExecutionCommand.model_validate(event))

    details = world.details.execute(GetExecutionDetailsQuery(workflow_execution_id=RUN))

    assert any("deleted-machine" in warning for warning in details.log_warnings)
    second = next(e for e in details.steps if e.step.pipeline_execution_id == SECOND)
    assert [e.kind for e in second.available_logs] == [LogKind.INVOCATION]


def test_each_state_machine_is_described_once_per_request(world: World) -> None:
    # a second run of the same inner state machine, registered on the other step
    machine = world.inner_run.replace(":execution:", ":stateMachine:").rsplit(":", 1)[0]
    second_run = world.sfn.start_execution(stateMachineArn=machine, name="r2")["executionArn"]
    event = {
        "source": f"wfx.execution.{RUN}.pipeline.{SECOND}",
        "detail-type": "pipeline.execution.register",
        "detail": {
            "pipelineExecutionId": SECOND,
            "subExecutions": [{"resourceType": "stepFunctions", "resourceId": second_run}],
        },
    }
    a_registrar(world.store).execute(RegisterPipelineExecutionCommand.model_validate(event))
    described: list[str] = []
    world.sfn.meta.events.register(
        "before-parameter-build.sfn.DescribeStateMachine",
        lambda params, **_: described.append(params["stateMachineArn"]),
    )

    available = _available(world)

    assert described == [machine]
    assert [e.kind for e in available[SECOND]][-1] is LogKind.SUB_STATE_MACHINE


KEY_BODY = ("MIIEowIBAAKCAQEAx" * 4)[:64], ("q83vEjQ4d5pT0zRm" * 4)[:64]


@pytest.mark.parametrize("limit", range(3, 9))
def test_a_key_block_cut_by_a_page_boundary_is_on_no_page(world: World, limit: int) -> None:
    now = int(time.time() * 1000) + 100
    block = ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY, "-----END RSA PRIVATE KEY-----"]
    world.logs.put_log_events(
        logGroupName="/pipelines/inner",
        logStreamName="job/a",
        logEvents=[{"timestamp": now + i, "message": m} for i, m in enumerate([*block, "after"])],
    )
    log_id = _id(world, LogKind.REGISTERED, "/pipelines/inner job/a")
    messages: list[str] = []
    token = None
    for _ in range(10):
        page = _one(world, log_id, limit=limit, next_token=token)
        messages += [line.message for line in page.lines]
        if (token := page.next_token) is None:
            break
    # a page lying wholly inside a block (limit 2 here) cannot be told from data: see
    # docs/reliability.md, "Redaction"
    assert not [m for m in messages if any(body in m for body in KEY_BODY)]
    assert messages[:3] == ["inner a1", "inner a2", "inner a3"] and messages[-1] == "after"


RUN_LOG_GROUP_ARN = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:/aws/vendedlogs/states/wfx:*"
IN_ACCOUNT = f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:"


def test_with_the_runs_log_group_names_are_listed_and_read_by_their_derived_arns(
    world: World,
) -> None:
    """As VAMS: a group known by name is hashed through its ARN in the run's account, so a VAMS
    reader and wfx give a source one logId; a registered Deadline Cloud job offers its session
    logs, after the invocation log and before the registered entries."""
    farm, queue = "farm-" + "1" * 32, "queue-" + "2" * 32
    event = {
        "source": f"wfx.execution.{RUN}.pipeline.{SECOND}",
        "detail-type": "pipeline.execution.register",
        "detail": {
            "pipelineExecutionId": SECOND,
            "subExecution": {
                "resourceType": "deadlineCloudJob",
                "farmId": farm,
                "queueId": queue,
                "jobId": "job-" + "3" * 32,
            },
        },
    }
    assert (
        a_registrar(world.store)
        .execute(RegisterPipelineExecutionCommand.model_validate(event))
        .accepted
    )
    details, read = world.with_run_log_group(RUN_LOG_GROUP_ARN)

    answer = details.execute(GetExecutionDetailsQuery(workflow_execution_id=RUN))
    available = {entry.step.pipeline_execution_id: entry.available_logs for entry in answer.steps}

    assert [(e.kind, e.group, e.log_id) for e in available[FIRST]] == [
        (
            LogKind.INVOCATION,
            IN_ACCOUNT + "/aws/lambda/convert",
            log_id("invocation", IN_ACCOUNT + "/aws/lambda/convert"),
        ),
        (
            LogKind.REGISTERED,
            IN_ACCOUNT + "/pipelines/inner",
            log_id("registered", IN_ACCOUNT + "/pipelines/inner", "job/a"),
        ),
        (
            LogKind.REGISTERED,
            IN_ACCOUNT + "/pipelines/inner",
            log_id("registered", IN_ACCOUNT + "/pipelines/inner", "", "other/"),
        ),
        (
            LogKind.SUB_STATE_MACHINE,
            INNER_GROUP_ARN.removesuffix(":*"),
            log_id("subStateMachine", INNER_GROUP_ARN),
        ),
    ]
    assert [(e.kind, e.group, e.log_stream_prefix, e.source_type) for e in available[SECOND]] == [
        (LogKind.INVOCATION, IN_ACCOUNT + "/aws/batch/job", "", "batch"),
        (
            LogKind.DEADLINE_CLOUD_JOB,
            IN_ACCOUNT + f"/aws/deadline/{farm}/{queue}",
            "session-",
            "deadlineCloud",
        ),
    ]
    registered = available[FIRST][1]
    result = read.execute(
        GetExecutionLogsQuery(workflow_execution_id=RUN, log_id=registered.log_id)
    )
    assert [line.message for line in result.lines] == ["inner a1", "inner a2", "inner a3"]


def test_one_step_on_step_functions_says_its_summary_rows_result_and_error_logs(
    world: World,
) -> None:
    """A run off this machine keeps no attempt lines: one step's truncated answer is what its
    stored summary rows say, as VAMS reads them (first non-empty resultLog and errorLog)."""
    arn = f"arn:aws:states:{REGION}:{ACCOUNT}:execution:inner:r1"
    world.store.add_step_outputs(
        StepOutputs(
            logs=(
                StepLog(
                    pipeline_execution_id=FIRST,
                    workflow_execution_id=RUN,
                    status="SUCCEEDED",
                    message=f"converted 3 files via {arn} key aws_access_key_id={SECRET}",
                ),
            )
        )
    )
    world.store.add_step_outputs(
        StepOutputs(
            logs=(
                StepLog(
                    pipeline_execution_id=SECOND,
                    workflow_execution_id=RUN,
                    status="FAILED",
                    message="job exited 2",
                ),
            )
        )
    )

    def asked(step: str) -> ExecutionLogsResponse:
        result = world.read.execute(
            GetExecutionLogsQuery(workflow_execution_id=RUN, pipeline_execution_id=step)
        )
        assert result.attempts == ()  # nothing kept lines: the stored rows are the answer
        return ExecutionLogsResponse.of(result)

    first = asked(FIRST)
    assert first.result_log is not None and first.result_log.startswith("converted 3 files")
    assert SECRET not in first.result_log and arn not in first.result_log
    assert first.error_log == "" and first.logs_source == "stored"
    second = asked(SECOND)
    assert second.result_log == "" and second.error_log == "job exited 2"
