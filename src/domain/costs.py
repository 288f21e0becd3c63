"""The cost ledger (seed 003 COST_LEDGER_ENTRY): append-only usage and cost per task attempt.

An entry is never rewritten. A correction is a new entry naming, in `supersedes`, the entry it
replaces; a summary counts only the entries nothing supersedes. Money is Decimal, never float,
and amounts of different currencies are never added together.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_validator,
)

from domain.derived import written_record
from domain.errors import ConflictError, InvalidInputError, NotFoundError

DURATION_UNIT = "seconds"
# Units and currencies are short words (`lambda-GB-seconds`, `USD`): they become summary keys.
UNIT_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$"
CURRENCY_PATTERN = r"^[A-Z]{3}$"
ENTRY_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"  # no ':' - it joins the entry key
DEFAULT_CURRENCY = "USD"

# DynamoDB's numbers: what a cost number given to wfx may be. A product or a sum of such numbers
# stays far inside Decimal's exponents, so pricing and summaries never overflow.
_MOST_DIGITS = 38
_SMALLEST = Decimal("1E-130")
_TOO_LARGE = Decimal("1E+126")
COST_NUMBER_RULE = "at most 38 significant digits, 0 or from 1E-130 to under 1E+126"


def cost_number_problem(value: Decimal) -> str | None:
    """Why `value` cannot be a cost number given to wfx, or None."""
    if not value.is_finite():
        return "must be a finite number"
    if value == 0:
        return None
    digits = "".join(map(str, value.as_tuple().digits)).strip("0")
    if len(digits) > _MOST_DIGITS or not _SMALLEST <= value.copy_abs() < _TOO_LARGE:
        return f"must have {COST_NUMBER_RULE}"
    return None


class CostKind(StrEnum):
    DURATION = "duration"  # measured by the runner: how long an attempt ran
    USAGE = "usage"  # reported by the pipeline or a bill: GB-seconds, vCPU-seconds, ...


class CostBasis(StrEnum):
    ESTIMATE = "estimate"
    ACTUAL = "actual"


class CostSource(StrEnum):
    RUNNER = "runner"
    REGISTRATION = "registration"
    REPORT = "report"
    IMPORT = "import"


class CostEntryNotFoundError(NotFoundError):
    def __init__(self, entry_id: str, workflow_execution_id: str) -> None:
        super().__init__(f"cost entry {entry_id} not found in execution {workflow_execution_id}")


class CostEntryExistsError(ConflictError):
    """An entry id is taken: the ledger is append-only, an entry is never written twice."""

    @classmethod
    def of(cls, entry: CostLedgerEntry) -> CostEntryExistsError:
        return cls(
            f"cost entry {entry.entry_id} of execution {entry.workflow_execution_id} "
            f"(step {entry.pipeline_execution_id}, attempt {entry.attempt}) exists"
        )


class CostEntrySupersededError(ConflictError):
    """A correction names an entry that another correction replaced already."""


@written_record
class CostLedgerEntry:
    """One line of the ledger: a quantity of a unit used by one attempt of one step, priced or
    not (an unpriced entry keeps its quantity; only priced ones add to amounts).

    A written record (domain.derived.written_record): the runner's own entries are built from
    valid values without validation; values that come in (a report, an import, a row read
    back) are validated by `validated_entry`, through the annotations below. The rule across
    fields holds for every entry, however built."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    entry_id: Annotated[str, Field(pattern=ENTRY_ID_PATTERN)]
    workflow_execution_id: Annotated[str, Field(min_length=1)]
    pipeline_execution_id: Annotated[str, Field(min_length=1)]
    attempt: Annotated[int, Field(ge=1)]
    workflow_database_id: str
    workflow_id: str
    execution_group_id: str | None = None
    asset_keys: tuple[str, ...] = ()  # `databaseId:assetId` of the run's inputs and its output
    kind: CostKind
    quantity: Annotated[Decimal, Field(ge=0)]
    unit: Annotated[str, Field(pattern=UNIT_PATTERN)]
    unit_price: Annotated[Decimal | None, Field(ge=0)] = None
    currency: Annotated[str | None, Field(pattern=CURRENCY_PATTERN)] = None
    amount: Decimal | None = None
    basis: CostBasis
    source: CostSource
    recorded_at: AwareDatetime
    supersedes: Annotated[str | None, Field(pattern=ENTRY_ID_PATTERN)] = None

    @field_validator("quantity", "unit_price", "amount")
    @classmethod
    def _finite(cls, value: Decimal | None) -> Decimal | None:
        if value is not None and not value.is_finite():
            raise ValueError("must be a finite number")
        return value

    def __post_init__(self) -> None:
        # A bill's amount may be rounded, so it is not checked against quantity x unitPrice;
        # entries priced here get amount = quantity x unitPrice (see `priced`).
        if self.currency is None and (self.unit_price is not None or self.amount is not None):
            raise ValueError("currency: a unitPrice or an amount needs its currency")
        if self.currency is not None and self.amount is None:
            raise ValueError("amount: an entry with a currency needs its amount")
        if self.supersedes == self.entry_id:
            raise ValueError("supersedes: an entry cannot replace itself")

    @property
    def workflow_key(self) -> str:
        return f"{self.workflow_database_id}:{self.workflow_id}"

    @property
    def recorded_day(self) -> date:
        return self.recorded_at.date()


