"""GetExecutionLogs: the logs route (seed 000). Reports every available log as a log source with a
read status, reads one source alone by logId or every source (full mode), and otherwise returns
the run's own log. Every line that leaves is redacted."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from functools import partial
from typing import Literal, Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from application.available_logs import AvailableLogFinder, reader_for
from application.ports.executions import ExecutionQueries, RowCollection, RunStore, StepRunStore
from application.ports.files import LogStore, ObjectStore
from application.ports.logs import TOKEN_REFUSED, LogPage, LogRead, LogReader
from domain.attempt_logs import attempt_tails
from domain.attempts import TaskExecution
from domain.available_logs import (
    AvailableLog,
    LogReadStatus,
    LogSourceNotFoundError,
    local_step_log,
    needs_execution_filter,
)
from domain.errors import InvalidInputError, PipelineExecutionNotFoundError
from domain.execution import (
    PipelineExecution,
    StepLog,
    UnreadableRow,
    WorkflowExecution,
    chain_order,
)
from domain.redaction import redact, redact_lines, redacted_lines
from domain.statuses import StepStatus

_FROZEN = ConfigDict(frozen=True, extra="forbid", defer_build=True)
# a step keeps a summary row and, when the run failed on it, an error row: a page holds them all
_STEP_LOG_ROWS = 100
_PIECE_CHARACTERS = 256 * 1024  # what is held of a run log's object copy at a time
# The most of a run log the summary says: what a Step Functions run's log source reads at most
# (application/run_log_sources.py), so such a log comes whole; a local run's may be any size.
RUN_LOG_CHARACTERS = 1024 * 1024


NEXT_TOKEN_FIELD = "next_token"  # named in errors; each entrypoint says its own option


def token_option_named(error: InvalidInputError, option: str) -> InvalidInputError:
    """The error naming an entrypoint's token option (`--next-token`, `nextToken`) where this
    use case named its field; any other error as it was."""
    field, text = f"{NEXT_TOKEN_FIELD}: ", str(error)
    return (
        InvalidInputError(f"{option}: {text.removeprefix(field)}")
        if text.startswith(field)
        else error
    )


class ExecutionLogsStore(RunStore, StepRunStore, ExecutionQueries, Protocol):
    """What the logs read: the run, its steps and attempts, and a step's stored log rows."""


class GetExecutionLogsQuery(BaseModel):
    model_config = _FROZEN

    workflow_execution_id: str = Field(min_length=1)
    log_id: str | None = Field(default=None, max_length=64)  # an id is 16 characters
    next_token: str | None = None
    limit: int = Field(default=100, ge=1, le=10_000)
    full: bool = False
    # VAMS's narrowing: one step's logs only; lines holding a text (taken literally); lines
    # written inside a time window (a line whose source keeps no time is kept)
    pipeline_execution_id: str | None = Field(default=None, min_length=1)
    contains: str | None = Field(default=None, min_length=1)
    start_time: AwareDatetime | None = None
    end_time: AwareDatetime | None = None

    def keeps(self, text: str, timestamp: datetime | None = None) -> bool:
        if self.contains is not None and self.contains not in text:
            return False
        if timestamp is None:
            return True
        too_early = self.start_time is not None and timestamp < self.start_time
        return not too_early and (self.end_time is None or timestamp <= self.end_time)


class LogSourceReport(BaseModel):
    """One available log and what reading it gave (notRead when it was not asked for)."""

    model_config = _FROZEN

    source: AvailableLog
    status: LogReadStatus = LogReadStatus.NOT_READ
    execution_filtered: bool
    next_token: str | None = None
    problem: str | None = None


class LogLine(BaseModel):
    """One line read, with the logId of the source it came from; the message is redacted."""

    model_config = _FROZEN

    log_id: str
    timestamp: AwareDatetime | None = None
    message: str


class AttemptLog(BaseModel):
    """The last lines one attempt of a step wrote to its log, redacted: `earlier` lines before
    them are left out, and `log_id` names the source that reads the step's log whole."""

    model_config = _FROZEN

    pipeline_execution_id: str
    pipeline_id: str
    attempt: int
    status: StepStatus
    lines: tuple[str, ...] = ()
    earlier: int = 0
    log_id: str | None = None


