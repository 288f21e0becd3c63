"""LogReader on CloudWatch Logs: GetLogEvents for a stream read whole, FilterLogEvents for a
group, a prefix or any read filtered to one execution. The client is built on first read.

It is also the StateMachineLogReader: a Step Functions state machine logs every execution into
one group, each event a JSON document
`{"id", "type", "details", "previous_event_id", "event_timestamp", "execution_arn", ...}`, so one
execution's events are those whose `execution_arn` is its ARN.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from adapters.aws.failures import transport_problem
from adapters.aws.lazy_client import LazyClient
from adapters.concurrent_reads import ConcurrentReads
from application.ports.logs import LogEvent, LogPage, LogRead
from domain.available_logs import LogReadStatus, group_name_of

# FilterLogEvents takes at most 100 logStreamNames.
MAX_STREAM_NAMES = 100
# GetLogEvents may answer with fewer events than asked (or none) before the end of a stream.
_MAX_CALLS_PER_PAGE = 5
_STATUS_BY_CODE = {
    "ResourceNotFoundException": LogReadStatus.NOT_FOUND,
    "AccessDeniedException": LogReadStatus.ACCESS_DENIED,
    "UnauthorizedOperation": LogReadStatus.ACCESS_DENIED,
}


def _identifier(group: str) -> str:
    return group[:-2] if group.endswith(":*") else group  # the API refuses the trailing ":*"


def _event(raw: dict[str, Any]) -> LogEvent:
    stamp = raw.get("timestamp")
    moment = datetime.fromtimestamp(stamp / 1000, tz=UTC) if stamp is not None else None
    return LogEvent(message=str(raw.get("message", "")).rstrip("\n"), timestamp=moment)


def _failed(error: Exception) -> LogPage:
    if isinstance(error, ClientError):
        code = str(error.response.get("Error", {}).get("Code", ""))
        message = str(error.response.get("Error", {}).get("Message", "")) or code
        return LogPage(_STATUS_BY_CODE.get(code, LogReadStatus.ERROR), problem=message)
    # no credentials or no answer; or moto's NotImplementedError for an API it lacks
    problem = transport_problem(error) or f"{type(error).__name__}: {error}"
    return LogPage(LogReadStatus.ERROR, problem=problem)


class CloudWatchLogReader(LazyClient):
    """Reads CloudWatch Logs sources; service errors come back as a page status.

    `concurrent_reads`: several sources' reads (`read_each`) are sent at once, each a few round
    trips of its own; false, one after another."""

    def __init__(self, client_factory: Callable[[], Any], concurrent_reads: bool = True) -> None:
        super().__init__(client_factory)
        self._reads = ConcurrentReads(concurrent_reads)

    def read_each(self, reads: Sequence[LogRead]) -> list[LogPage]:
        if not reads:
            return []
        try:  # made once, here: the threads share one client (boto3's making one is not safe)
            self.client  # noqa: B018 - built for its effect
        except (ClientError, BotoCoreError, NotImplementedError) as error:
            return [_failed(error) for _ in reads]
        return self._reads.each([partial(read.made_by, self.read) for read in reads])

    def read(
        self,
        group: str,
        stream: str = "",
        prefix: str = "",
        execution_filter: str | None = None,
        next_token: str | None = None,
        limit: int = 100,
    ) -> LogPage:
        try:
            if stream and not execution_filter:
                return self._stream(group, stream, next_token, limit)
            return self._filtered(group, stream, prefix, execution_filter, next_token, limit)
        except (ClientError, BotoCoreError, NotImplementedError) as error:
            return _failed(error)

    def _stream(self, group: str, stream: str, token: str | None, limit: int) -> LogPage:
        events: list[LogEvent] = []
        for _ in range(_MAX_CALLS_PER_PAGE):
            request: dict[str, Any] = {
                "logGroupIdentifier": _identifier(group),
                "logStreamName": stream,
                "startFromHead": True,
                "limit": limit - len(events),
            }
            if token:
                request["nextToken"] = token
            answer = self.client.get_log_events(**request)
            events += [_event(raw) for raw in answer.get("events", [])]
            following = answer.get("nextForwardToken")
            if not following or following == token:
                token = None  # the token repeats at the end of the stream
                break
            token = following
            if len(events) >= limit:
                break
        return _page(events, token)

    def _filtered(
        self,
        group: str,
        stream: str,
        prefix: str,
        execution_filter: str | None,
        token: str | None,
        limit: int,
    ) -> LogPage:
        # By name: moto 5.2.5 does not resolve an ARN in FilterLogEvents' logGroupIdentifier.
        request: dict[str, Any] = {"logGroupName": group_name_of(group), "limit": limit}
        if stream:
            request["logStreamNames"] = [stream]
        elif prefix:
            # resolved here: moto ignores logStreamNamePrefix in FilterLogEvents (moto.md §17)
            names = self._streams_with_prefix(group, prefix)
            if not names:
                return LogPage(LogReadStatus.EMPTY)
            request["logStreamNames"] = names
        if execution_filter:
            request["filterPattern"] = f'"{execution_filter}"'  # a quoted term: exact match
        if token:
            request["nextToken"] = token
        answer = self.client.filter_log_events(**request)
        return _page([_event(raw) for raw in answer.get("events", [])], answer.get("nextToken"))

    def read_execution_events(
        self,
        group: str,
        execution_arn: str,
        start_time: datetime | None = None,
        next_token: str | None = None,
        limit: int = 1000,
    ) -> LogPage:
        request: dict[str, Any] = {
            "logGroupName": group_name_of(group),
            # exact on the field: a quoted term would also match another execution's event
            # whose input or output names this ARN
            "filterPattern": f'{{ $.execution_arn = "{execution_arn}" }}',
            "limit": limit,
        }
        if start_time is not None:
            request["startTime"] = int(start_time.timestamp() * 1000)
        if next_token:
            request["nextToken"] = next_token
        try:
            answer = self.client.filter_log_events(**request)
        except (ClientError, BotoCoreError, NotImplementedError) as error:
            return _failed(error)
        # Checked here as well: moto 5.2.5 ignores a JSON filter pattern (every event matches).
        events = [
            event
            for raw in answer.get("events", [])
            if (event := _state_machine_event(raw, execution_arn)) is not None
        ]
        return _page(events, answer.get("nextToken"))

    def _streams_with_prefix(self, group: str, prefix: str) -> list[str]:
        answer = self.client.describe_log_streams(
            logGroupName=group_name_of(group),
            logStreamNamePrefix=prefix,
            limit=50,
        )
        names = [entry["logStreamName"] for entry in answer.get("logStreams", [])]
        token = answer.get("nextToken")
        while token and len(names) < MAX_STREAM_NAMES:
            answer = self.client.describe_log_streams(
                logGroupIdentifier=_identifier(group),
                logStreamNamePrefix=prefix,
                limit=50,
                nextToken=token,
            )
            names += [entry["logStreamName"] for entry in answer.get("logStreams", [])]
            token = answer.get("nextToken")
        return names[:MAX_STREAM_NAMES]


def _state_machine_event(raw: dict[str, Any], execution_arn: str) -> LogEvent | None:
    """One Step Functions event as a line `<type> <details JSON>`; None when it is another
    execution's (or not a Step Functions event at all)."""
    try:
        document = json.loads(str(raw.get("message", "")))
    except ValueError:
        return None
    if not isinstance(document, dict) or document.get("execution_arn") != execution_arn:
        return None
    line = str(document.get("type", "event"))
    details = document.get("details")
    if details:
        line += " " + json.dumps(details, separators=(",", ":"), ensure_ascii=False)
    return _event({**raw, "message": line})


def _page(events: list[LogEvent], token: str | None) -> LogPage:
    status = LogReadStatus.READ if events else LogReadStatus.EMPTY
    return LogPage(status, events=tuple(events), next_token=token or None)
