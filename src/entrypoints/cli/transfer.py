"""`wfx export` and `wfx import`: move runs between two configured stores through one file.

Export reads the store this environment configures (WFX_STORE, its database or endpoint and
table prefix); import writes the one its own environment configures, so a move is two commands
run with two environments. The file format is adapters/archive_file.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from domain.errors import InvalidInputError
from entrypoints.cli import context
from entrypoints.cli.counts import counted

if TYPE_CHECKING:
    from application.ports.migration import ArchivedRun, KeptRun, RejectedRun
    from application.use_cases.import_executions import ImportExecutionsResult


T = TypeVar("T")


def _warn(text: str) -> None:
    print(text, file=sys.stderr)


def parse_since(text: str) -> datetime:
    """`2024-03-01` (midnight UTC) or an ISO-8601 moment; a moment without a zone is UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InvalidInputError(
            f"--since: {text!r} is not a date; write e.g. 2024-03-01 or 2024-03-01T09:30:00Z"
        ) from exc
    try:
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except OverflowError:
        raise InvalidInputError(
            f"--since: {text!r} falls outside the years 1 to 9999 in UTC"
        ) from None


@contextmanager
def _progress(description: str, total: Callable[[], int]) -> Iterator[Any]:
    """A rich progress bar on stderr, drawn only on a terminal (None otherwise); its `total`
    counted only when it is drawn (a read of its own: the file's lines, the store's runs)."""
    from entrypoints.cli.terminal import console as terminal_console

    console = terminal_console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    counted_total = total()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(description, total=counted_total)
        yield lambda done: progress.update(task, completed=done)


