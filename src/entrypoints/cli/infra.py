"""`wfx infra`: the AWS CloudFormation template of a deployment, and its Lambda package."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from entrypoints.cli import context
from entrypoints.cli.counts import counted

if TYPE_CHECKING:
    from adapters.tables import TableNames
    from entrypoints.settings import TableSettings

infra_app = typer.Typer(
    no_args_is_help=True, help="Deploy wfx to AWS: the CloudFormation template, the Lambda zip."
)
# A source checkout's project folder: src/entrypoints/cli/infra.py -> where pyproject.toml is.
_CHECKOUT = Path(__file__).resolve().parents[3]


@infra_app.command("template")
def infra_template(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
    format: Annotated[
        str, typer.Option("--format", help="yaml or json.", case_sensitive=False)
    ] = "yaml",
    table_prefix: Annotated[
        str | None,
        typer.Option(help="Prefix of every table name (default: WFX_TABLE_PREFIX, else none)."),
    ] = None,
    event_source_prefix: Annotated[
        str | None,
        typer.Option(help="Registration source prefix (default: WFX_EVENT_SOURCE_PREFIX, wfx)."),
    ] = None,
) -> None:
    """Print the CloudFormation template: tables, bucket, functions, HTTP API, rule, roles."""
    from dataclasses import replace

    from adapters.aws.stack.render import render_template
    from adapters.aws.stack.template import deployment_template
    from domain.errors import InvalidInputError
    from domain.registration import check_source_prefix
    from entrypoints.settings import Settings

    chosen = format.lower()
    if chosen not in ("yaml", "json"):
        _fail(f"--format: must be yaml or json, got {format!r}")
    settings = Settings.from_environment()
    tables = settings.tables
    if table_prefix is not None:
        tables = replace(tables, prefix=table_prefix)
    names = tables.names()
    _check_table_names(names, tables, "--table-prefix" if table_prefix is not None else None)
    prefix = event_source_prefix or settings.event_source_prefix
    try:
        # the option's name in the message; WFX_EVENT_SOURCE_PREFIX was checked by the settings
        check_source_prefix(prefix, "--event-source-prefix")
    except InvalidInputError as refused:
        _fail(str(refused))
    try:
        text = render_template(
            deployment_template(names, prefix), "json" if chosen == "json" else "yaml"
        )
    except InvalidInputError as refused:
        _fail(str(refused))
    if output is None:
        sys.stdout.write(text)
    else:
        with context.writing("--output", output):
            output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


@infra_app.command("package")
def infra_package(
    output: Annotated[Path, typer.Option("--output", "-o", help="The zip to write.")] = Path(
        "wfx-lambda.zip"
    ),
    dependencies: Annotated[
        bool,
        typer.Option(
            "--dependencies/--no-dependencies",
            help="With the runtime dependencies for Lambda (python 3.11, x86_64), or wfx alone.",
        ),
    ] = True,
    project: Annotated[
        Path, typer.Option(help="The wfx project folder (its pyproject.toml) to package.")
    ] = _CHECKOUT,
) -> None:
    """Build the Lambda deployment zip with pip (wfx and its runtime dependencies)."""
    from adapters.aws.stack.lambda_package import (
        PackageBuildError,
        PackageTooLargeError,
        build_package,
    )

    if not (project / "pyproject.toml").is_file():
        _fail(f"--project: {project} has no pyproject.toml; pass the wfx source folder")
    started = time.monotonic()
    try:
        with context.writing("--output", output):
            built = build_package(project, output, with_dependencies=dependencies)
    except PackageBuildError as failed:
        _fail(f"pip could not build the package: {failed}")
    except PackageTooLargeError as refused:
        _fail(str(refused))
    seconds = time.monotonic() - started
    megabytes = built.size_bytes / 1_000_000
    summary = (
        f"wrote {built.path}: {counted(built.files, 'file')}, {megabytes:.1f} MB in {seconds:.0f} s"
    )
    typer.echo(summary, err=context.is_stdout(output))  # not into a zip sent to stdout


def _check_table_names(names: TableNames, tables: TableSettings, prefix_option: str | None) -> None:
    """Every table the stack creates, named as DynamoDB takes it: a stack with one it refuses
    would fail at deploy time. The message names where the name came from."""
    from adapters.dynamodb.schema import table_name_problem
    from adapters.tables import (
        CREATED_TABLES,
        TABLE_OVERRIDE_PREFIX,
        TABLE_PREFIX_VARIABLE,
        VAMS_TABLES,
    )

    for spec in CREATED_TABLES:
        name = names.get_table_name(spec.key)
        problem = table_name_problem(name)
        if problem is None:
            continue
        if spec.key in tables.overrides:
            source = f"{TABLE_OVERRIDE_PREFIX}{spec.key.value}"
        elif spec.key in tables.vams_variables:
            source = " or ".join(VAMS_TABLES[spec.key].variables)
        else:
            source = prefix_option or TABLE_PREFIX_VARIABLE
        _fail(f"{source}: makes the {spec.default_name} table's name, which {problem}")


def _fail(message: str) -> NoReturn:
    typer.echo(f"wfx: {message}", err=True)
    raise typer.Exit(2)
