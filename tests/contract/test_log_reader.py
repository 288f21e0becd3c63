"""The log reader port over its two readers (the local runner's files; CloudWatch Logs on moto):
several sources read in one call give each page as its own read gives it, in the order asked."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from adapters.aws.cloudwatch_logs import CloudWatchLogReader
from adapters.local.log_reader import LocalFileLogReader
from application.ports.logs import LogPage, LogRead, LogReader
from domain.available_logs import LogReadStatus

REGION = "us-east-1"
# group -> stream -> lines, written alike to both readers. One group: moto 5.2.5's GetLogEvents
# by logGroupIdentifier answers from the last group made, whatever the identifier names
LOGS = {
    "runs": {
        "pipe-1.log": ["one", "two", "three"],
        "pipe-2.log": ["four"],
        "tool.log": ["exec-1 began", "exec-2 began", "exec-1 ended"],
    },
}


def _local(tmp_path: Path) -> LogReader:
    for group, streams in LOGS.items():
        for stream, lines in streams.items():
            path = tmp_path / "logs" / group / stream
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return LocalFileLogReader(tmp_path / "logs")


def _cloudwatch() -> LogReader:
    logs = boto3.client("logs", region_name=REGION)
    now = int(time.time() * 1000)  # moto refuses events older than 14 days
    for group, streams in LOGS.items():
        logs.create_log_group(logGroupName=group)
        for stream, lines in streams.items():
            logs.create_log_stream(logGroupName=group, logStreamName=stream)
            events = [{"timestamp": now + i, "message": m} for i, m in enumerate(lines)]
            logs.put_log_events(logGroupName=group, logStreamName=stream, logEvents=events)
    return CloudWatchLogReader(lambda: logs)


@pytest.fixture(params=["local", "cloudwatch"])
def reader(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[LogReader]:
    if request.param == "local":
        yield _local(tmp_path)
        return
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        yield _cloudwatch()


READS = [
    LogRead("runs", stream="pipe-1.log", limit=2),
    LogRead("runs", stream="tool.log", execution_filter="exec-1"),
    LogRead("no-such-group", stream="x.log"),
    LogRead("runs", stream="pipe-2.log"),
    LogRead("runs", stream="pipe-1.log", limit=1),
]


def _lines(page: LogPage) -> tuple[LogReadStatus, list[str], bool]:
    return page.status, [event.message for event in page.events], page.next_token is not None


def test_reads_in_one_call_give_each_page_as_its_own_read_does(reader: LogReader) -> None:
    each = reader.read_each(READS)
    one_by_one = [read.made_by(reader.read) for read in READS]
    assert [_lines(page) for page in each] == [_lines(page) for page in one_by_one]
    assert [_lines(page) for page in each] == [
        (LogReadStatus.READ, ["one", "two"], True),
        (LogReadStatus.READ, ["exec-1 began", "exec-1 ended"], False),
        (LogReadStatus.NOT_FOUND, [], False),
        (LogReadStatus.READ, ["four"], False),
        (LogReadStatus.READ, ["one"], True),
    ]


def test_a_page_read_in_one_call_goes_on_with_its_own_token(reader: LogReader) -> None:
    first, _ = reader.read_each(READS[:2])
    (rest,) = reader.read_each([LogRead("runs", "pipe-1.log", next_token=first.next_token)])
    assert _lines(rest) == (LogReadStatus.READ, ["three"], False)


def test_no_reads_read_nothing(reader: LogReader) -> None:
    assert reader.read_each([]) == []