def export(
    to: Annotated[Path, typer.Option("--to", metavar="FILE.jsonl", help="The file to write.")],
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="DATE", help="Only runs started then or later."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Write every run of the configured store, with all its rows in every table, its workflow
    version and asset files, and its offloaded bodies, to one JSON Lines file."""
    from adapters.archive_file import write_header, write_run
    from application.use_cases.export_executions import ExportExecutionsCommand
    from entrypoints.cli.interrupts import saying_what_ctrl_c_left

    command = ExportExecutionsCommand(since=parse_since(since) if since else None)
    exported = context.container().export_executions().execute(command)
    # A file is written aside and renamed at the end: a cut-short export never looks like a
    # whole file. A link (/dev/stdout), a pipe or a device is written into: a file renamed
    # into its place would replace it, and what reads it (the shell's redirection) get nothing.
    streamed = to.is_symlink() or (to.exists() and not to.is_file())
    written = to if streamed else to.with_name(to.name + ".partial")
    runs = items = bodies = 0

    def cut_short() -> str:
        # the total where a progress bar counted it; elsewhere the export never reads it
        total = exported.total
        done = f"{counted(runs, 'run')} exported"
        if total is not None:
            done = f"{runs} of {counted(total, 'run')} exported"
        if streamed:
            return f"{done} to {to}, which does not hold the whole export; run the command again"
        return f"{done}; nothing was written to {to}; run the command again"

    with saying_what_ctrl_c_left(cut_short), context.writing("--to", to):
        try:
            with (
                written.open("w", encoding="utf-8") as stream,
                _progress("exporting runs", exported.count) as advance,
            ):
                write_header(stream)
                for run in exported:
                    write_run(stream, run)
                    runs, items = runs + 1, items + len(run.items)
                    bodies += len(run.bodies)
                    if advance:
                        advance(runs)
            if not streamed:
                os.replace(written, to)
        finally:
            if not streamed:
                written.unlink(missing_ok=True)
    # on stderr when the export went to stdout, where it would end the file with a line of
    # no run
    say = _to_stderr if streamed and context.is_stdout(to) else context.echo
    if json_output:
        from entrypoints.cli.render import dump_json

        say(dump_json({"runs": runs, "items": items, "bodies": bodies, "file": str(to)}))
        return
    say(
        f"exported {counted(runs, 'run')}: {counted(items, 'item')}, "
        f"{counted(bodies, 'offloaded body', 'offloaded bodies')} to {to}"
    )


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr)


def _count_lines(path: Path) -> int:
    with path.open("rb") as stream:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: stream.read(2**20), b""))


def _read(path: Path, description: str) -> Iterator[ArchivedRun | RejectedRun]:
    from adapters.archive_file import bounded_lines, read_runs

    with (
        path.open("rb") as stream,  # decoded line by line: a line not UTF-8 rejects its run
        _progress(description, lambda: _count_lines(path)) as advance,
    ):
        yield from read_runs(_numbered(bounded_lines(stream), advance))


def _numbered(lines: Iterable[T], advance: Any) -> Iterable[T]:
    for number, line in enumerate(lines, start=1):
        if advance:
            advance(number)
        yield line


def _conflict(conflict: str | KeptRun) -> str:
    if isinstance(conflict, str):
        return conflict
    return (
        f"{conflict.main_row}: stored otherwise, kept; none of the run's "
        f"{counted(conflict.items, 'item')} written"
    )


def _import_document(result: ImportExecutionsResult, differences: list[str] | None) -> str:
    """The counts as JSON; `differences` only when the import was verified."""
    from entrypoints.cli.render import dump_json

    document: dict[str, Any] = {
        "runs": result.runs,
        "itemsWritten": result.items_written,
        "itemsUnchanged": result.items_unchanged,
        "conflicts": [_conflict(c) for c in result.conflicts],
        "rejected": [
            {"line": r.line, "run": r.workflow_execution_id, "message": r.message}
            for r in result.rejected
        ],
    }
    if differences is not None:
        document["differences"] = differences
    return dump_json(document)


def _say_imported(result: ImportExecutionsResult, verified: bool) -> None:
    if result.items_written == 0 and result.runs:
        context.echo(
            f"imported {counted(result.runs, 'run')}: nothing new written, all "
            f"{counted(result.items_unchanged, 'item')} already stored"
        )
    else:
        context.echo(
            f"imported {counted(result.runs, 'run')}: "
            f"{counted(result.items_written, 'item')} written, "
            f"{result.items_unchanged} already stored"
        )
    if verified:
        context.echo("verified: every item of the file is stored as it is in the file")


def _shown_id(text: str) -> str:
    """A file's run id as an error line can show it: a rejected one may be anything."""
    from domain.control_characters import escape_control_characters

    shown = escape_control_characters(text, keep="")
    return shown if len(shown) <= _SHOWN else f"{shown[:_SHOWN]}... ({len(text)} characters)"


_SHOWN = 100


def import_(
    file: Annotated[Path, typer.Argument(metavar="FILE.jsonl", help="A file of `wfx export`.")],
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Afterwards compare every item of the file with the stored one; "
            "exit non-zero naming each difference.",
        ),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Write the runs of an export file into the configured store. Items already stored are
    never overwritten, so importing again writes nothing new; a run with a bad line is not
    imported at all (the line and the rule are named)."""

    if not file.is_file():
        raise InvalidInputError(f"FILE.jsonl: {str(file)!r} is not a file")
    from application.ports.migration import RejectedRun
    from entrypoints.cli.interrupts import saying_what_ctrl_c_left

    container = context.container()
    handed: list[str] = []  # the runs handed to the import so far, by id
    verifying = False

    def cut_short() -> str:
        if verifying:
            return f"every run of {file} was imported; the verification was not finished"
        if not handed:
            return f"no run of {file} was imported"
        return (
            f"{counted(len(handed) - 1, 'run')} of {file} imported, then run {handed[-1]}, "
            "which may be cut short (a run is listed only once it is whole); the rest were not "
            "imported; run the command again to finish (items already stored are left as they are)"
        )

    def handing(runs: Iterator[ArchivedRun | RejectedRun]) -> Iterator[ArchivedRun | RejectedRun]:
        for run in runs:
            if not isinstance(run, RejectedRun):
                handed.append(run.workflow_execution_id)
            yield run

    differences: list[str] = []
    with saying_what_ctrl_c_left(cut_short):
        result = container.import_executions().execute(handing(_read(file, "importing")))
        if verify:
            verifying = True
            differences = container.verify_executions().execute(_read(file, "verifying"))
    for conflict in result.conflicts:
        _warn(f"warning: {_conflict(conflict)}")
    for rejected in result.rejected:
        _warn(
            f"error: line {rejected.line}: run {_shown_id(rejected.workflow_execution_id)}: "
            f"{rejected.message} (nothing of this run imported)"
        )
    if verify:
        for difference in differences:
            _warn(f"difference: {difference}")
    if json_output:
        context.echo(_import_document(result, differences if verify else None))
    else:
        _say_imported(result, verified=verify and not differences)
    if result.rejected or differences:
        raise typer.Exit(1)
