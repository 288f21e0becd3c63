"""Where a run's own log comes from when its terminal row is written (the executionLog).

- A local run: the step log files the local runner wrote (LogStore.run_log_pieces), as before.
- A Step Functions run: the events its state machine logged to CloudWatch Logs for this very
  execution. The log group is the state machine's logging destination (DescribeStateMachine's
  `loggingConfiguration.destinations[].cloudWatchLogsLogGroup.logGroupArn`); one group holds
  every execution of the machine, so the read is filtered on each event's `execution_arn`.

A run's end must never fail because its log cannot be read: a machine that does not log, a
group that is gone, or access denied gives a one-line note in place of the log. The read is
bounded (pages, events, bytes) so that a huge log cannot hold up a Lambda handler; beyond the
bound the log keeps what was read and a note says where the rest is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from application.ports.files import LogStore, StepLogTap
from application.ports.logs import LogEvent, RunLogSource, StateMachineLogReader
from domain.available_logs import LogReadStatus, group_name_of, state_machine_arn_of
from domain.execution import WorkflowExecution

if TYPE_CHECKING:
    from application.ports.orchestration import Orchestrator

STEP_FUNCTIONS = "stepfunctions"
NOTE_PREFIX = "wfx: "
# Events logged a little before the row's start date still belong to the run (clock skew
# between the host that wrote the row and Step Functions).
_START_MARGIN = timedelta(minutes=1)
# FilterLogEvents returns at most 10,000 events a call.
_MAX_EVENTS_PER_CALL = 10_000


@dataclass(frozen=True)
class RunLogBound:
    """How much of a CloudWatch run log one terminal write reads. FilterLogEvents answers in
    about 0.1-1 s a page (it may answer an empty page with a token while it scans), so 20 pages
    keep a completion handler within seconds; 10,000 events or 1 MiB of text are far more than
    the row keeps (application/run_log.py: the tail, 64 KiB)."""

    max_pages: int = 20
    max_events: int = 10_000
    max_bytes: int = 1024 * 1024


def run_log_note(reason: str) -> str:
    """The one line a run log holds when the log itself could not be had."""
    return f"{NOTE_PREFIX}no run log: {reason}"


class LocalRunLog:
    """A run's step logs as the local runner wrote them."""

    def __init__(self, logs: LogStore) -> None:
        self._logs = logs

    def run_log_pieces(
        self, execution: WorkflowExecution, tap: StepLogTap | None = None
    ) -> Iterable[str]:
        return self._logs.run_log_pieces(execution.workflow_execution_id, tap)


