"""ImportCosts: load a billing export (CSV) into the ledger, every row checked first, so a bad
line leaves the ledger as it was."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from application.cost_entries import RunCostContext, Usage, build_entry, charged_attempt
from application.cost_entries import run_cost_context as read_run_context
from application.ports.costs import CostLedger, CostScope
from application.ports.executions import ExecutionStore
from application.ports.system import Clock, IdGenerator
from domain.costs import (
    CURRENCY_PATTERN,
    ENTRY_ID_PATTERN,
    UNIT_PATTERN,
    CostBasis,
    CostLedgerEntry,
    CostSource,
    RateCard,
    check_supersedes,
    parse_decimal,
)
from domain.errors import DomainError, InvalidInputError

T = TypeVar("T")

REQUIRED_COLUMNS = ("executionId", "stepId", "quantity", "unit")
OPTIONAL_COLUMNS = ("attempt", "unitPrice", "currency", "amount", "basis", "entryId", "supersedes")
COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
MAX_ROWS = 100_000  # a file is checked whole in memory before anything is written
MAX_FILE_BYTES = 64 * 2**20  # so is its text: 100,000 rows of 670 bytes


class ImportCostsCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str  # the CSV file, header first
    basis: CostBasis = CostBasis.ACTUAL  # a row without a basis: a bill is what was charged


class ImportCostsResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    entries: tuple[CostLedgerEntry, ...]

    @property
    def corrections(self) -> int:
        return sum(1 for entry in self.entries if entry.supersedes is not None)


def _rows(reader: csv.DictReader[str]) -> Iterator[dict[str | Any, str | Any]]:
    try:
        yield from reader
    except csv.Error as error:  # a cell past csv's field limit
        # line_num counts the lines of the rows read whole: the bad row starts on the next one
        line = reader.line_num + 1
        raise InvalidInputError(f"line {line}: not CSV wfx reads: {error}") from None


def _required_ids(row: Mapping[str, str]) -> tuple[str, str]:
    run_id = _field(row, "executionId")
    step_id = _field(row, "stepId")
    if run_id is None:
        raise _RowError("executionId", "is required")
    if step_id is None:
        raise _RowError("stepId", "is required")
    return run_id, step_id


def _usage(row: Mapping[str, str], default_basis: CostBasis) -> Usage:
    quantity = _decimal("quantity", _field(row, "quantity"), Decimal(0))
    if quantity is None:
        raise _RowError("quantity", "is required")
    unit = _matching(UNIT_PATTERN, "unit", _field(row, "unit"))
    if unit is None:
        raise _RowError("unit", "is required")
    currency = _matching(CURRENCY_PATTERN, "currency", _field(row, "currency"))
    unit_price = _decimal("unitPrice", _field(row, "unitPrice"), Decimal(0))
    amount = _decimal("amount", _field(row, "amount"))
    if (unit_price is not None or amount is not None) and currency is None:
        raise _RowError("currency", "is required with a unitPrice or an amount")
    basis_text = _field(row, "basis")
    if basis_text is not None and basis_text not in {b.value for b in CostBasis}:
        raise _RowError("basis", f"must be estimate or actual, got {basis_text!r}")
    return Usage(
        quantity=quantity,
        unit=unit,
        unit_price=unit_price,
        currency=currency,
        amount=amount,
        basis=CostBasis(basis_text) if basis_text else default_basis,
    )


class _RowError(Exception):
    def __init__(self, column: str, rule: str) -> None:
        super().__init__(f"column {column}: {rule}")


def _field(row: Mapping[str, str], column: str) -> str | None:
    value = (row.get(column) or "").strip()
    return value or None


def _matching(pattern: str, column: str, value: str | None) -> str | None:
    if value is not None and not re.fullmatch(pattern, value):
        raise _RowError(column, f"{value!r} does not match {pattern}")
    return value


def _decimal(column: str, value: str | None, minimum: Decimal | None = None) -> Decimal | None:
    if value is None:
        return None
    try:
        number = parse_decimal(value, column)
    except InvalidInputError as refused:
        raise _RowError(column, str(refused).removeprefix(f"{column}: ")) from None
    if minimum is not None and number < minimum:
        raise _RowError(column, f"must be at least {minimum}, got {value}")
    return number


def _guarded(check: Callable[[], T], column: str) -> T:
    """A store lookup's refusal, named by the column that led to it."""
    try:
        return check()
    except DomainError as refused:
        raise _RowError(column, str(refused)) from None


