"""`wfx migrate v1`: the earlier release's runs (VAMS 2.5.x) moved into the execution tables."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from entrypoints.cli import context
from entrypoints.cli.counts import counted

if TYPE_CHECKING:
    from application.ports.migration import V1Items
    from application.use_cases.migrate_v1 import MigrateV1Result
    from entrypoints.container import Container

migrate_app = typer.Typer(
    no_args_is_help=True, help="Move runs recorded by an earlier release into the tables."
)


def _source(container: Container, source_table: str | None, from_file: Path | None) -> V1Items:
    from domain.errors import InvalidInputError

    if source_table and from_file:
        raise InvalidInputError("--source-table, --from-file: give one, not both")
    if from_file is not None:
        from adapters.v1_items import JsonFileV1Items

        return JsonFileV1Items(from_file)
    if not source_table and container.config.store() != "dynamodb":
        raise InvalidInputError(
            "--from-file: required on SQLite (there is no earlier table to read); export the "
            "table's items as JSON, or name a DynamoDB table with --source-table"
        )
    from adapters.dynamodb.v1_items import DynamoDbV1Items
    from adapters.tables import ResourceKeys

    name = source_table or container.tables().get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS_V1)
    return DynamoDbV1Items(container.dynamodb_client(), name)


@migrate_app.command("v1")
def migrate_v1(
    source_table: Annotated[
        str | None,
        typer.Option(
            "--source-table",
            metavar="NAME",
            help="The earlier DynamoDB table (default: WFX_TABLE_WORKFLOW_EXECUTIONS_V1 or "
            "WorkflowExecutionsStorageTable).",
        ),
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option(
            "--from-file",
            metavar="ITEMS.json",
            help="The table's items as JSON: a list (plain or DynamoDB-typed) or a Scan answer.",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Write nothing; say what would happen.")
    ] = False,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            "--checkpoint",
            metavar="FILE",
            help="Resume after the item named in FILE; record each item done there.",
        ),
    ] = None,
    offline: Annotated[
        bool,
        typer.Option("--offline", help="Do not ask Step Functions about open runs."),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Write each item of the earlier table as a run, as VAMS 2.6's upgrade does: its main row,
    input row, one step, the step's input file, and the run's and the step's configuration rows.
    Idempotent; open runs are reconciled with Step Functions."""
    from application.use_cases.migrate_v1 import MigrateV1Command

    container = context.container()
    source = _source(container, source_table, from_file)
    overrides: dict[str, object] = {"source": source}
    if checkpoint is not None:
        from adapters.migration_checkpoint import FileMigrationCheckpoint

        overrides["checkpoint"] = FileMigrationCheckpoint(checkpoint)
    if offline:
        from adapters.aws.legacy_executions import UnreachableLegacyExecutions

        overrides["step_functions"] = UnreachableLegacyExecutions()
    migration = container.migrate_v1(**overrides)
    from entrypoints.cli.interrupts import saying_what_ctrl_c_left

    resumes = f" (it resumes after the last item {checkpoint} records)" if checkpoint else ""
    with saying_what_ctrl_c_left(
        lambda: (
            "nothing was written (a dry run)"
            if dry_run
            else "the items migrated before it are stored, the rest not; run the command again to "
            f"finish: items already migrated are left as they are{resumes}"
        )
    ):
        if checkpoint is None:
            result = migration.execute(MigrateV1Command(dry_run=dry_run))
        else:
            with context.writing("--checkpoint", checkpoint):
                result = migration.execute(MigrateV1Command(dry_run=dry_run))
    if json_output:
        from entrypoints.cli.render import dump_json
        from entrypoints.migration_responses import MigrationReportResponse

        context.echo(dump_json(MigrationReportResponse.of(result).dump()))
        return
    _print(result)


def _print(result: MigrateV1Result) -> None:
    from domain.migration import MigrationOutcome

    if result.resumed_after:
        context.echo(
            f"resumed after {result.resumed_after} "
            f"({counted(result.before_checkpoint, 'item')} before)"
        )
    total = sum(result.counts.values())
    context.echo(
        f"{counted(total, 'item')} read{' (dry run: nothing written)' if result.dry_run else ''}:"
    )
    for outcome, count in result.counts.items():
        if count:
            context.echo(f"  {outcome.value}: {count}")
    reported = [item for item in result.items if item.outcome is not MigrationOutcome.MIGRATED]
    reported = [i for i in reported if i.outcome is not MigrationOutcome.ALREADY_MIGRATED]
    for item in reported:
        context.echo(f"  {item.item_key}: {item.outcome.value}: {item.detail or item.status}")


@migrate_app.command("items")
def migrate_items(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Write nothing; count what would be rewritten.")
    ] = False,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify", help="Check that every item is in the current shapes (exit 1 if not)."
        ),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Rewrite the items an earlier wfx wrote in VAMS 2.6's shapes (run, step, input and
    configuration rows). Only items in an earlier shape are written, each guarded against a
    writer changing it meanwhile: run it again to resume after an interruption. SQLite files are
    upgraded when first opened (a copy of the file is kept beside it); on SQLite this checks."""
    from application.use_cases.migrate_items import MigrateItemsCommand
    from domain.errors import InvalidInputError

    if dry_run and verify:
        raise InvalidInputError("--dry-run, --verify: give one, not both")
    from entrypoints.cli.interrupts import saying_what_ctrl_c_left

    command = MigrateItemsCommand(dry_run=dry_run, verify=verify)
    with saying_what_ctrl_c_left(
        lambda: (
            "nothing was written"
            if dry_run or verify
            else "the items rewritten before it are stored, the rest not; run the command again "
            "to finish (only items still in an earlier shape are written)"
        )
    ):
        result = context.container().migrate_items().execute(command)
    if json_output:
        from entrypoints.cli.render import dump_json

        context.echo(dump_json(result.model_dump(mode="json") | {"complete": result.complete}))
    else:
        verb = "to rewrite" if dry_run or verify else "rewritten"
        for table in result.tables:
            conflicts = (
                f", {table.conflicts} changed meanwhile (run again)" if table.conflicts else ""
            )
            context.echo(
                f"{table.table}: {counted(table.read, 'item')} read, "
                f"{table.rewritten} {verb}{conflicts}"
            )
        if verify:
            context.echo(
                "every item is in the current shapes" if result.complete else "not complete"
            )
    if not result.complete and not dry_run:
        raise typer.Exit(1)