class StateMachineRunLog:
    """A Step Functions run's log: its execution's events in its state machine's log group."""

    def __init__(
        self,
        state_machines: Orchestrator,
        events: StateMachineLogReader,
        bound: RunLogBound | None = None,
    ) -> None:
        self._state_machines, self._events = state_machines, events
        self._bound = bound or RunLogBound()

    def run_log_pieces(
        self, execution: WorkflowExecution, tap: StepLogTap | None = None
    ) -> Iterable[str]:
        return (self.read_run_log(execution),)  # bounded by RunLogBound: one piece

    def read_run_log(self, execution: WorkflowExecution) -> str:
        execution_arn = execution.execution_arn
        machine_arn = state_machine_arn_of(execution_arn) if execution_arn else None
        if not execution_arn or machine_arn is None:
            return ""  # never started on Step Functions (its start failed): nothing logged
        group, problem = self._log_group(machine_arn)
        if group is None:
            return run_log_note(problem)
        start = execution.execution_start_date - _START_MARGIN
        return self._read(group, execution_arn, start)

    def _log_group(self, machine_arn: str) -> tuple[str | None, str]:
        """The machine's log group, or None and why there is none."""
        # not imported for a local run's log, nor by a list that reads none
        from application.ports.orchestration import OrchestratorReadError

        try:
            described = self._state_machines.describe_state_machine(machine_arn)
        except OrchestratorReadError as error:
            return None, f"the state machine could not be described ({error})"
        if described is None:
            return None, f"state machine {machine_arn} no longer exists"
        logging = described.logging_configuration
        groups = _log_group_arns(logging)
        if str(logging.get("level", "OFF")) == "OFF" or not groups:
            return None, (
                f"state machine {machine_arn} does not log to CloudWatch Logs "
                "(its loggingConfiguration level is OFF)"
            )
        return groups[0], ""  # Step Functions allows one destination

    def _read(self, group: str, execution_arn: str, start: datetime) -> str:
        lines, cut, problem = self._lines(group, execution_arn, start)
        if problem and not lines:
            return run_log_note(problem)
        if not lines and not cut:
            return run_log_note(
                f"log group {group_name_of(group)} has no events of this execution (yet: Step "
                "Functions delivers them to CloudWatch Logs within seconds)"
            )
        if problem:
            lines.append(f"{NOTE_PREFIX}run log incomplete: {problem}")
        if cut:
            lines.append(
                f"{NOTE_PREFIX}run log cut at its read bound ({cut}); the rest is in "
                f"CloudWatch Logs group {group_name_of(group)}"
            )
        return "\n".join(lines) + "\n"

    def _lines(
        self, group: str, execution_arn: str, start: datetime
    ) -> tuple[list[str], str | None, str | None]:
        """The lines read, why the read stopped short (the bound), and what failed it."""
        bound = self._bound
        lines: list[str] = []
        size, pages = 0, 0
        token: str | None = None
        while True:
            remaining = bound.max_events - len(lines)
            if pages == bound.max_pages or remaining <= 0:
                return lines, f"{pages} pages, {len(lines)} events read", None
            limit = min(_MAX_EVENTS_PER_CALL, remaining)
            page = self._events.read_execution_events(group, execution_arn, start, token, limit)
            pages += 1
            if page.status not in (LogReadStatus.READ, LogReadStatus.EMPTY):
                return lines, None, _unreadable(group, page.status)
            for event in page.events:
                line = _line(event)
                cost = len(line.encode("utf-8")) + 1  # and its newline
                if size + cost > bound.max_bytes:
                    return lines, f"{size:,} bytes read", None
                lines.append(line)
                size += cost
            token = page.next_token
            if not token:
                return lines, None, None


class RunLogRouter:
    """Reads a run's log where its orchestrator logs it (the main row's `orchestrator`); a run of
    any orchestrator not listed (the local runner) from the local log store."""

    def __init__(
        self, local: RunLogSource, by_orchestrator: Mapping[str, Callable[[], RunLogSource]]
    ) -> None:
        self._local, self._factories = local, by_orchestrator
        self._built: dict[str, RunLogSource] = {}

    def run_log_pieces(
        self, execution: WorkflowExecution, tap: StepLogTap | None = None
    ) -> Iterable[str]:
        name = execution.orchestrator
        factory = self._factories.get(name)
        if factory is None:
            return self._local.run_log_pieces(execution, tap)
        if name not in self._built:
            self._built[name] = factory()  # built on first use: a local run needs no boto3
        return self._built[name].run_log_pieces(execution, tap)


def _log_group_arns(logging: Mapping[str, Any]) -> list[str]:
    arns = []
    for destination in logging.get("destinations") or ():
        group = (destination or {}).get("cloudWatchLogsLogGroup") or {}
        arn = group.get("logGroupArn")
        if arn:
            arns.append(str(arn))
    return arns


def _line(event: LogEvent) -> str:
    if event.timestamp is None:
        return event.message
    stamp = event.timestamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{event.timestamp:%f}"[:3] + "Z"
    return f"{stamp} {event.message}"


def _unreadable(group: str, status: LogReadStatus) -> str:
    if status is LogReadStatus.NOT_FOUND:
        return f"log group {group_name_of(group)} not found"
    if status is LogReadStatus.ACCESS_DENIED:
        return f"access to log group {group_name_of(group)} denied (logs:FilterLogEvents)"
    return f"log group {group_name_of(group)} could not be read"
