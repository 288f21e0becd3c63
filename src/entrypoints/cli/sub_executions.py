"""`wfx executions show --sub-executions`: each step's registered sub-executions, their status
and, for Step Functions, the tree of derived stages; as text or as JSON (subExecutions, stages,
subExecutionWarnings)."""

from __future__ import annotations

from typing import Any

from rich.tree import Tree

from domain.execution import ExecutionDetails
from domain.redaction import redact
from domain.stages import StageState
from entrypoints.cli.render import duration, styled
from entrypoints.cli.terminal import escape
from entrypoints.durations import Span

_STAGE_STYLES = {"NOT_STARTED": "dim", "CAUGHT": "yellow", "UNKNOWN": "magenta"}


def _status(status: str) -> str:
    style = _STAGE_STYLES.get(status)
    return f"[{style}]{status}[/]" if style else styled(status)


def _stage_label(stage: StageState) -> str:
    parts = [f"{escape(stage.name)} [dim]{escape(stage.state_type)}[/]", _status(stage.status)]
    if stage.stop_date:
        parts.append(
            f"[dim]{duration(Span(stage.start_date, stage.stop_date, whole_seconds=False))}[/]"
        )
    if stage.entries > 1:
        parts.append(f"[dim]x{stage.entries}[/]")
    if stage.retries:
        parts.append(f"[dim]{stage.retries} {'retry' if stage.retries == 1 else 'retries'}[/]")
    if stage.error:
        parts.append(f"[red]{escape(redact(stage.error))}[/]")
    return "  ".join(parts)


def _add_stages(tree: Tree, stages: tuple[StageState, ...]) -> None:
    branch: int | None = None
    for stage in stages:
        parent = tree
        if stage.branch is not None:
            if stage.branch != branch:
                branch = stage.branch
                branch_node = tree.add(f"[dim]branch {stage.branch + 1}[/]")
            parent = branch_node
        _add_stages(parent.add(_stage_label(stage)), stage.children)


def print_sub_executions(details: ExecutionDetails, console: Any) -> None:
    console.print("\n[bold]Sub-executions[/]")
    steps = [entry for entry in details.steps if entry.sub_executions]
    if not steps:
        console.print("  [dim]no step registered a sub-execution[/]")
    for entry in steps:
        tree = Tree(f"[bold]{escape(entry.step.pipeline_id)}[/]")
        for sub in entry.sub_executions:
            label = f"  [dim]{escape(sub.label)}[/]" if sub.label else ""
            node = tree.add(
                f"{escape(sub.resource_type)} {escape(sub.resource_id)}  {_status(sub.status)}"
                f"{label}"
            )
            if sub.note:
                node.add(f"[dim]{escape(sub.note)}[/]")
            _add_stages(node, sub.stages)
        console.print(tree)
    for warning in details.sub_execution_warnings:
        console.print(
            f"[yellow]warning[/] {escape(warning.resource_type)} {escape(warning.resource_id)}: "
            f"{escape(redact(warning.message))}",
            soft_wrap=True,
        )
