"""What every cost writer shares: the run an entry belongs to, the attempt it is charged to,
and the price a rate card gives a unit a report left unpriced."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from application.ports.executions import ExecutionStore
from domain.attempts import TaskExecution
from domain.costs import (
    DURATION_UNIT,
    CostBasis,
    CostKind,
    CostLedgerEntry,
    CostSource,
    RateCard,
    priced,
    validated_entry,
)
from domain.derived import aware
from domain.errors import InvalidInputError, PipelineExecutionNotFoundError
from domain.execution import LaunchRecords, WorkflowExecution


@dataclass(frozen=True)
class RunCostContext:
    """What a run's entries carry for the summaries: its workflow, group and assets."""

    workflow_execution_id: str
    workflow_database_id: str
    workflow_id: str
    execution_group_id: str | None
    asset_keys: tuple[str, ...]


def run_cost_context(
    store: ExecutionStore, workflow_execution_id: str, execution: WorkflowExecution | None = None
) -> RunCostContext:
    """ExecutionNotFoundError when the run has no main row. `execution`: its main row, when the
    caller has it (the workflow and group never change): then only the assets are read."""
    if execution is None:
        execution = store.get_execution(workflow_execution_id)
    read_assets, written = store.run_assets(workflow_execution_id)
    read = sorted(f"{a.database_id}:{a.asset_id}" for a in read_assets)
    keys = _asset_keys(read, f"{written.database_id}:{written.asset_id}" if written else None)
    return RunCostContext(
        workflow_execution_id=workflow_execution_id,
        workflow_database_id=execution.workflow_database_id,
        workflow_id=execution.workflow_id,
        execution_group_id=execution.execution_group_id,
        asset_keys=keys,
    )


def launch_cost_context(records: LaunchRecords) -> RunCostContext:
    """The cost context of a run as its launch writes it: what run_cost_context would read back."""
    execution, configuration = records.execution, records.configuration
    read = sorted(f"{row.database_id}:{row.asset_id}" for row in records.inputs)
    written = None
    if configuration.output_database_id and configuration.output_asset_id:
        written = f"{configuration.output_database_id}:{configuration.output_asset_id}"
    return RunCostContext(
        workflow_execution_id=execution.workflow_execution_id,
        workflow_database_id=execution.workflow_database_id,
        workflow_id=execution.workflow_id,
        execution_group_id=execution.execution_group_id,
        asset_keys=_asset_keys(read, written),
    )


def _asset_keys(read: list[str], written: str | None) -> tuple[str, ...]:
    """The assets read (sorted: the order a store lists them in is its own), then the one
    written, each once."""
    return tuple(dict.fromkeys([*read, *([written] if written else [])]))


def charged_attempt(
    store: ExecutionStore,
    workflow_execution_id: str,
    pipeline_execution_id: str,
    attempt: int | None,
) -> int:
    """The attempt a cost is charged to: the one named, or the step's latest. Refused when the
    step is not one of the run's, or has no such attempt."""
    try:
        step = store.get_step(pipeline_execution_id)
    except PipelineExecutionNotFoundError:
        step = None
    if step is None or step.workflow_execution_id != workflow_execution_id:
        raise PipelineExecutionNotFoundError(pipeline_execution_id, workflow_execution_id)
    numbers = [a.attempt for a in store.list_attempts([pipeline_execution_id])]
    if attempt is None:
        if not numbers:
            raise InvalidInputError(
                f"step: {pipeline_execution_id} has not started, so no attempt to charge"
            )
        return max(numbers)
    if attempt not in numbers:
        raise InvalidInputError(
            f"attempt: step {pipeline_execution_id} has no attempt {attempt} "
            f"(it has {', '.join(map(str, numbers)) or 'none'})"
        )
    return attempt


@dataclass(frozen=True)
class Usage:
    """A quantity of a unit, priced by the reporter or left to the rate card."""

    quantity: Decimal
    unit: str
    unit_price: Decimal | None = None
    currency: str | None = None
    amount: Decimal | None = None  # a bill's own total, when it gives one
    basis: CostBasis = CostBasis.ESTIMATE
    kind: CostKind = CostKind.USAGE


