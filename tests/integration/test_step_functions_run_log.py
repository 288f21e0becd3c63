"""A Step Functions run's executionLog comes from its state machine's CloudWatch log group.

moto (in-process) stores the state machine's loggingConfiguration but never writes an execution
log itself (notes/moto.md §9), so each test writes the events Step Functions would: JSON
documents `{"id", "type", "details", "previous_event_id", "event_timestamp", "execution_arn"}` in
a `states/<machine>/<minute>/<hex>` stream of the group, with another execution's events in the
same stream. moto 5.2.5 treats FilterLogEvents' JSON filter pattern
`{ $.execution_arn = "..." }` as "match everything", so under moto it is the reader's own check of
`execution_arn` that keeps the other execution out (on AWS the pattern already does); the
request itself is pinned with botocore's Stubber in `test_the_read_asks_cloudwatch_for_...`.

The completion and error Lambda handlers, the reconciling read of `wfx executions show`, and an
abort each end the run; the store is SQLite under a temporary WFX_HOME.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from dependency_injector import providers
from moto import mock_aws

from adapters.aws.cloudwatch_logs import CloudWatchLogReader
from adapters.aws.stepfunctions import StepFunctionsOrchestrator
from adapters.run_records import build_execution_record
from application.ports.executions import ExecutionStore
from application.run_log import MAX_STORED_LOG_BYTES
from application.run_log_sources import NOTE_PREFIX, RunLogBound, StateMachineRunLog
from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.get_execution_logs import GetExecutionLogsQuery
from conftest import AWS_REGION, FAKE_AWS_ENVIRONMENT
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus
from entrypoints.container import Container, create_all_tables
from tests.cli_in_process import invoke_wfx
from tests.contract.builders import a_launch, write_launch
from tests.planted_secrets import AWS_KEY_ID_PREFIX

pytestmark = pytest.mark.integration

EXECUTION_ID = "5c3e9a1f-2b7d-4e68-9f10-8d4c2a6b0e31"
OTHER_ID = "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d"
MACHINE = "wfx-db1-wf1-v1"
GROUP = f"/aws/vendedlogs/states/{MACHINE}-Logs"
STREAM = f"states/{MACHINE}/2026-11-30-10-00/7851b2d9"
ROLE_ARN = "arn:aws:iam::123456789012:role/wfx-state-machine"
DEFINITION = {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "End": True}}}
PASSWORD = "hunter2-but-longer"
KEY_ID = AWS_KEY_ID_PREFIX + "Q7W3E5R1T9Y2U4I6"
# What an AWS AccessDenied message says about the caller: it has no place on a row.
CALLER = "arn:aws:sts::123456789012:assumed-role/wfx-completion/wfx-complete"


@dataclass
class World:
    handlers: ModuleType
    home: Path
    sfn: Any
    logs: Any
    machine_arn: str
    group_arn: str
    execution_arn: str
    last_logged_ms: int = 0  # the timestamp of the newest event `log` wrote

    @property
    def container(self) -> Container:
        container: Container = self.handlers.container
        return container

    def row(self) -> WorkflowExecution:
        store: ExecutionStore = self.container.execution_store()
        return store.get_execution(EXECUTION_ID)

    def log(self, events: list[dict[str, Any]], execution_arn: str | None = None) -> None:
        """Write events as Step Functions logs them, numbered from 1, one millisecond apart and
        after every event written before (two calls within a few milliseconds would otherwise
        interleave their events, which CloudWatch returns in timestamp order)."""
        arn = execution_arn or self.execution_arn
        # moto refuses events older than 14 days
        now = max(int(time.time() * 1000), self.last_logged_ms + 1)
        self.last_logged_ms = now + len(events) - 1
        documents = [
            {
                "id": str(index + 1),
                "type": event["type"],
                "details": event.get("details", {}),
                "previous_event_id": str(index),
                "event_timestamp": str(now + index),
                "execution_arn": arn,
            }
            for index, event in enumerate(events)
        ]
        self.logs.put_log_events(
            logGroupName=GROUP,
            logStreamName=STREAM,
            logEvents=[
                {"timestamp": now + index, "message": json.dumps(document)}
                for index, document in enumerate(documents)
            ],
        )

    def complete(self, status: str = "SUCCEEDED") -> dict[str, Any]:
        event = {"workflowExecutionId": EXECUTION_ID, "status": status}
        result: dict[str, Any] = self.handlers.complete_execution(event, None)
        return result


def _machine(sfn: Any, logging: dict[str, Any] | None) -> str:
    settings: dict[str, Any] = {"loggingConfiguration": logging} if logging else {}
    created = sfn.create_state_machine(
        name=MACHINE, definition=json.dumps(DEFINITION), roleArn=ROLE_ARN, **settings
    )
    return str(created["stateMachineArn"])


def _world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logging: str) -> Iterator[World]:
    for name in ("WFX_STORE", "WFX_DB", "WFX_RUNNER", "WFX_TABLE_PREFIX", "WFX_REDACT"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("WFX_HOME", str(home))
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        logs = boto3.client("logs", region_name=AWS_REGION)
        sfn = boto3.client("stepfunctions", region_name=AWS_REGION)
        logs.create_log_group(logGroupName=GROUP)
        logs.create_log_stream(logGroupName=GROUP, logStreamName=STREAM)
        group_arn = str(logs.describe_log_groups(logGroupNamePrefix=GROUP)["logGroups"][0]["arn"])
        destination = [{"cloudWatchLogsLogGroup": {"logGroupArn": group_arn}}]
        machine_arn = _machine(
            sfn,
            None
            if logging == "none"
            else {"level": logging, "includeExecutionData": True, "destinations": destination},
        )
        started = sfn.start_execution(stateMachineArn=machine_arn, name=EXECUTION_ID, input="{}")
        execution_arn = str(started["executionArn"])
        handlers = importlib.reload(importlib.import_module("entrypoints.lambda_handlers"))
        create_all_tables(handlers.container)
        launch = a_launch(EXECUTION_ID, steps=2, start=datetime.now(UTC) - timedelta(minutes=1))
        execution = launch.execution.model_copy(
            update={"orchestrator": "stepfunctions", "execution_arn": execution_arn}
        )
        store = handlers.container.execution_store()
        write_launch(store, launch.model_copy(update={"execution": execution}))
        yield World(handlers, home, sfn, logs, machine_arn, group_arn, execution_arn)
        handlers.container.sqlite_database().close()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    yield from _world(tmp_path, monkeypatch, "ALL")


A_RUN = [
    {"type": "ExecutionStarted", "details": {"input": json.dumps({"DB_PASSWORD": PASSWORD})}},
    {"type": "TaskStateEntered", "details": {"name": "Start pipe0"}},
    {"type": "TaskSucceeded", "details": {"output": json.dumps({"key": KEY_ID})}},
    {"type": "TaskStateEntered", "details": {"name": "Complete"}},
]


def _other_execution_arn(world: World) -> str:
    return world.execution_arn.replace(EXECUTION_ID, OTHER_ID)


def _assert_clean(text: str) -> None:
    for leaked in (PASSWORD, KEY_ID, CALLER, "Traceback"):
        assert leaked not in text


def test_the_completion_handler_fills_the_log_with_this_executions_events_redacted(
    world: World,
) -> None:
    world.log(
        [{"type": "ExecutionStarted", "details": {"input": "other run"}}],
        _other_execution_arn(world),
    )
    world.log(A_RUN)

    assert world.complete()["status"] == "SUCCEEDED"

    log = world.row().execution_log or ""
    lines = log.splitlines()
    assert [line.split(" ")[1] for line in lines] == [event["type"] for event in A_RUN]
    assert lines[0].startswith(f"{datetime.now(UTC):%Y-%m-%d}T")  # the event's own time
    assert '"name":"Start pipe0"' in lines[1]
    assert "other run" not in log and OTHER_ID not in log
    assert "[REDACTED]" in log
    _assert_clean(log)
    assert world.row().execution_log_object_key is None


def test_the_reconciling_read_of_executions_show_fills_the_log(world: World) -> None:
    world.log(A_RUN)
    world.sfn.stop_execution(executionArn=world.execution_arn, error="Stopped", cause="by hand")
    world.log([{"type": "ExecutionAborted", "details": {}}])

    shown = invoke_wfx(["executions", "show", EXECUTION_ID, "--json"])

    assert shown.exit_code == 0, shown.output
    execution = json.loads(shown.stdout)
    assert execution["executionStatus"] == "ABORTED"
    assert "executionLog" not in execution  # the log leaves only through the logs route
    log = world.row().execution_log or ""
    assert log.splitlines()[0].split(" ")[1] == "ExecutionStarted"
    assert log.splitlines()[-1].split(" ")[1] == "ExecutionAborted"
    _assert_clean(log)


def test_a_long_log_keeps_its_tail_on_the_row_and_the_whole_log_in_the_logs_route(
    world: World,
) -> None:
    # 1,500 events of about 120 bytes: past the row's 64 KiB, within the read bound
    padding = "x" * 60
    events = [
        {"type": "PassStateEntered", "details": {"name": f"s{i} {padding}"}} for i in range(1500)
    ]
    world.log([A_RUN[0], *events, {"type": "ExecutionSucceeded", "details": {}}])

    world.complete()

    row = world.row()
    assert row.execution_log is not None
    assert len(row.execution_log.encode()) <= MAX_STORED_LOG_BYTES
    assert row.execution_log.rstrip().endswith("ExecutionSucceeded")
    assert build_execution_record(row)["executionLogTruncated"] is True
    read = world.container.get_execution_logs().execute(
        GetExecutionLogsQuery(workflow_execution_id=EXECUTION_ID)
    )
    whole = read.run_log or ""
    assert len(whole.splitlines()) == 1502
    assert whole.endswith(row.execution_log) and "ExecutionStarted" in whole.splitlines()[0]
    _assert_clean(whole)
    cli = invoke_wfx(["executions", "logs", EXECUTION_ID, "--json"])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout)["executionLog"] == whole


def test_the_error_handler_fills_the_log(world: World) -> None:
    world.log([*A_RUN[:2], {"type": "TaskFailed", "details": {"error": "MeshError"}}])

    result = world.handlers.handle_execution_error(
        {"workflowExecutionId": EXECUTION_ID, "error": {"Error": "MeshError", "Cause": "bad"}},
        None,
    )

    assert result["status"] == "FAILED"
    log = world.row().execution_log or ""
    assert log.splitlines()[-1].split(" ")[1] == "TaskFailed"
    _assert_clean(log)


def test_an_abort_fills_the_log(world: World) -> None:
    world.log(A_RUN[:2])

    aborted = world.container.abort_execution().execute(
        AbortExecutionCommand(workflow_execution_id=EXECUTION_ID)
    )

    assert aborted.execution.status is ExecutionStatus.ABORTED
    log = world.row().execution_log or ""
    assert [line.split(" ")[1] for line in log.splitlines()] == [
        "ExecutionStarted",
        "TaskStateEntered",
    ]


@pytest.mark.parametrize("logging", ["OFF", "none"])
def test_a_state_machine_that_does_not_log_gives_a_note_and_the_run_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, logging: str
) -> None:
    for world in _world(tmp_path, monkeypatch, logging):
        assert world.complete()["status"] == "SUCCEEDED"
        log = world.row().execution_log or ""
        assert log == (
            f"{NOTE_PREFIX}no run log: state machine {world.machine_arn} does not log to "
            "CloudWatch Logs (its loggingConfiguration level is OFF)"
        )


def test_a_log_group_that_is_gone_gives_a_note_and_the_run_completes(world: World) -> None:
    world.logs.delete_log_group(logGroupName=GROUP)

    assert world.complete()["status"] == "SUCCEEDED"

    assert world.row().execution_log == f"{NOTE_PREFIX}no run log: log group {GROUP} not found"


def test_a_state_machine_that_is_gone_gives_a_note_and_the_run_completes(world: World) -> None:
    world.sfn.delete_state_machine(stateMachineArn=world.machine_arn)

    assert world.complete()["status"] == "SUCCEEDED"

    assert world.row().execution_log == (
        f"{NOTE_PREFIX}no run log: state machine {world.machine_arn} no longer exists"
    )


def test_no_events_yet_gives_a_note(world: World) -> None:
    world.log([{"type": "ExecutionStarted"}], _other_execution_arn(world))

    world.complete()

    log = world.row().execution_log or ""
    assert log.startswith(f"{NOTE_PREFIX}no run log: log group {GROUP} has no events")


def _filter_request(world: World, limit: int = 10_000, **extra: Any) -> dict[str, Any]:
    return {
        "logGroupName": GROUP,
        "filterPattern": f'{{ $.execution_arn = "{world.execution_arn}" }}',
        "limit": limit,  # what is left of the bound's 10,000 events
        "startTime": int(
            (world.row().execution_start_date - timedelta(minutes=1)).timestamp() * 1000
        ),
        **extra,
    }


def _stubbed_logs(world: World) -> tuple[Any, Stubber]:
    client = boto3.client("logs", region_name=AWS_REGION)
    stubber = Stubber(client)
    world.container.logs_client.override(providers.Object(client))
    return client, stubber


def test_cloudwatch_access_denied_gives_a_note_without_the_callers_identity(world: World) -> None:
    """moto in-process enforces no IAM: the AccessDeniedException is stubbed, as AWS sends it."""
    _, stubber = _stubbed_logs(world)
    stubber.add_client_error(
        "filter_log_events",
        service_error_code="AccessDeniedException",
        service_message=(
            f"User: {CALLER} is not authorized to perform: logs:FilterLogEvents on resource: "
            f"{world.group_arn} because no identity-based policy allows the action"
        ),
        http_status_code=400,
        expected_params=_filter_request(world),
    )

    with stubber:
        assert world.complete()["status"] == "SUCCEEDED"

    stubber.assert_no_pending_responses()
    log = world.row().execution_log or ""
    assert log == (
        f"{NOTE_PREFIX}no run log: access to log group {GROUP} denied (logs:FilterLogEvents)"
    )


def test_the_read_asks_cloudwatch_for_the_executions_events_page_after_page(world: World) -> None:
    """The request shape FilterLogEvents gets (moto does not check the pattern), and a second
    page fetched with the first page's token; a failure after a page keeps the page."""
    _, stubber = _stubbed_logs(world)
    message = {
        "id": "1",
        "type": "ExecutionStarted",
        "details": {},
        "execution_arn": world.execution_arn,
    }
    now = int(time.time() * 1000)
    page = {
        "events": [
            {
                "logStreamName": STREAM,
                "timestamp": now,
                "message": json.dumps(message),
                "eventId": "1",
            }
        ]
    }
    stubber.add_response(
        "filter_log_events", {**page, "nextToken": "page-2"}, _filter_request(world)
    )
    stubber.add_response(
        "filter_log_events",
        {"events": [], "nextToken": "page-3"},
        _filter_request(world, 9_999, nextToken="page-2"),
    )
    stubber.add_client_error(
        "filter_log_events",
        service_error_code="ThrottlingException",
        http_status_code=400,
        expected_params=_filter_request(world, 9_999, nextToken="page-3"),
    )

    with stubber:
        world.complete()

    stubber.assert_no_pending_responses()
    lines = (world.row().execution_log or "").splitlines()
    assert lines[0].endswith(" ExecutionStarted")
    assert lines[1] == f"{NOTE_PREFIX}run log incomplete: log group {GROUP} could not be read"