class ExecutionLogs(BaseModel):
    """The logs route's answer."""

    model_config = _FROZEN

    workflow_execution_id: str
    # what was asked, said back as VAMS does: "full" reads the sources, "truncated" the stored logs
    mode: Literal["truncated", "full"] = "truncated"
    pipeline_execution_id: str | None = None  # the one step asked for
    log_sources: tuple[LogSourceReport, ...]
    lines: tuple[LogLine, ...] = ()
    next_token: str | None = None  # the one source's own token, when read by logId
    run_log: str | None = None  # the run's own log, when neither a logId nor full mode was asked
    run_log_earlier: int = 0  # lines before those of run_log left out (a long log's tail)
    # the run's error beside its own log ("" for none): VAMS's log viewer prints it with the log
    execution_error: str | None = None
    # the one step's stored error log ("" for none), said with that step's truncated log as VAMS
    # says `errorLog`: the message of its log rows written for a step that did not succeed
    error_log: str | None = None
    # the one step's stored result log ("" for none): what a step that succeeded wrote on its
    # summary row, the truncated answer where no attempt kept lines (a run off this machine)
    result_log: str | None = None
    warnings: tuple[str, ...] = ()
    # a local run's step logs by attempt, in chain order, beside its run log
    attempts: tuple[AttemptLog, ...] = ()


