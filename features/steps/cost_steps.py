"""The cost ledger (seed 003): durations per attempt, reported usage, billing corrections."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pytest_bdd import parsers, then, when

from application.ports.costs import CostLedger, CostScope
from application.use_cases.import_costs import ImportCostsCommand
from application.use_cases.record_cost import RecordCostCommand, ReportedUsage
from application.use_cases.summarize_costs import SummarizeCostsQuery, SummaryScope
from domain.costs import CostKind, CostLedgerEntry
from domain.errors import InvalidInputError
from entrypoints.container import Container
from features.steps.reading import details_of, step_named
from features.steps.world import World

HEADER = "executionId,stepId,quantity,unit,unitPrice,currency,supersedes\n"


def _entries(container: Container, world: World) -> list[CostLedgerEntry]:
    ledger: CostLedger = container.cost_ledger()
    return ledger.list_entries(CostScope.EXECUTION, world.execution_id)


def _step_id(container: Container, world: World, name: str) -> str:
    step = step_named(details_of(container, world.execution_id), name)
    return step.step.pipeline_execution_id


@then(parsers.parse('the execution\'s duration entries are "{expected}"'))
def _(container: Container, world: World, expected: str) -> None:
    details = details_of(container, world.execution_id)
    names = {s.step.pipeline_execution_id: s.step.pipeline_id for s in details.steps}
    durations = [e for e in _entries(container, world) if e.kind is CostKind.DURATION]
    shown = sorted(f"{names[e.pipeline_execution_id]} {e.attempt}" for e in durations)
    assert shown == sorted(expected.split(", "))
    assert all(e.unit == "seconds" and e.quantity > 0 for e in durations)


@when(parsers.parse('the step "{name}" reports {quantity:d} "{unit}" at the rate card\'s price'))
def _(container: Container, world: World, name: str, quantity: int, unit: str) -> None:
    container.record_cost().execute(
        RecordCostCommand(
            workflow_execution_id=world.execution_id,
            pipeline_execution_id=_step_id(container, world, name),
            usages=(ReportedUsage(quantity=Decimal(quantity), unit=unit),),
        )
    )


def _reported(container: Container, world: World) -> CostLedgerEntry:
    (usage,) = [e for e in _entries(container, world) if e.kind is CostKind.USAGE]
    return usage


@when(
    parsers.parse(
        'a billing export bills that usage as {quantity:d} "{unit}" at "{price}" {currency}'
    )
)
def _(
    container: Container, world: World, quantity: int, unit: str, price: str, currency: str
) -> None:
    usage = _reported(container, world)
    line = f"{world.execution_id},{usage.pipeline_execution_id},{quantity},{unit},{price},"
    text = HEADER + line + f"{currency},{usage.entry_id}\n"
    container.import_costs().execute(ImportCostsCommand(text=text))


@pytest.fixture
def refused_export() -> list[InvalidInputError]:
    return []


@when(parsers.parse('a billing export has a good line and a line whose quantity is "{bad}"'))
def _(
    container: Container, world: World, bad: str, refused_export: list[InvalidInputError]
) -> None:
    usage = _reported(container, world)
    run, step = world.execution_id, usage.pipeline_execution_id
    text = HEADER + f"{run},{step},1,seconds,,,\n{run},{step},{bad},seconds,,,\n"
    try:
        container.import_costs().execute(ImportCostsCommand(text=text))
    except InvalidInputError as refusal:
        refused_export.append(refusal)


@then(parsers.parse('the export is refused naming "{text}"'))
def _(refused_export: list[InvalidInputError], text: str) -> None:
    assert len(refused_export) == 1 and text in str(refused_export[0])


def _summary(container: Container, world: World) -> tuple[str, int]:
    query = SummarizeCostsQuery(scope=SummaryScope.EXECUTION, key=world.execution_id)
    summary = container.summarize_costs().execute(query).summary
    (row,) = summary.rows
    shown = ", ".join(f"{t.currency} {t.basis.value} {t.amount.normalize():f}" for t in row.amounts)
    return shown, summary.superseded


@then(parsers.parse('the execution\'s costs are "{expected}"'))
def _(container: Container, world: World, expected: str) -> None:
    assert _summary(container, world)[0] == expected


@then(parsers.parse("{count:d} entry of the execution is superseded"))
def _(container: Container, world: World, count: int) -> None:
    assert _summary(container, world)[1] == count
