"""`wfx maintenance ...` bodies, and how stop outcomes are printed (sweep and `executions show`)."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from domain.errors import InvalidInputError
from domain.execution import StepDetails
from domain.redaction import redact
from domain.sub_processes import StopOutcome
from entrypoints.cli.counts import counted
from entrypoints.cli.terminal import escape

if TYPE_CHECKING:
    from application.use_cases.sweep_aborts import SweepAbortsResult
    from entrypoints.container import Container

_DURATION = re.compile(r"(\d+)([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
# now plus or minus this is still a date (a token's expiry, the start of a sweep's window)
MAX_DURATION_DAYS = 36500
OUTCOME_STYLES = {
    StopOutcome.STOPPED: "green",
    StopOutcome.ALREADY_FINISHED: "green",
    StopOutcome.STOP_REQUESTED: "yellow",
    StopOutcome.COULD_NOT_STOP: "red",
    StopOutcome.UNSUPPORTED: "red",
}


def parse_duration(text: str, option: str = "--since", bare_seconds: bool = False) -> timedelta:
    """`24h`, `7d`, `1d12h`, `90m` (and `3600`, seconds, when `bare_seconds`): one or more
    <number><s|m|h|d|w>, more than zero and at most MAX_DURATION_DAYS in all."""
    cleaned = text.strip().lower()
    examples = "e.g. 24h, 7d, 90m or 1d12h"
    if bare_seconds:
        examples = "seconds (3600) or e.g. 30m, 1h, 2d"
        cleaned += "s" if cleaned.isdigit() else ""
    parts = _DURATION.findall(cleaned)
    if not parts or "".join(n + u for n, u in parts) != cleaned:
        raise InvalidInputError(f"{option}: {text!r} is not a duration; write {examples}")
    try:
        total = sum((timedelta(**{_UNITS[unit]: int(n)}) for n, unit in parts), timedelta())
    except OverflowError:  # more days than a timedelta holds
        total = timedelta.max
    if total <= timedelta(0):
        raise InvalidInputError(f"{option}: the duration must be more than zero")
    if total > timedelta(days=MAX_DURATION_DAYS):
        raise InvalidInputError(
            f"{option}: at most {MAX_DURATION_DAYS}d (a hundred years), got {text.strip()!r}"
        )
    return total


def styled_outcome(outcome: StopOutcome) -> str:
    return f"[{OUTCOME_STYLES[outcome]}]{outcome.value}[/]"


def sweep_table(result: SweepAbortsResult) -> Any:
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    for column in ("EXECUTION", "PIPELINE", "TYPE", "ID", "WAS", "NOW", "TRIES", "DETAIL"):
        table.add_column(column)
    for child in result.children:
        table.add_row(
            child.workflow_execution_id,
            escape(child.pipeline_id),
            escape(child.resource_type),
            escape(child.resource_id),
            child.previous_outcome.value,
            styled_outcome(child.outcome),
            str(child.tries),
            escape(redact(child.detail)[:80]),
        )
    return table


def sweep_aborts(container: Container, since: str, json_output: bool, console: Any) -> int:
    """Run the sweep and print it; the exit code: 0 when every child is confirmed, else 1."""
    from application.use_cases.sweep_aborts import SweepAbortsCommand
    from entrypoints.cli.render import dump_json
    from entrypoints.responses import SweepResponse

    command = SweepAbortsCommand(since=parse_duration(since))
    result = container.sweep_aborts().execute(command)
    for warning in result.warnings:
        print(f"warning: {redact(warning)}", file=sys.stderr)
    if json_output:
        sys.stdout.write(dump_json(SweepResponse.of(result).dump()) + "\n")
    else:
        if result.children:
            console.print(sweep_table(result))
        confirmed = len(result.children) - result.remaining
        console.print(
            f"{counted(result.runs_checked, 'stopped run')} checked, "
            f"{counted(len(result.children), 'unconfirmed child', 'unconfirmed children')}: "
            f"{confirmed} now confirmed, {result.remaining} still not confirmed."
        )
    return 1 if result.remaining else 0


def print_stop_outcomes(steps: Sequence[StepDetails], console: Any) -> None:
    """What aborts did to each step's registered children (`executions show`)."""
    stopped = [entry.step for entry in steps if entry.step.sub_execution_stops]
    if not stopped:
        return
    console.print("\n[bold]Sub-process stops[/]")
    for step in stopped:
        for stop in step.sub_execution_stops:
            detail = f"  [dim]{escape(redact(stop.detail)[:80])}[/]" if stop.detail else ""
            console.print(
                f"  {escape(step.pipeline_id)}  {escape(stop.resource_type)} "
                f"{escape(stop.resource_id)}  {styled_outcome(stop.outcome)}"
                f"  [dim]tries {stop.tries}[/]{detail}"
            )