class GetExecutionLogs:
    """Read an execution's logs: its own log, one source by logId, or every source."""

    def __init__(
        self,
        store: ExecutionLogsStore,
        available_logs: AvailableLogFinder,
        readers: Mapping[str, Callable[[], LogReader]],
        logs: LogStore,
        objects: ObjectStore,
    ) -> None:
        self._store, self._available_logs, self._readers = store, available_logs, readers
        self._logs, self._objects = logs, objects
        self._built: dict[str, LogReader] = {}

    def execute(self, query: GetExecutionLogsQuery) -> ExecutionLogs:
        if query.next_token is not None and query.log_id is None:
            raise InvalidInputError(
                "next_token: a token pages one log source, so it needs log_id as well"
            )
        execution_id = query.workflow_execution_id
        execution = self._store.get_execution(execution_id)
        # a step row another writer left unreadable is named, the other steps' logs still read
        readable, unreadable = self._store.list_readable_steps(execution_id)
        notes = [row.note for row in unreadable]
        steps = {step.pipeline_execution_id: step for step in readable}
        found = self._available_logs.find(execution, list(steps.values()))
        sources = _in_chain_order(found.by_step, steps)
        only = query.pipeline_execution_id
        if only is not None:
            if only not in steps:
                raise PipelineExecutionNotFoundError(only, execution_id)
            sources = [source for source in sources if source.pipeline_execution_id == only]
        if query.log_id is not None and query.log_id not in {s.log_id for s in sources}:
            raise LogSourceNotFoundError(query.log_id, execution_id)
        reports, lines, next_token = self._read_sources(execution, steps, sources, query)
        summary = not (query.full or query.log_id)
        # one step asked for: its own attempts' lines, not the run's log
        run_log, run_log_earlier = (
            self._run_log(execution, query) if summary and only is None else (None, 0)
        )
        chosen = [
            step for step in steps.values() if only is None or step.pipeline_execution_id == only
        ]
        attempts: tuple[AttemptLog, ...] = ()
        if summary:
            attempts, unread = self._attempts(execution, chosen, sources, query)
            notes += [row.note for row in unread]
        stored = self._stored_logs(only) if summary and only is not None else None
        return ExecutionLogs(
            workflow_execution_id=execution_id,
            mode="full" if query.full else "truncated",
            pipeline_execution_id=only,
            log_sources=tuple(reports),
            lines=tuple(lines),
            next_token=next_token,
            run_log=run_log,
            run_log_earlier=run_log_earlier,
            execution_error=None if run_log is None else redact(execution.execution_error or ""),
            # a step row left out: none of its logs is read, and that is said
            warnings=tuple(redact(warning) for warning in (*found.warnings, *notes)),
            attempts=attempts,
            result_log=None if stored is None else stored[0],
            error_log=None if stored is None else stored[1],
        )

    def _read_sources(
        self,
        execution: WorkflowExecution,
        steps: Mapping[str, PipelineExecution],
        sources: list[AvailableLog],
        query: GetExecutionLogsQuery,
    ) -> tuple[list[LogSourceReport], list[LogLine], str | None]:
        """A report per source, the lines of those asked for, and the one source's next token
        when it is read by logId."""
        filtered = [
            needs_execution_filter(source, steps[source.pipeline_execution_id].registered_logs)
            for source in sources
        ]
        wanted = {
            index: (source, filtered[index])
            for index, source in enumerate(sources)
            if source.log_id == query.log_id or (query.full and query.log_id is None)
        }
        token = query.next_token if query.log_id is not None else None
        pages = self._pages(execution, wanted, token, query.limit)
        reports: list[LogSourceReport] = []
        lines: list[LogLine] = []
        next_token: str | None = None
        for index, source in enumerate(sources):
            page = pages.get(index)
            if page is None:
                reports.append(LogSourceReport(source=source, execution_filtered=filtered[index]))
                continue
            if token is not None and (page.problem or "").startswith(TOKEN_REFUSED):
                # the caller's own input, not the source's failure: say so, as of any field
                reason = redact(page.problem or "").removeprefix(TOKEN_REFUSED)
                raise InvalidInputError(f"{NEXT_TOKEN_FIELD}: {reason}")
            reports.append(_report(source, filtered[index], page))
            # as one text: a key block spans events, and a page may start or end inside one
            messages = redact_lines([event.message for event in page.events])
            lines += [
                LogLine(log_id=source.log_id, timestamp=event.timestamp, message=message)
                for event, message in zip(page.events, messages, strict=True)
                # None: all of it inside a key block
                if message is not None and query.keeps(message, event.timestamp)
            ]
            if query.log_id is not None:
                next_token = page.next_token
        return reports, lines, next_token

    def _stored_logs(self, pipeline_execution_id: str) -> tuple[str, str]:
        """The step's first stored result log and first stored error log, as VAMS takes the
        first non-empty resultLog and errorLog of its rows; "" for either it has none of."""
        rows = self._store.list_rows(
            RowCollection.LOGS, pipeline_execution_id, None, _STEP_LOG_ROWS
        )
        logs = [row for row in rows if isinstance(row, StepLog) and row.message]
        succeeded = [row.message for row in logs if row.status == StepStatus.SUCCEEDED.value]
        failed = [row.message for row in logs if row.status != StepStatus.SUCCEEDED.value]
        return (
            redact(succeeded[0]) if succeeded else "",
            redact(failed[0]) if failed else "",
        )

    def _attempts(
        self,
        execution: WorkflowExecution,
        steps: list[PipelineExecution],
        sources: list[AvailableLog],
        query: GetExecutionLogsQuery,
    ) -> tuple[tuple[AttemptLog, ...], tuple[UnreadableRow, ...]]:
        """The local run's step logs by attempt, the last `limit` lines of each, and the attempt
        rows left out (unreadable)."""
        if execution.orchestrator != "local":
            return (), ()  # elsewhere a step's log is shared (a Lambda's group): no markers
        ordered = chain_order(steps)
        by_step: dict[str, list[TaskExecution]] = {}
        read, unread = self._store.list_readable_attempts(
            [s.pipeline_execution_id for s in ordered]
        )
        for attempt in read:
            by_step.setdefault(attempt.pipeline_execution_id, []).append(attempt)
        logs: list[AttemptLog] = []
        for step in ordered:
            step_id = step.pipeline_execution_id
            attempts = by_step.get(step_id, [])
            # read through once, redacted from its start (a key block may span lines), holding
            # only each attempt's tail: a step log may be far larger than memory
            pieces = self._logs.step_log_pieces(execution.workflow_execution_id, step_id)
            tails = attempt_tails(
                step_id,
                redacted_lines(pieces),
                query.limit,
                {attempt.attempt for attempt in attempts},
                query.keeps,
            )
            log_id = _step_log_id(execution.workflow_execution_id, step_id, sources)
            logs += [
                AttemptLog(
                    pipeline_execution_id=step_id,
                    pipeline_id=step.pipeline_id,
                    attempt=attempt.attempt,
                    status=attempt.status,
                    lines=tuple(tails[attempt.attempt][0]),
                    earlier=tails[attempt.attempt][1],
                    log_id=log_id,
                )
                for attempt in attempts
            ]
        return tuple(logs), unread

    def _pages(
        self,
        execution: WorkflowExecution,
        chosen: Mapping[int, tuple[AvailableLog, bool]],
        token: str | None,
        limit: int,
    ) -> dict[int, LogPage]:
        """The page of each chosen source (by its index; with whether its lines are filtered to
        the execution's). A reader is given all of its sources in one call: one on a network
        service waits about one source's round trips for them all, not each source's in turn."""
        by_reader: dict[str, list[int]] = {}
        for index, (source, _) in chosen.items():
            by_reader.setdefault(reader_for(source, execution.orchestrator), []).append(index)
        pages: dict[int, LogPage] = {}
        for name, indexes in by_reader.items():
            reader = self._reader(name)
            if reader is None:
                missing = LogPage(LogReadStatus.ERROR, problem=f"no {name} log reader configured")
                pages.update(dict.fromkeys(indexes, missing))
                continue
            reads = [
                _log_read(execution, *chosen[index], token=token, limit=limit) for index in indexes
            ]
            pages.update(zip(indexes, reader.read_each(reads), strict=True))
        return pages

    def _reader(self, name: str) -> LogReader | None:
        if name not in self._built:
            factory = self._readers.get(name)
            if factory is None:
                return None
            self._built[name] = factory()
        return self._built[name]

    def _run_log(
        self, execution: WorkflowExecution, query: GetExecutionLogsQuery
    ) -> tuple[str, int]:
        """The run log's last lines the query keeps, within RUN_LOG_CHARACTERS, and how many came
        before them, read from the object-store copy of the whole log when the row keeps only its
        tail; the row's own text (a tail already, bounded) is kept whole."""
        key = execution.execution_log_object_key
        if key:
            for stored in self._objects.list_latest(key):
                if stored.key == key:
                    path = self._objects.local_path(key, stored.version_id)
                    with open(path, encoding="utf-8", errors="replace") as file:
                        return _tail(iter(partial(file.read, _PIECE_CHARACTERS), ""), query)
        if execution.execution_log:
            text = redact(execution.execution_log)
            if query.contains is None:
                return text, 0
            return "\n".join(line for line in text.splitlines() if query.keeps(line)), 0
        if execution.orchestrator == "local":  # still open
            return _tail(self._logs.run_log_pieces(execution.workflow_execution_id), query)
        return "", 0


