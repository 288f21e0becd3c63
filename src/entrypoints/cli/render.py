"""What the CLI prints: record-shaped JSON (the seed's camelCase names) or readable tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain.execution import ExecutionDetails, StepDetails
from domain.redaction import redact, redact_json
from domain.workflow import StepDefinition, WorkflowDefinition, WorkflowVersion
from entrypoints.cli.terminal import escape
from entrypoints.durations import Span, step_span, table_span

if TYPE_CHECKING:
    from application.use_cases.show_workflow import WorkflowView

STATUS_STYLES = {
    "SUCCEEDED": "green",
    "FAILED": "red",
    "ABORTED": "yellow",
    "TIMED_OUT": "red",
    "RUNNING": "cyan",
    "NEW": "dim",
    "PENDING_REDRIVE": "magenta",
}


def dump_json(value: Any) -> str:
    """Every --json answer: redacted here whatever the rows held (a row written before the
    policy was, or by another writer), keys and structure kept."""
    return json.dumps(redact_json(value), indent=2, sort_keys=False, default=str)


def when(moment: datetime | None) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S") if moment else "-"


def error_summary(error: str, limit: int = 100) -> str:
    """A step's error in one line: its first (a command's exit code and the start of what it
    said) and, when it said more, its last (where a traceback names the error)."""
    lines = [line.strip() for line in redact(error).strip().splitlines() if line.strip()]
    if not lines:
        return ""
    first, last = lines[0], lines[-1]
    summary = first if len(lines) == 1 else f"{first} … {last}"
    return summary if len(summary) <= limit else summary[: limit - 1] + "…"


def duration(span: Span) -> str:
    return span.said() or "-"


def styled(status: str) -> str:
    return f"[{STATUS_STYLES.get(status, 'white')}]{status}[/]"


# Below this many columns the list keeps what identifies a run: its id, workflow, status, start.
WIDE_LIST_COLUMNS = 116
_ID_WIDTH = 32  # a VAMS execution id's length
_CELL_PADDING = 2  # a space each side of every cell
_START_WIDTH = len("12-01 18:21")  # a narrow list's start: month, day and minute
_WORKFLOW_LEAST = 8  # a narrower terminal drops the start rather than cut the workflow shorter


def executions_table(
    rows: Sequence[dict[str, Any]], width: int = WIDE_LIST_COLUMNS, wide: bool = False
) -> Any:
    """The list document's rows (VAMS's, as `--json` prints them) as a table that fits `width`
    columns; `wide` (or a terminal wide enough) adds the version, duration, trigger and group."""
    from rich.table import Table

    everything = wide or width >= WIDE_LIST_COLUMNS
    # The id is what the user copies into `wfx executions show`, the status what they look
    # for: neither is ever cut or wrapped; on a narrow terminal the start goes before they would.
    id_width = max((len(e["workflowExecutionId"]) for e in rows), default=_ID_WIDTH)
    status_width = max((len(e["executionStatus"]) for e in rows), default=len("STATUS"))
    fixed = id_width + status_width + 3 * _CELL_PADDING  # the id, the status, the workflow's pad
    with_start = everything or width >= fixed + _START_WIDTH + _CELL_PADDING + _WORKFLOW_LEAST
    if with_start:
        fixed += _START_WIDTH + _CELL_PADDING
    table = Table(box=None, header_style="bold")
    table.add_column("EXECUTION ID", no_wrap=True, min_width=id_width)
    table.add_column(
        "WORKFLOW",
        overflow="ellipsis",
        no_wrap=not everything,
        max_width=None if everything else max(1, width - fixed),
    )
    if everything:
        table.add_column("VER")
    table.add_column("STATUS", no_wrap=True, min_width=status_width)
    if with_start:
        table.add_column("STARTED", no_wrap=True)
    if everything:
        for column in ("DURATION", "TRIGGER", "GROUP"):
            table.add_column(column)
    status_column = 3 if everything else 2
    for e in rows:
        row = _list_cells(e, everything, with_start)
        row[status_column] = styled(row[status_column])
        if everything:
            row[-1] = escape(row[-1])  # the group: a Database User's own text
        table.add_row(*row)
    return table


_LIST_HEADERS = (
    "EXECUTION ID",
    "WORKFLOW",
    "VER",
    "STATUS",
    "STARTED",
    "DURATION",
    "TRIGGER",
    "GROUP",
)


def plain_executions_list(rows: Sequence[dict[str, Any]], next_token: str | None) -> str | None:
    """What `executions_table` and the next page's line print off a terminal (every column, no
    colour), written without rich; None when rich would show a cell otherwise than as it is."""
    from entrypoints.cli.context import UNWRAPPED_WIDTH
    from entrypoints.cli.plain_table import plain_table, shown_as_it_is

    if rows:
        cells = [_list_cells(e, everything=True, with_start=True) for e in rows]
        table = plain_table(_LIST_HEADERS, cells, UNWRAPPED_WIDTH)
    else:
        table = "No executions.\n"
    if table is None or not next_token:
        return table
    return (
        f"{table}\nNext page: --starting-token {next_token}\n"
        if shown_as_it_is(next_token)
        else None
    )


def _list_cells(e: dict[str, Any], everything: bool, with_start: bool) -> list[str]:
    """A list document's row as the table's cells, as they read (no markup)."""
    row = [e["workflowExecutionId"], f"{e['workflowDatabaseId']}/{e['workflowId']}"]
    if everything:
        row.append(str(e["workflowVersion"]))
    start, stop = _moment(e["executionStartDate"]), _moment(e["executionStopDate"])
    started = when(start)
    row.append(e["executionStatus"])
    # narrow: month, day and minute ("12-01 18:21"), the room the workflow's name needs
    if with_start:
        row.append(started if everything else started[5:16])
    if everything:
        row += [
            duration(table_span(start, stop)),
            e["triggerType"],
            e["executionGroupId"] or "-",
        ]
    return row


def _moment(text: str) -> datetime | None:
    # a document's date, "" when not set
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def steps_table(steps: Sequence[StepDetails]) -> Any:
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    columns = ("#", "PIPELINE", "TYPE", "STATUS", "DURATION", "ATTEMPTS", "OUTPUTS", "ERROR")
    for column in columns:
        table.add_column(column)
    for entry in steps:
        step = entry.step
        table.add_row(
            str(step.step_index + 1),
            step.pipeline_id,
            step.execution_type.value,
            styled(step.status.value),
            duration(
                step_span(
                    step.start_date,
                    step.stop_date,
                    [(a.start_date, a.stop_date) for a in entry.attempts],
                )
            ),
            str(len(entry.attempts)),
            str(len(entry.outputs.files)),
            escape(error_summary(step.error, 80)) if step.error else "",
        )
    return table


def print_details(details: ExecutionDetails, console: Any) -> None:
    e = details.execution
    console.print(f"[bold]{e.workflow_execution_id}[/]  {styled(e.status.value)}")
    for name, value in _summary_rows(details):
        console.print(f"  [dim]{name:<9}[/] {escape(redact(value))}")
    if e.execution_error:
        _print_error(e.execution_error, console)
    if details.inputs:
        _print_inputs(details, console)
    console.print("\n[bold]Steps[/]")
    console.print(steps_table(details.steps))
    print_attempts(details.steps, console)
    from entrypoints.cli.logs import print_available_logs

    print_available_logs(details.steps, details.log_warnings, console)
    from entrypoints.cli.maintenance import print_stop_outcomes

    print_stop_outcomes(details.steps, console)
    print_approvals(details, console)
    _print_output_files(details, console)
    if details.truncated_collections:
        # seed 000: what was cut is said, with the way to read the rest
        console.print("\n[bold]Truncated[/] (page the rest with `wfx executions metadata`)")
        for cut in details.truncated_collections:
            console.print(
                f"  {escape(cut.collection)}  [dim]{cut.returned} of {cut.total}[/]", soft_wrap=True
            )


def _summary_rows(details: ExecutionDetails) -> list[tuple[str, str]]:
    """The run's fields under its id, by name; a field not set is left out (or shown as -)."""
    e = details.execution
    rows = [
        ("workflow", f"{e.workflow_database_id}/{e.workflow_id} version {e.workflow_version}"),
        (
            "started",
            when(e.execution_start_date) + (" (estimated)" if e.start_date_estimated else ""),
        ),
        ("stopped", when(e.execution_stop_date)),
        ("duration", duration(table_span(e.execution_start_date, e.execution_stop_date))),
        ("trigger", f"{e.trigger_type.value} by {e.triggered_by_user_id}"),
        ("group", e.execution_group_id or "-"),  # user text from here on: printed escaped
    ]
    if e.rerun_of_execution_id:
        rows.append(("rerun of", e.rerun_of_execution_id))
    if e.abort_requested_date is not None:
        # an abort leaves executionError empty (seed 000): why it was aborted is abortCause
        cause = f": {e.abort_cause}" if e.abort_cause else ""
        rows.append(("aborted", f"requested {when(e.abort_requested_date)}{cause}"))
    if e.finishing_date is not None and not e.is_terminal:
        rows.append(
            (
                "finishing",
                f"since {when(e.finishing_date)}: its results are going into its output asset "
                "(it can no longer be aborted)",
            )
        )
    if e.is_being_deleted and e.runner_lease is not None:
        rows.append(
            (
                "deleting",
                f"since {when(e.runner_lease.renewed_date)}: a delete began; if it was cut short, "
                f"wfx executions delete {e.workflow_execution_id} finishes it",
            )
        )
    if e.redrive_status:
        reason = f": {e.redrive_status_reason}" if e.redrive_status_reason else ""
        redriven = f" (redriven {e.redrive_count}x)" if e.redrive_count else ""
        rows.append(("redrive", f"{e.redrive_status}{reason}{redriven}"))
    if e.execution_log_object_key:
        rows.append(("log", f"the row keeps the tail; whole log at {e.execution_log_object_key}"))
    config = details.configuration
    if config is not None:
        target = config.output_asset_key
        rows.append(("output", target.replace(":", "/") if target else "results only"))
    return rows


