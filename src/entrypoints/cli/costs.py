"""`wfx costs`: report usage, import a billing export, and summarize the cost ledger."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from domain.bounds import MAX_STORED_INTEGER
from entrypoints.cli import context
from entrypoints.cli.counts import counted

if TYPE_CHECKING:
    from decimal import Decimal

    from entrypoints.cost_responses import CostSummaryResponse
    from entrypoints.responses import Response

costs_app = typer.Typer(
    no_args_is_help=True,
    help="The cost ledger: report usage, import a billing export (CSV), summarize.",
)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")]


def _print_json(response: Response) -> None:
    from entrypoints.cli.render import dump_json

    context.echo(dump_json(response.dump()))


def _decimal(text: str | None, option: str) -> Decimal | None:
    from domain.costs import parse_decimal

    return None if text is None else parse_decimal(text, option)


# the report's fields, by the option a user gives each
_REPORT_OPTIONS = {
    "quantity": "--quantity",
    "unit": "--unit",
    "unitPrice": "--unit-price",
    "currency": "--currency",
    "pipeline_execution_id": "--step",
    "attempt": "--attempt",
}


@costs_app.command("report")
def costs_report(
    execution_id: Annotated[str, typer.Argument(metavar="RUN_ID")],
    step: Annotated[
        str, typer.Option("--step", metavar="ID", help="The step (pipeline execution).")
    ],
    quantity: Annotated[str, typer.Option("--quantity", metavar="Q", help="A decimal number.")],
    unit: Annotated[
        str, typer.Option("--unit", metavar="U", help="seconds, lambda-GB-seconds, ...")
    ],
    unit_price: Annotated[
        str | None,
        typer.Option("--unit-price", metavar="P", help="Default: the rate card's price."),
    ] = None,
    currency: Annotated[str | None, typer.Option("--currency", metavar="C")] = None,
    attempt: Annotated[
        int | None,
        typer.Option(
            "--attempt", min=1, max=MAX_STORED_INTEGER, help="Default: the step's latest."
        ),
    ] = None,
    actual: Annotated[
        bool, typer.Option("--actual", help="What was charged, not an estimate.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Append a usage entry for one attempt of a step (priced by the rate card when no price
    is given)."""
    from application.use_cases.record_cost import RecordCostCommand, ReportedUsage
    from domain.costs import CostBasis
    from domain.errors import NotFoundError, PipelineExecutionNotFoundError
    from entrypoints.cli.errors import named_as_given
    from entrypoints.cost_responses import CostEntriesResponse

    with named_as_given(_REPORT_OPTIONS):
        usage = ReportedUsage.model_validate(
            {
                "quantity": _decimal(quantity, "--quantity"),
                "unit": unit,
                "unitPrice": _decimal(unit_price, "--unit-price"),
                "currency": currency,
                "basis": CostBasis.ACTUAL if actual else CostBasis.ESTIMATE,
            }
        )
    container = context.container()
    run_id = context.run_id(container, execution_id)
    with named_as_given(_REPORT_OPTIONS):
        command = RecordCostCommand(
            workflow_execution_id=run_id,
            pipeline_execution_id=step,
            attempt=attempt,
            usages=(usage,),
        )
        try:
            entries = container.record_cost().execute(command)
        except PipelineExecutionNotFoundError as error:
            # `executions show` names steps by pipelineId, which a newcomer tries first
            raise NotFoundError(
                f"{error} (--step takes a step's pipelineExecutionId: "
                f"`wfx executions show {run_id} --json` lists them under pipelines)"
            ) from error
    if json_output:
        _print_json(CostEntriesResponse.of(entries))
        return
    for entry in entries:
        price = f"{entry.amount} {entry.currency}" if entry.amount is not None else "unpriced"
        context.echo(
            f"{entry.entry_id}: {entry.quantity} {entry.unit} on attempt {entry.attempt} "
            f"({entry.basis.value}, {price})"
        )


