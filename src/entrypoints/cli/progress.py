"""The live per-step display of `wfx run`, drawn on stderr so stdout keeps just the execution id."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from application.use_cases.get_execution_progress import (
    GetExecutionProgress,
    GetExecutionProgressQuery,
)
from domain.execution import PipelineExecution, WorkflowExecution

_ICONS = {
    "NEW": "·",
    "RUNNING": "▶",
    "SUCCEEDED": "✔",
    "FAILED": "✘",
    "ABORTED": "■",
    "TIMED_OUT": "⌛",
}
_POLL_SECONDS = 0.1


def _render(
    execution: WorkflowExecution, steps: Sequence[PipelineExecution], started: float
) -> Any:
    from rich.table import Table

    from entrypoints.cli.render import duration, error_summary, styled
    from entrypoints.cli.terminal import escape
    from entrypoints.durations import table_span

    table = Table(box=None, show_header=False, title_justify="left")
    table.title = (
        f"{execution.workflow_database_id}/{execution.workflow_id} "
        f"v{execution.workflow_version}  {styled(execution.status.value)}  "
        f"[dim]{time.monotonic() - started:.1f} s[/]"
    )
    for step in steps:
        elapsed = duration(table_span(step.start_date, step.stop_date)) if step.stop_date else ""
        table.add_row(
            _ICONS.get(step.status.value, "?"),
            f"{step.step_index + 1}. {step.pipeline_id}",
            styled(step.status.value),
            elapsed,
            f"[red]{escape(error_summary(step.error, 70))}[/]" if step.error else "",
        )
    return table


def follow_run(
    progress: GetExecutionProgress, execution_id: str, join: Any, console: Any
) -> WorkflowExecution:
    """Redraw the steps until the runner finishes; `join(timeout)` returns True once it has."""
    from rich.live import Live

    started = time.monotonic()
    query = GetExecutionProgressQuery(workflow_execution_id=execution_id)

    def snapshot() -> tuple[WorkflowExecution, tuple[PipelineExecution, ...]]:
        read = progress.execute(query)
        return read.execution, read.steps

    execution, steps = snapshot()
    with Live(
        _render(execution, steps, started),
        console=console,
        transient=False,
        redirect_stdout=False,
        redirect_stderr=False,
        auto_refresh=False,
    ) as live:
        while not join(_POLL_SECONDS):
            execution, steps = snapshot()
            live.update(_render(execution, steps, started), refresh=True)
        execution, steps = snapshot()
        live.update(_render(execution, steps, started), refresh=True)
    return execution