def _print_error(error: str, console: Any) -> None:
    # All of it: a command's error is its exit code then its stderr tail, the first line
    # says what failed and the last what it said.
    first, *rest = redact(error).strip().splitlines()
    console.print(f"  [dim]{'error':<9}[/] [red]{escape(first)}[/]")
    for line in rest:
        console.print(f"  {'':<9} [red]{escape(line)}[/]")


def _print_inputs(details: ExecutionDetails, console: Any) -> None:
    console.print("\n[bold]Inputs[/]")
    for row in details.inputs:
        version = row.version_id or "(no single version)"
        selected = redact(f"{row.database_id}/{row.asset_id}/{row.input_asset_file_key}")
        console.print(f"  {escape(selected)}  [dim]{escape(version)}[/]")


def _print_output_files(details: ExecutionDetails, console: Any) -> None:
    outputs = [(entry.step.pipeline_id, f) for entry in details.steps for f in entry.outputs.files]
    if outputs:
        console.print("\n[bold]Output files[/]")
        for pipeline_id, f in outputs:
            path = escape(redact(f.relative_file_path))
            console.print(f"  {path}  [dim]{f.size} B  from {pipeline_id}[/]")


def print_approvals(details: ExecutionDetails, console: Any) -> None:
    """The run's gates: who may decide a pending one, who decided the others, when and why."""
    if not details.approvals:
        return
    console.print("\n[bold]Approvals[/]")
    for request in details.approvals:
        head = f"  {escape(request.pipeline_id)} #{request.attempt}  {styled(request.status.value)}"
        if request.is_pending:
            who = ", ".join(request.approvers)
            console.print(
                f"{head}  [dim]{escape(request.approval_id)}[/]  approvers: {escape(who)}"
                f"  until {when(request.expires_at)}"
            )
            continue
        by = f" by {request.decided_by}" if request.decided_by else ""
        why = f": {redact(request.reason)}" if request.reason else ""
        console.print(f"{head}{escape(by)} {when(request.decided_at)}{escape(why)}")