def _tail(pieces: Iterator[str], query: GetExecutionLogsQuery) -> tuple[str, int]:
    """The last lines the query keeps of a text given in pieces, redacted from its start,
    within RUN_LOG_CHARACTERS (the last line at least), as one text, and how many such lines
    came before them."""
    tail: deque[str] = deque()
    count = size = 0
    for line in redacted_lines(pieces):
        if query.keeps(line):
            tail.append(line)
            count += 1
            size += len(line) + 1
            while size > RUN_LOG_CHARACTERS and len(tail) > 1:
                size -= len(tail.popleft()) + 1
    return "".join(line + "\n" for line in tail), count - len(tail)


def _log_read(
    execution: WorkflowExecution,
    source: AvailableLog,
    filtered: bool,
    *,
    token: str | None,
    limit: int,
) -> LogRead:
    return LogRead(
        source.log_group_arn or source.log_group_name,
        stream=source.log_stream_name,
        prefix=source.log_stream_prefix,
        execution_filter=execution.workflow_execution_id if filtered else None,
        next_token=token,
        limit=limit,
    )


def _step_log_id(execution_id: str, step_id: str, sources: list[AvailableLog]) -> str | None:
    """The logId of the local runner's log file of the step: where its whole log is read."""
    own = local_step_log(execution_id, step_id)
    return next(
        (
            source.log_id
            for source in sources
            if source.pipeline_execution_id == step_id
            and source.log_group_name == own.log_group_name
            and source.log_stream_name == own.log_stream_name
        ),
        None,
    )


def _in_chain_order(
    by_step: Mapping[str, tuple[AvailableLog, ...]], steps: Mapping[str, PipelineExecution]
) -> list[AvailableLog]:
    ordered = chain_order(list(steps.values()))
    return [entry for step in ordered for entry in by_step.get(step.pipeline_execution_id, ())]


def _report(source: AvailableLog, filtered: bool, page: LogPage) -> LogSourceReport:
    return LogSourceReport(
        source=source,
        status=page.status,
        execution_filtered=filtered,
        next_token=page.next_token,
        problem=redact(page.problem) if page.problem else None,
    )
