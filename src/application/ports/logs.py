"""The ports of reading logs: a log group's events, a state machine's, a run's log."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from application.ports.files import StepLogTap
    from domain.available_logs import LogReadStatus
    from domain.execution import WorkflowExecution


@dataclass(frozen=True)
class LogEvent:
    """One line a log service returned; `timestamp` is None where the source keeps none."""

    message: str
    timestamp: datetime | None = None


# How a page's problem starts when the reader refused the next token it was given (garbled,
# forged, or another log's): a caller names its own token option after it.
TOKEN_REFUSED = "next token refused: "


@dataclass(frozen=True)
class LogPage:
    """One read of one log source: its status, the lines, and the service's own next token."""

    status: LogReadStatus
    events: tuple[LogEvent, ...] = ()
    next_token: str | None = None
    problem: str | None = None  # why, when the status is notFound / accessDenied / error


@dataclass(frozen=True)
class LogRead:
    """One source's read, as `LogReader.read`'s arguments."""

    group: str
    stream: str = ""
    prefix: str = ""
    execution_filter: str | None = None
    next_token: str | None = None
    limit: int = 100

    def made_by(
        self, read: Callable[[str, str, str, str | None, str | None, int], LogPage]
    ) -> LogPage:
        """This read made by a reader's `read`."""
        return read(
            self.group, self.stream, self.prefix, self.execution_filter, self.next_token, self.limit
        )


class LogReader(Protocol):
    """Reads one log source: a group (ARN or name) with an exact stream, a prefix, or neither.

    `execution_filter` (an execution id) keeps only that execution's lines; a service error is
    reported in the page's status, never raised.
    """

    def read(
        self,
        group: str,
        stream: str = "",
        prefix: str = "",
        execution_filter: str | None = None,
        next_token: str | None = None,
        limit: int = 100,
    ) -> LogPage: ...

    def read_each(self, reads: Sequence[LogRead]) -> list[LogPage]:
        """Each read's page, in the order asked, as `read` gives it: a reader whose reads are
        network round trips sends them at once."""
        ...


class StateMachineLogReader(Protocol):
    """Reads the events a Step Functions state machine logged for one execution from its log
    group (ARN or name): only those whose `execution_arn` is `execution_arn`, oldest first, as
    one line each. `start_time` skips what was logged before the run started. A service error is
    reported in the page's status, never raised; a page may be empty and still have a token."""

    def read_execution_events(
        self,
        group: str,
        execution_arn: str,
        start_time: datetime | None = None,
        next_token: str | None = None,
        limit: int = 1000,
    ) -> LogPage: ...


class RunLogSource(Protocol):
    """Where a run's own log (the main row's executionLog) is read from when the run ends: the
    text, whole up to the source's bound, a piece at a time (a local run's log is as large as its
    steps printed). A log that is missing or unreadable gives a one-line note saying why (or
    nothing), never an error: a run log never fails the run's end.

    `tap` sees each step log the text is made of as it is read (a local run's); a source whose
    log is not made of step logs never calls it."""

    def run_log_pieces(
        self, execution: WorkflowExecution, tap: StepLogTap | None = None
    ) -> Iterable[str]: ...