def print_attempts(steps: Sequence[StepDetails], console: Any) -> None:
    """Each attempt of the steps that ran more than once (seed 003: retries and redrives)."""
    rerun = [entry for entry in steps if len(entry.attempts) > 1]
    if not rerun:
        return
    console.print("\n[bold]Attempts[/]")
    for entry in rerun:
        for a in entry.attempts:
            error = escape(error_summary(a.error, 80)) if a.error else ""
            console.print(
                f"  {escape(entry.step.pipeline_id)} #{a.attempt}  {styled(a.status.value)}"
                f"  [dim]{a.trigger.value}[/]  {error}".rstrip()
            )


# -- published workflows (wfx workflows list / show / versions) ---------------------------------


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def workflow_versions_table(versions: Sequence[WorkflowVersion]) -> Any:
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    # DATABASE_ID/WORKFLOW_ID is what `wfx run` and `workflows versions` take: never cut.
    table.add_column("WORKFLOW", no_wrap=True)
    for column in ("VER", "STEPS", "PUBLISHED", "DEPLOYED", "DESCRIPTION"):
        table.add_column(column)
    for v in versions:
        table.add_row(
            escape(f"{v.database_id}/{v.workflow_id}"),
            str(v.version),
            str(len(v.steps)),
            when(v.published_at),
            "yes" if v.state_machine_arn else "-",
            escape(_first_line(redact(v.description))[:60]),
        )
    return table