def build_entry(
    context: RunCostContext,
    pipeline_execution_id: str,
    attempt: int,
    usage: Usage,
    rates: RateCard,
    *,
    entry_id: str,
    source: CostSource,
    at: datetime,
    supersedes: str | None = None,
) -> CostLedgerEntry:
    """The entry, priced: the reporter's price wins; else the rate card's for the unit; else
    unpriced (its quantity still counts)."""
    values = asdict(usage)  # its fields by name, as _entry_fields takes them
    fields = _entry_fields(context, pipeline_execution_id, attempt, rates, entry_id, at, **values)
    return validated_entry(**fields, source=source, supersedes=supersedes)


def duration_entry(
    context: RunCostContext,
    pipeline_execution_id: str,
    attempt: int,
    seconds: Decimal,
    rates: RateCard,
    *,
    entry_id: str,
    at: datetime,
) -> CostLedgerEntry:
    """The runner's own entry of how long an attempt ran, priced by the rate card, built
    without validation (domain.derived.written_record): its id and unit are ours and fit their
    patterns, its seconds come from `seconds_between` (finite, never negative), a rate card's
    price was validated as it was read (and always has a currency), the run's ids and assets
    are the valid run's; the attempt number and the moment are checked here, the rule across
    fields by the entry itself."""
    if attempt < 1:
        raise ValueError(f"attempt: {attempt} is below 1")
    # its usage's values given as they are: a frozen Usage costs a third of the entry
    fields = _entry_fields(
        context,
        pipeline_execution_id,
        attempt,
        rates,
        entry_id,
        aware(at, "recordedAt"),
        quantity=seconds,
        unit=DURATION_UNIT,
        kind=CostKind.DURATION,
    )
    return CostLedgerEntry(**fields, source=CostSource.RUNNER)


def _entry_fields(
    context: RunCostContext,
    pipeline_execution_id: str,
    attempt: int,
    rates: RateCard,
    entry_id: str,
    at: datetime,
    *,
    quantity: Decimal,
    unit: str,
    unit_price: Decimal | None = None,
    currency: str | None = None,
    amount: Decimal | None = None,
    basis: CostBasis = CostBasis.ESTIMATE,
    kind: CostKind = CostKind.USAGE,
) -> dict[str, Any]:
    """An entry's fields, a Usage's values priced (see build_entry)."""
    if unit_price is None and amount is None:
        rate = rates.price_of(unit)
        if rate is not None:
            unit_price, currency = rate.unit_price, currency or rate.currency
    if amount is None:
        amount = priced(quantity, unit_price)
    if amount is not None and currency is None:
        raise InvalidInputError(f"currency: {unit} is priced, so name its currency")
    return {
        "entry_id": entry_id,
        "workflow_execution_id": context.workflow_execution_id,
        "pipeline_execution_id": pipeline_execution_id,
        "attempt": attempt,
        "workflow_database_id": context.workflow_database_id,
        "workflow_id": context.workflow_id,
        "execution_group_id": context.execution_group_id,
        "asset_keys": context.asset_keys,
        "kind": kind,
        "quantity": quantity,
        "unit": unit,
        "unit_price": unit_price,
        "currency": currency,
        "amount": amount,
        "basis": basis,
        "recorded_at": at,
    }


def attempt_seconds(attempt: TaskExecution) -> Decimal | None:
    """How long a closed attempt ran, to the microsecond; None while it runs."""
    if attempt.stop_date is None:
        return None
    return seconds_between(attempt.start_date, attempt.stop_date)


_MICROSECOND = timedelta(microseconds=1)  # made once: a timedelta costs more than the division


def seconds_between(start: datetime, stop: datetime) -> Decimal:
    """From `start` to `stop`, to the microsecond, never negative, in its shortest form."""
    microseconds = (stop - start) // _MICROSECOND
    if microseconds < 0 or microseconds % 1_000_000 == 0:
        # whole seconds from the integer: normalize() would write 10 seconds as 1E+1
        return Decimal(max(0, microseconds) // 1_000_000)
    return Decimal(microseconds).scaleb(-6).normalize()