@costs_app.command("import")
def costs_import(
    file: Annotated[Path, typer.Argument(metavar="FILE.csv", exists=True, dir_okay=False)],
    json_output: JsonFlag = False,
) -> None:
    """Load a billing export: one entry per row, a row with `supersedes` correcting an entry.
    Columns: executionId, stepId, quantity, unit (required); attempt, unitPrice, currency,
    amount, basis (default actual), entryId, supersedes. A bad row: nothing of the file goes in."""
    from application.use_cases.import_costs import MAX_FILE_BYTES, ImportCostsCommand
    from domain.errors import InvalidInputError
    from entrypoints.cost_responses import CostEntriesResponse

    with file.open("rb") as stream:
        # read as a pipe is (`<(...)`), but bounded: /dev/zero or a runaway writer never ends
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InvalidInputError(
            f"FILE: {file} holds more than {MAX_FILE_BYTES // 2**20} MiB, which a file "
            "checked whole before anything is written may not; split it"
        )
    try:
        text = data.decode("utf-8-sig")  # a spreadsheet's export starts with a BOM
    except UnicodeDecodeError as error:
        raise InvalidInputError(f"FILE: {file} is not UTF-8: {error.reason}") from None
    result = context.container().import_costs().execute(ImportCostsCommand(text=text))
    if json_output:
        _print_json(CostEntriesResponse.of(result.entries))
        return
    context.echo(
        f"{counted(len(result.entries), 'entry', 'entries')} imported "
        f"({counted(result.corrections, 'correction')})"
    )


@costs_app.command("summary")
def costs_summary(
    execution: Annotated[str | None, typer.Option("--execution", metavar="ID")] = None,
    workflow: Annotated[str | None, typer.Option("--workflow", metavar="DB/WF")] = None,
    group: Annotated[str | None, typer.Option("--group", metavar="G")] = None,
    asset: Annotated[str | None, typer.Option("--asset", metavar="DB/ASSET")] = None,
    by: Annotated[str | None, typer.Option("--by", metavar="day", help="One row per day.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Totals per currency, estimate and actual apart, superseded entries left out: of one
    execution, workflow, group or asset, or of everything."""
    from application.use_cases.summarize_costs import SummarizeCostsQuery, SummaryScope
    from domain.errors import InvalidInputError
    from entrypoints.cost_responses import CostSummaryResponse
    from entrypoints.cost_scope import NAMED_SCOPES, summary_scope

    if by not in (None, "day"):
        raise InvalidInputError(f"--by: must be day, got {by!r}")
    scope, key = summary_scope(execution, workflow, group, asset, option_prefix="--")
    container = context.container()
    if scope is SummaryScope.EXECUTION and key is not None:
        key = context.run_id(container, key)
    query = SummarizeCostsQuery(scope=scope, key=key, by_day=by == "day")
    from entrypoints.cli.errors import named_as_given

    with named_as_given({s.value: f"--{s.value}" for s in NAMED_SCOPES}):
        response = CostSummaryResponse.of(container.summarize_costs().execute(query))
    if json_output:
        _print_json(response)
        return
    _render(response)


def _render(summary: CostSummaryResponse) -> None:
    scope = summary.scope if summary.key is None else f"{summary.scope} {summary.key}"
    context.echo(
        f"costs of {scope}: {counted(summary.entries, 'entry', 'entries')} "
        f"({summary.superseded} superseded)"
    )
    for row in summary.rows:
        if row.day is not None:
            context.echo(f"{row.day.isoformat()}")
        for total in row.amounts:
            context.echo(
                f"  {total.amount} {total.currency} {total.basis} "
                f"({counted(total.entries, 'entry', 'entries')})"
            )
        for quantity in row.quantities:
            context.echo(
                f"  {quantity.quantity} {quantity.unit} {quantity.basis} "
                f"({counted(quantity.entries, 'entry', 'entries')})"
            )
        if not row.amounts and not row.quantities:
            context.echo("  nothing recorded")