def workflow_definitions_table(definitions: Sequence[WorkflowDefinition]) -> Any:
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    # DATABASE_ID/WORKFLOW_ID is what `wfx run` and `workflows show` take: never cut.
    table.add_column("WORKFLOW", no_wrap=True)
    for column in ("OWNER", "LATEST", "CREATED", "DESCRIPTION"):
        table.add_column(column)
    for d in definitions:
        table.add_row(
            escape(f"{d.database_id}/{d.workflow_id}"),
            escape(d.owner or "-"),
            str(d.latest_version),
            when(d.created_at),
            escape(_first_line(redact(d.description))[:60]),
        )
    return table


def print_workflow(console: Any, view: WorkflowView) -> None:
    """A workflow's definition, the chosen version's step definitions, then its versions."""
    from rich.table import Table

    d, v = view.definition, view.version
    console.print(f"[bold]{escape(d.database_id)}/{escape(d.workflow_id)}[/]")
    console.print(f"  owner           {escape(d.owner or '-')}")
    console.print(f"  created         {when(d.created_at)}")
    console.print(f"  latest version  {d.latest_version}")
    if d.description:
        console.print(f"  description     {escape(_first_line(redact(d.description)))}")
    console.print(f"\n[bold]Version {v.version}[/]  published {when(v.published_at)}")
    steps = Table(box=None, header_style="bold")
    for column in ("#", "STEP DEFINITION", "PIPELINE", "TYPE", "RUNS"):
        steps.add_column(column)
    for index, step in enumerate(v.steps):
        steps.add_row(
            str(index),
            escape(v.step_definition_id(index)),
            escape(f"{step.pipeline_database_id}/{step.pipeline_id}"),
            step.execution_type.value,
            escape(_step_target(step)),
        )
    console.print(steps)
    console.print("\n[bold]Versions[/]")
    console.print(workflow_versions_table(view.versions.items))
    if view.versions.next_token:
        console.print(
            f"\nMore versions: wfx workflows versions {d.database_id}/{d.workflow_id} "
            f"--starting-token {view.versions.next_token}",
            soft_wrap=True,
        )


def _step_target(step: StepDefinition) -> str:
    """What the step runs, in one short line (the fields its type owns)."""
    if step.command is not None:
        return redact(" ".join(step.command))[:60]
    if step.approval is not None:
        return redact("approvers: " + ", ".join(step.approval.approvers))[:60]
    return redact(step.handler or step.function_name or step.job_definition or "")[:60]