class ImportCosts:
    """Append one entry per row; a row with `supersedes` is a correction of an entry of the
    same run (one that nothing superseded yet). All rows or none."""

    def __init__(
        self,
        ledger: CostLedger,
        store: ExecutionStore,
        rates: RateCard,
        clock: Clock,
        ids: IdGenerator,
    ) -> None:
        self._ledger, self._store, self._rates = ledger, store, rates
        self._clock, self._ids = clock, ids

    def execute(self, command: ImportCostsCommand) -> ImportCostsResult:
        reader = csv.DictReader(io.StringIO(command.text))
        header = [name.strip() for name in reader.fieldnames or ()]
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        unknown = [c for c in header if c not in COLUMNS]
        if missing or unknown:
            problems = [f"missing {', '.join(missing)}"] if missing else []
            problems += [f"unknown {', '.join(unknown)}"] if unknown else []
            raise InvalidInputError(
                f"line 1: header: {'; '.join(problems)} (columns: {', '.join(COLUMNS)})"
            )
        reader.fieldnames = header
        contexts: dict[str, RunCostContext] = {}
        ledgers: dict[str, list[CostLedgerEntry]] = {}  # per run: stored, then this file's
        entries: list[CostLedgerEntry] = []
        now = self._clock.now()
        for row in _rows(reader):
            line = reader.line_num
            if len(entries) >= MAX_ROWS:
                raise InvalidInputError(f"line {line}: a file holds at most {MAX_ROWS} rows")
            if None in row:  # csv puts a row's extra cells under the key None
                raise InvalidInputError(f"line {line}: more cells than the header's columns")
            try:
                entry = self._entry(row, contexts, ledgers, now, command.basis)
            except _RowError as bad:
                raise InvalidInputError(f"line {line}, {bad}") from None
            ledgers[entry.workflow_execution_id].append(entry)
            entries.append(entry)
        if not entries:
            raise InvalidInputError("line 2: the file has no rows after its header")
        self._ledger.append(entries)
        return ImportCostsResult(entries=tuple(entries))

    def _entry(
        self,
        row: Mapping[str, str],
        contexts: dict[str, RunCostContext],
        ledgers: dict[str, list[CostLedgerEntry]],
        now: datetime,
        default_basis: CostBasis,
    ) -> CostLedgerEntry:
        run_id, step_id = _required_ids(row)
        if run_id not in contexts:
            contexts[run_id] = _guarded(
                lambda: read_run_context(self._store, run_id), "executionId"
            )
            ledgers[run_id] = self._ledger.list_entries(CostScope.EXECUTION, run_id)
        attempt = self._charged_attempt(row, run_id, step_id)
        usage = _usage(row, default_basis)
        entry_id = _matching(ENTRY_ID_PATTERN, "entryId", _field(row, "entryId"))
        known = ledgers[run_id]
        if entry_id is not None and any(e.entry_id == entry_id for e in known):
            raise _RowError("entryId", f"{entry_id} is taken in execution {run_id}")
        supersedes = _matching(ENTRY_ID_PATTERN, "supersedes", _field(row, "supersedes"))
        entry = _guarded(
            lambda: build_entry(
                contexts[run_id],
                step_id,
                attempt,
                usage,
                self._rates,
                entry_id=entry_id or self._ids.new_id(),
                source=CostSource.IMPORT,
                at=now,
                supersedes=supersedes,
            ),
            "currency",
        )
        _guarded(lambda: check_supersedes(entry, known), "supersedes")
        return entry

    def _charged_attempt(self, row: Mapping[str, str], run_id: str, step_id: str) -> int:
        """The attempt the row charges: the one it names (whole), else the step's latest."""
        attempt_text = _field(row, "attempt")
        named = _decimal("attempt", attempt_text, Decimal(1))
        if named is not None and named != named.to_integral():
            raise _RowError("attempt", f"must be a whole number, got {attempt_text}")
        return _guarded(
            lambda: charged_attempt(
                self._store, run_id, step_id, None if named is None else int(named)
            ),
            "stepId" if named is None else "attempt",
        )