def validated_entry(**fields: Any) -> CostLedgerEntry:
    """An entry of values that come in (a report, an import, a row read back): pydantic's
    ValidationError naming the field and the rule when one breaks it."""
    return _as_validated_entry().validate_python(fields)


@functools.cache
def _as_validated_entry() -> TypeAdapter[CostLedgerEntry]:
    """The validation of an entry by its annotations (built on first use)."""
    return TypeAdapter(CostLedgerEntry)


def priced(quantity: Decimal, price: Decimal | None) -> Decimal | None:
    return None if price is None else quantity * price


# -- the rate card ------------------------------------------------------------------------------


class Rate(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    unit_price: Decimal = Field(ge=0, alias="unitPrice")
    currency: str = Field(default=DEFAULT_CURRENCY, pattern=CURRENCY_PATTERN)

    @field_validator("unit_price")
    @classmethod
    def _in_range(cls, value: Decimal) -> Decimal:
        problem = cost_number_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class RateCard(BaseModel):
    """Prices of known units, used when a report gives no unit price of its own."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    rates: Mapping[str, Rate] = Field(default_factory=dict)

    def price_of(self, unit: str) -> Rate | None:
        return self.rates.get(unit)

    def merged(self, overrides: Mapping[str, Rate]) -> RateCard:
        return RateCard(rates={**self.rates, **overrides})


def _per_second(mb: int) -> Decimal:
    # Lambda (x86, us-east-1) charges $0.0000166667 per GB-second; per second at a memory size:
    return (Decimal("0.0000166667") * mb / 1024).quantize(Decimal("0.0000000001"))


LAMBDA_MEMORY_SIZES_MB = (128, 256, 512, 1024, 2048, 4096, 10240)
# Public on-demand prices, us-east-1, as of 2026: a laptop run prices nothing by default (a
# local second has no known price; set `seconds` in a rate card to price duration entries).
DEFAULT_RATES: Mapping[str, Rate] = {
    "lambda-GB-seconds": Rate(unit_price=Decimal("0.0000166667")),
    **{f"lambda-{mb}MB-seconds": Rate(unit_price=_per_second(mb)) for mb in LAMBDA_MEMORY_SIZES_MB},
    "lambda-requests": Rate(unit_price=Decimal("0.0000002")),
    # AWS Batch on Fargate: $0.04048 per vCPU-hour, $0.004445 per GB-hour
    "batch-vCPU-seconds": Rate(unit_price=Decimal("0.0000112444")),
    "batch-GB-seconds": Rate(unit_price=Decimal("0.0000012347")),
}
DEFAULT_RATE_CARD = RateCard(rates=DEFAULT_RATES)


# -- summaries ----------------------------------------------------------------------------------


def superseded_ids(entries: Iterable[CostLedgerEntry]) -> frozenset[str]:
    """The entries the given corrections replace. A correction always belongs to the run of the
    entry it replaces, so any read of whole runs sees both."""
    return frozenset(e.supersedes for e in entries if e.supersedes is not None)


class AmountTotal(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    currency: str
    basis: CostBasis
    amount: Decimal
    entries: int


class QuantityTotal(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    unit: str
    basis: CostBasis
    quantity: Decimal
    entries: int


class CostSummaryRow(BaseModel):
    """The totals of one day (or of everything, `day` None): amounts per currency and basis,
    quantities per unit and basis."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    day: date | None = None
    amounts: tuple[AmountTotal, ...] = ()
    quantities: tuple[QuantityTotal, ...] = ()


class CostSummary(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    rows: tuple[CostSummaryRow, ...]
    entries: int  # counted: entries nothing supersedes
    superseded: int  # left out: entries a correction replaced


def summarize(entries: Iterable[CostLedgerEntry], by_day: bool = False) -> CostSummary:
    """Totals of the entries no correction replaced; with `by_day`, one row per day recorded."""
    entries = list(entries)
    replaced = superseded_ids(entries)
    tally = CostTally(by_day)
    for entry in entries:
        tally.add(entry, entry.entry_id in replaced)
    return tally.summary()


_Sum = list[Any]  # [total: Decimal, entries: int], added to in place


class _Sums:
    """Amounts per (day, currency, basis) and quantities per (day, unit, basis)."""

    __slots__ = ("amounts", "counted", "quantities", "superseded")

    def __init__(self) -> None:
        self.amounts: dict[tuple[date | None, str, CostBasis], _Sum] = {}
        self.quantities: dict[tuple[date | None, str, CostBasis], _Sum] = {}
        self.counted = self.superseded = 0

    def add(self, day: date | None, entry: CostLedgerEntry) -> None:
        self.counted += 1
        if entry.amount is not None and entry.currency is not None:
            _plus(self.amounts, (day, entry.currency, entry.basis), entry.amount, 1)
        _plus(self.quantities, (day, entry.unit, entry.basis), entry.quantity, 1)

    def merge(self, other: _Sums) -> None:
        self.counted += other.counted
        self.superseded += other.superseded
        for key, (total, count) in other.amounts.items():
            _plus(self.amounts, key, total, count)
        for key, (total, count) in other.quantities.items():
            _plus(self.quantities, key, total, count)


def _plus(sums: dict[Any, _Sum], key: Any, total: Decimal, count: int) -> None:
    found = sums.get(key)
    if found is None:
        sums[key] = [total, count]
    else:
        found[0] += total
        found[1] += count


def _by_key(item: tuple[tuple[date | None, str, CostBasis], _Sum]) -> tuple[date, str, str]:
    (day, name, basis), _ = item
    return (day or date.min, name, basis)


class CostTally:
    """A summary's running totals, fed one entry at a time (told whether a correction replaced
    it): what it holds grows with the days, currencies and units met, never with the entries.
    `per_run` keeps each run's totals apart, for a reader that may count only some runs."""

    def __init__(self, by_day: bool = False, per_run: bool = False) -> None:
        self._by_day, self._per_run = by_day, per_run
        self._all = _Sums()
        self._runs: dict[str, _Sums] = {}
        self.seen = 0  # entries fed, superseded or not

    def add(self, entry: CostLedgerEntry, superseded: bool) -> None:
        self.seen += 1
        sums = self._all
        if self._per_run:
            sums = self._runs.get(entry.workflow_execution_id) or self._runs.setdefault(
                entry.workflow_execution_id, _Sums()
            )
        if superseded:
            sums.superseded += 1
        else:
            sums.add(entry.recorded_day if self._by_day else None, entry)

    def runs(self) -> list[str]:
        """The runs met, when kept apart."""
        return list(self._runs)

    def summary(self, runs: Collection[str] | None = None) -> CostSummary:
        """The totals, of the given runs only when they were kept apart."""
        sums = self._all
        if self._per_run:
            sums = _Sums()
            for run, of_run in self._runs.items():
                if runs is None or run in runs:
                    sums.merge(of_run)
        amounts: dict[date | None, list[AmountTotal]] = {} if self._by_day else {None: []}
        quantities: dict[date | None, list[QuantityTotal]] = {}
        for (day, currency, basis), (total, count) in sorted(sums.amounts.items(), key=_by_key):
            amounts.setdefault(day, []).append(
                AmountTotal(currency=currency, basis=basis, amount=total, entries=count)
            )
        for (day, unit, basis), (total, count) in sorted(sums.quantities.items(), key=_by_key):
            quantities.setdefault(day, []).append(
                QuantityTotal(unit=unit, basis=basis, quantity=total, entries=count)
            )
        rows = tuple(
            CostSummaryRow(
                day=day,
                amounts=tuple(amounts.get(day, ())),
                quantities=tuple(quantities.get(day, ())),
            )
            for day in sorted(amounts.keys() | quantities.keys(), key=lambda d: d or date.min)
        )
        return CostSummary(rows=rows, entries=sums.counted, superseded=sums.superseded)


def check_supersedes(entry: CostLedgerEntry, run_entries: Iterable[CostLedgerEntry]) -> None:
    """A correction replaces an entry of its own run that nothing replaced yet."""
    if entry.supersedes is None:
        return
    run_entries = list(run_entries)
    if not any(e.entry_id == entry.supersedes for e in run_entries):
        raise CostEntryNotFoundError(entry.supersedes, entry.workflow_execution_id)
    replaced_by = next((e for e in run_entries if e.supersedes == entry.supersedes), None)
    if replaced_by is not None:
        raise CostEntrySupersededError(
            f"cost entry {entry.supersedes}: superseded already by {replaced_by.entry_id}; "
            "correct the correction instead"
        )


def parse_decimal(text: str, field: str) -> Decimal:
    """A decimal from user input (never through float); InvalidInputError naming the field."""
    try:
        value = Decimal(text.strip())
    except ArithmeticError:
        raise InvalidInputError(f"{field}: must be a decimal number, got {text!r}") from None
    if not value.is_finite():
        raise InvalidInputError(f"{field}: must be a finite number, got {text!r}")
    problem = cost_number_problem(value)
    if problem is not None:
        raise InvalidInputError(f"{field}: {problem}, got {text.strip()!r}")
    return value
