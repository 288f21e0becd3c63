"""`wfx executions logs` and the availableLogs section of `wfx executions show`."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from domain.attempt_logs import marked_attempt
from domain.available_logs import AvailableLog, LogReadStatus
from domain.errors import InvalidInputError
from domain.execution import StepDetails
from domain.redaction import redact, redact_lines
from entrypoints.cli.errors import EXIT_FAILED_RUN
from entrypoints.cli.terminal import escape

if TYPE_CHECKING:
    from application.use_cases.get_execution_logs import (
        AttemptLog,
        ExecutionLogs,
        GetExecutionLogs,
        LogLine,
        LogSourceReport,
    )
    from entrypoints.container import Container

# --follow polls: often enough to feel live, rarely enough to cost a store or CloudWatch little
FOLLOW_INTERVAL_SECONDS = 0.5
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command Ctrl-C ended


def where(entry: AvailableLog) -> str:
    place = entry.log_group_arn or entry.log_group_name
    if entry.log_stream_name:
        return f"{place} stream {entry.log_stream_name}"
    if entry.log_stream_prefix:
        return f"{place} streams {entry.log_stream_prefix}*"
    return place


def print_available_logs(
    steps: Sequence[StepDetails], warnings: Sequence[str], console: Any
) -> None:
    """Each step's logs with the id `wfx executions logs ID --log-id` takes."""
    listed = [(entry.step.pipeline_id, log) for entry in steps for log in entry.available_logs]
    if not listed and not warnings:
        return
    console.print(
        "\n[bold]Available logs[/] [dim](read one: wfx executions logs ID --log-id LOG_ID)[/]"
    )
    for pipeline_id, log in listed:
        label = f" ({log.label})" if log.label else ""  # registration text: anything at all
        console.print(
            f"  {log.log_id}  {escape(pipeline_id)}  [dim]{log.kind.value}[/]  "
            f"{escape(redact(where(log) + label))}",
            soft_wrap=True,
        )
    for warning in warnings:
        console.print(f"  [yellow]warning:[/] {escape(redact(warning))}", soft_wrap=True)


def show_logs(
    container: Container,
    execution_id: str,
    log_id: str | None,
    full: bool,
    next_token: str | None,
    limit: int,
    json_output: bool,
    follow: bool = False,
) -> None:
    from application.use_cases.get_execution_logs import GetExecutionLogsQuery, token_option_named

    if next_token is not None and log_id is None:
        raise InvalidInputError(
            "--next-token: a token pages one log source; give its --log-id as well"
        )
    if follow:
        if next_token is not None:
            raise InvalidInputError("--next-token: --follow reads each source from its start")
        try:
            unreadable = _follow(container, execution_id, log_id, limit, json_output)
        except KeyboardInterrupt:
            sys.stdout.flush()
            raise SystemExit(EXIT_INTERRUPTED) from None  # Ctrl-C is how a follow ends early
        if unreadable:
            raise SystemExit(EXIT_FAILED_RUN)
        return
    query = GetExecutionLogsQuery(
        workflow_execution_id=execution_id,
        log_id=log_id,
        next_token=next_token,
        limit=limit,
        full=full,
    )
    try:
        result = container.get_execution_logs().execute(query)
    except InvalidInputError as error:
        raise token_option_named(error, "--next-token") from None
    _print_logs(result, log_id, full, json_output)
    if log_id is not None and any(
        report.status is not LogReadStatus.READ
        for report in result.log_sources
        if report.source.log_id == log_id
    ):
        # the one source asked for could not be read: a script must not take silence for empty
        raise SystemExit(EXIT_FAILED_RUN)


def _print_logs(result: ExecutionLogs, log_id: str | None, full: bool, json_output: bool) -> None:
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.responses import ExecutionLogsResponse

        _out(dump_json(ExecutionLogsResponse.of(result).dump()))
        return
    for warning in result.warnings:
        print(f"warning: {redact(warning)}", file=sys.stderr)
    if result.run_log is not None:
        if any(attempt.lines for attempt in result.attempts):
            _print_attempts(result.workflow_execution_id, result.attempts)
        else:
            if result.run_log_earlier:
                _out(
                    f"… {result.run_log_earlier} earlier lines: "
                    f"wfx executions logs {result.workflow_execution_id} --full"
                )
            _out(result.run_log.rstrip("\n") if result.run_log else "(the run has no log yet)")
        _print_sources(result.log_sources)
        return
    by_source: dict[str, list[str]] = {}
    for line in result.lines:
        stamp = f"{line.timestamp.isoformat()} " if line.timestamp else ""
        by_source.setdefault(line.log_id, []).append(f"{stamp}{line.message}")
    for report in result.log_sources:
        if report.status.value == "notRead":
            continue
        if full:
            _out(
                f"===== {report.source.log_id} {report.source.kind.value} {where(report.source)}: "
                f"{report.status.value} ====="
            )
        for text in redact_lines(by_source.get(report.source.log_id, [])):
            if text is not None:
                sys.stdout.write(text + "\n")
        if report.problem:
            print(
                f"{report.source.log_id}: {report.status.value}: {redact(report.problem)}",
                file=sys.stderr,
            )
        if report.next_token and full:
            print(
                f"{report.source.log_id}: more: --log-id {report.source.log_id} "
                f"--next-token {report.next_token}",
                file=sys.stderr,
            )
    if result.next_token:
        print(f"Next page: --log-id {log_id} --next-token {result.next_token}", file=sys.stderr)


