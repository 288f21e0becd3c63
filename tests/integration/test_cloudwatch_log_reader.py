"""CloudWatchLogReader against moto's CloudWatch Logs (in-process)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from adapters.aws.cloudwatch_logs import CloudWatchLogReader
from domain.available_logs import LogReadStatus

GROUP = "/pipelines/convert"


@pytest.fixture
def logs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        client = boto3.client("logs", region_name="us-east-1")
        client.create_log_group(logGroupName=GROUP)
        yield client


def _put(client: Any, stream: str, messages: list[str]) -> None:
    client.create_log_stream(logGroupName=GROUP, logStreamName=stream)
    now = int(time.time() * 1000)  # moto refuses events older than 14 days
    events = [{"timestamp": now + i, "message": m} for i, m in enumerate(messages)]
    client.put_log_events(logGroupName=GROUP, logStreamName=stream, logEvents=events)


def _arn(client: Any) -> str:
    arn = str(client.describe_log_groups(logGroupNamePrefix=GROUP)["logGroups"][0]["arn"])
    assert arn.endswith(":*")  # as DescribeLogGroups gives it
    return arn


def test_an_exact_stream_is_paged_until_the_token_repeats(logs: Any) -> None:
    _put(logs, "job/a", [f"line {i}" for i in range(5)])
    reader = CloudWatchLogReader(lambda: logs)
    seen, token, pages = [], None, 0
    while True:
        page = reader.read(_arn(logs), stream="job/a", next_token=token, limit=2)
        pages += 1
        seen += [event.message for event in page.events]
        token = page.next_token
        if token is None:
            break
    assert seen == [f"line {i}" for i in range(5)]
    assert pages == 3
    assert page.status is LogReadStatus.READ


def test_a_prefix_is_resolved_to_stream_names(logs: Any) -> None:
    _put(logs, "job/a", ["from a"])
    _put(logs, "job/b", ["from b"])
    _put(logs, "other/c", ["from c"])
    page = CloudWatchLogReader(lambda: logs).read(GROUP, prefix="job/")
    assert sorted(event.message for event in page.events) == ["from a", "from b"]


def test_a_prefix_no_stream_starts_with_reads_nothing(logs: Any) -> None:
    _put(logs, "job/a", ["from a"])
    page = CloudWatchLogReader(lambda: logs).read(GROUP, prefix="nothing/")
    assert page.status is LogReadStatus.EMPTY and page.events == ()


def test_a_filtered_read_returns_only_the_executions_lines(logs: Any) -> None:
    _put(logs, "shared", ["exec-1 started", "exec-2 started", "exec-1 done"])
    reader = CloudWatchLogReader(lambda: logs)
    group_page = reader.read(_arn(logs), execution_filter="exec-1")
    stream_page = reader.read(GROUP, stream="shared", execution_filter="exec-1")
    assert [e.message for e in group_page.events] == ["exec-1 started", "exec-1 done"]
    assert [e.message for e in stream_page.events] == ["exec-1 started", "exec-1 done"]
    assert group_page.events[0].timestamp is not None


def test_a_missing_group_is_not_found(logs: Any) -> None:
    reader = CloudWatchLogReader(lambda: logs)
    assert reader.read("/no/such/group", stream="s").status is LogReadStatus.NOT_FOUND
    assert reader.read("/no/such/group").status is LogReadStatus.NOT_FOUND
    assert reader.read("/no/such/group", prefix="p").status is LogReadStatus.NOT_FOUND


def test_access_denied_is_reported_as_a_status() -> None:
    """moto grants every call, so the AccessDeniedException is stubbed (botocore Stubber) in the
    shape CloudWatch Logs answers it."""
    from botocore.stub import Stubber

    client = boto3.client(
        "logs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    with Stubber(client) as stub:
        stub.add_client_error(
            "filter_log_events",
            service_error_code="AccessDeniedException",
            service_message="User is not authorized to perform: logs:FilterLogEvents",
        )
        page = CloudWatchLogReader(lambda: client).read(GROUP, execution_filter="exec-1")
    assert page.status is LogReadStatus.ACCESS_DENIED
    assert page.problem is not None and "logs:FilterLogEvents" in page.problem


def test_the_client_is_built_only_on_the_first_read() -> None:
    built: list[int] = []

    def factory() -> Any:
        built.append(1)
        raise RuntimeError("no client here")

    CloudWatchLogReader(factory)
    assert built == []
