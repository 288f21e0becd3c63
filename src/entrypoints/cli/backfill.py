"""`wfx maintenance backfill-list-partition`: list again the runs a write path left unlisted."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from entrypoints.cli import context
from entrypoints.cli.counts import counted


def backfill_list_partition(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count the rows to stamp; write nothing.")
    ] = False,
    page_size: Annotated[
        int, typer.Option("--page-size", min=1, max=1000, help="Main rows read per page.")
    ] = 100,
    json_output: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Stamp `allListPartition` on every main row without it (a run without it is missing
    from the newest-first list of all runs). Safe to run again or after an interruption:
    stamped rows are skipped."""
    from application.use_cases.backfill_list_partition import BackfillListPartitionCommand

    command = BackfillListPartitionCommand(dry_run=dry_run, page_size=page_size)
    result = context.container().backfill_list_partition().execute(command)
    if json_output:
        from entrypoints.cli.render import dump_json

        document = {
            "scanned": result.scanned,
            "stamped": result.stamped,
            "alreadyStamped": result.already_stamped,
            "missing": result.missing,
            "raced": result.raced,
            "dryRun": result.dry_run,
        }
        sys.stdout.write(dump_json(document) + "\n")
        return
    if result.dry_run:
        done = f"{result.missing} to stamp (dry run: nothing written)"
    else:
        done = f"{result.stamped} stamped"
        if result.raced:
            done += f", {result.raced} changed by another writer meanwhile (left as they were)"
    sys.stdout.write(
        f"{counted(result.scanned, 'main row')} scanned: {done}, "
        f"{result.already_stamped} already stamped.\n"
    )