def _print_attempts(execution_id: str, attempts: Sequence[AttemptLog]) -> None:
    """Each attempt's last lines under a header naming its step, number and status: a retried
    step's first failure is told apart from the attempt that succeeded. Where lines were left
    out, how many and the command that reads them."""
    for attempt in attempts:
        _out(
            f"== step {attempt.pipeline_id}, attempt {attempt.attempt} ({attempt.status.value}) =="
        )
        if attempt.earlier:
            where_whole = f" --log-id {attempt.log_id}" if attempt.log_id else " --full"
            _out(
                f"… {attempt.earlier} earlier lines: "
                f"wfx executions logs {execution_id}{where_whole}"
            )
        for line in attempt.lines:
            _out(line)


def _print_sources(reports: Sequence[LogSourceReport]) -> None:
    if not reports:
        return
    print("Log sources (read one with --log-id LOG_ID, all with --full):", file=sys.stderr)
    for report in reports:
        print(
            f"  {report.source.log_id}  {report.source.kind.value}  {where(report.source)}",
            file=sys.stderr,
        )


def _out(text: str) -> None:
    # the use case redacted it already; this catches what an older row could still carry, and
    # costs little on text already redacted
    sys.stdout.write(redact(text) + "\n")


@dataclass
class _Position:
    """How far one source is printed: the token of the page being read, lines printed of it."""

    token: str | None = None
    printed: int = 0


def _follow(
    container: Container, execution_id: str, log_id: str | None, limit: int, json_output: bool
) -> bool:
    """Print every source's lines (or the one `log_id`'s), then the new ones as they come, new
    steps' sources included, until the run has ended; whether `log_id` could not be read."""
    from application.use_cases.get_execution import GetExecutionQuery

    read = container.get_execution_logs()
    positions: dict[str, _Position] = {}
    header_of: list[str] = []  # the source the last lines printed came from
    while True:
        # the status before the lines: a run seen ended has written all of its lines already
        ended = (
            container.get_execution()
            .execute(GetExecutionQuery(workflow_execution_id=execution_id))
            .is_terminal
        )
        reports = _read_sources(read, execution_id, log_id, limit, positions)
        for report, lines in reports:
            if lines and not json_output and header_of != [report.source.log_id]:
                source = report.source
                _out(f"== {source.log_id} {source.kind.value} {where(source)} ==")
                header_of[:] = [report.source.log_id]
            for line in lines:
                attempt = marked_attempt(report.source.pipeline_execution_id, line.message)
                if attempt is not None and not json_output:
                    _out(f"== attempt {attempt} ==")  # a retry of the step starts here
                    continue
                _print_followed(line, json_output)
        sys.stdout.flush()
        if ended:
            return log_id is not None and any(
                report.status is not LogReadStatus.READ
                for report, _ in reports
                if report.source.log_id == log_id
            )
        time.sleep(FOLLOW_INTERVAL_SECONDS)


def _read_sources(
    read: GetExecutionLogs,
    execution_id: str,
    log_id: str | None,
    limit: int,
    positions: dict[str, _Position],
) -> list[tuple[LogSourceReport, list[LogLine]]]:
    """Each source's lines past its position, in chain order; sources of steps that started
    since the last call are read from their start."""
    from application.use_cases.get_execution_logs import GetExecutionLogsQuery

    listed = read.execute(
        GetExecutionLogsQuery(workflow_execution_id=execution_id, full=True, limit=1)
    )
    wanted = [r.source.log_id for r in listed.log_sources if log_id in (None, r.source.log_id)]
    found: list[tuple[LogSourceReport, list[LogLine]]] = []
    for source_id in wanted:
        position = positions.setdefault(source_id, _Position())
        lines: list[LogLine] = []
        while True:
            query = GetExecutionLogsQuery(
                workflow_execution_id=execution_id,
                log_id=source_id,
                next_token=position.token,
                limit=limit,
            )
            result = read.execute(query)
            (report,) = [r for r in result.log_sources if r.source.log_id == source_id]
            page = [line for line in result.lines if line.log_id == source_id]
            lines += page[position.printed :]
            if result.next_token is None:
                # a token marks a place in the source: the next call reads this page again
                position.printed = max(position.printed, len(page))
                break
            position.token, position.printed = result.next_token, 0
        found.append((report, lines))
    return found


def _print_followed(line: LogLine, json_output: bool) -> None:
    if json_output:  # one JSON document a line, so a follower's output can be read as it comes
        stamp = line.timestamp.isoformat() if line.timestamp else None
        document = {"logId": line.log_id, "timestamp": stamp, "message": line.message}
        sys.stdout.write(redact(json.dumps(document, separators=(",", ":"))) + "\n")
        return
    stamp = f"{line.timestamp.isoformat()} " if line.timestamp else ""
    _out(f"{stamp}{line.message}")