@pytest.mark.parametrize(
    ("bound", "kept", "why"),
    [
        (RunLogBound(max_events=3), 3, "1 pages, 3 events read"),
        (RunLogBound(max_bytes=150), 1, "bytes read"),
    ],
)
def test_a_log_past_the_read_bound_keeps_what_was_read_and_says_where_the_rest_is(
    world: World, bound: RunLogBound, kept: int, why: str
) -> None:
    world.log(A_RUN * 3)
    source = StateMachineRunLog(
        StepFunctionsOrchestrator(world.sfn), CloudWatchLogReader(lambda: world.logs), bound
    )

    lines = source.read_run_log(world.row()).splitlines()

    assert len(lines) == kept + 1
    assert lines[-1].startswith(f"{NOTE_PREFIX}run log cut at its read bound (")
    assert why in lines[-1] and lines[-1].endswith(f"the rest is in CloudWatch Logs group {GROUP}")


def test_the_read_stops_after_its_page_bound(world: World) -> None:
    """FilterLogEvents may answer empty pages with a token while it scans a big group."""
    _, stubber = _stubbed_logs(world)
    token: str | None = None
    for index in range(2):
        extra: dict[str, Any] = {"nextToken": token} if token else {}
        token = f"page-{index + 2}"
        stubber.add_response(
            "filter_log_events", {"events": [], "nextToken": token}, _filter_request(world, **extra)
        )
    source = StateMachineRunLog(
        StepFunctionsOrchestrator(world.sfn),
        CloudWatchLogReader(lambda: world.container.logs_client()),
        RunLogBound(max_pages=2),
    )

    with stubber:
        log = source.read_run_log(world.row())

    assert log.startswith(f"{NOTE_PREFIX}run log cut at its read bound (2 pages, 0 events read)")


def test_a_state_machine_the_handler_may_not_describe_gives_a_note(world: World) -> None:
    """moto enforces no IAM: DescribeStateMachine's AccessDeniedException is stubbed."""
    client = boto3.client("stepfunctions", region_name=AWS_REGION)
    stubber = Stubber(client)
    stubber.add_client_error(
        "describe_state_machine",
        service_error_code="AccessDeniedException",
        service_message=f"User: {CALLER} is not authorized to perform: states:DescribeStateMachine",
        http_status_code=400,
        expected_params={"stateMachineArn": world.machine_arn},
    )
    world.container.stepfunctions_client.override(providers.Object(client))

    with stubber:
        assert world.complete()["status"] == "SUCCEEDED"

    assert world.row().execution_log == (
        f"{NOTE_PREFIX}no run log: the state machine could not be described "
        "(DescribeStateMachine: AccessDeniedException)"
    )
