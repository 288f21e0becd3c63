"""RecordCost / RecordAttemptDurations: usage a step reports, and how long its attempts ran."""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections import OrderedDict
from datetime import datetime
from decimal import Decimal
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from application.cost_entries import (
    RunCostContext,
    Usage,
    attempt_seconds,
    build_entry,
    charged_attempt,
    duration_entry,
    launch_cost_context,
    run_cost_context,
    seconds_between,
)
from application.ports.costs import CostLedger, CostScope
from application.ports.executions import ExecutionStore
from application.ports.system import Clock, IdGenerator
from domain.costs import (
    CURRENCY_PATTERN,
    UNIT_PATTERN,
    CostBasis,
    CostEntryExistsError,
    CostLedgerEntry,
    CostSource,
    RateCard,
    cost_number_problem,
)
from domain.execution import LaunchRecords, WorkflowExecution
from domain.run import StepMove


class ReportedUsage(BaseModel):
    """One usage line, as a pipeline reports it (registration `detail.costs[]`) or a user
    (`wfx costs report`). Field names are the event's camelCase ones."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    quantity: Decimal = Field(ge=0, allow_inf_nan=False)
    unit: str = Field(pattern=UNIT_PATTERN)
    unit_price: Decimal | None = Field(default=None, ge=0, allow_inf_nan=False, alias="unitPrice")
    currency: str | None = Field(default=None, pattern=CURRENCY_PATTERN)
    basis: CostBasis = CostBasis.ESTIMATE

    @field_validator("quantity", "unit_price")
    @classmethod
    def _in_range(cls, value: Decimal | None) -> Decimal | None:
        problem = None if value is None else cost_number_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _a_price_in_a_currency(self) -> Self:
        if self.unit_price is not None and self.currency is None:
            raise ValueError("currency: a unitPrice needs its currency")
        return self

    def usage(self) -> Usage:
        return Usage(
            quantity=self.quantity,
            unit=self.unit,
            unit_price=self.unit_price,
            currency=self.currency,
            basis=self.basis,
        )


class RecordCostCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    workflow_execution_id: str = Field(min_length=1)
    pipeline_execution_id: str = Field(min_length=1)
    attempt: int | None = Field(default=None, ge=1)  # None: the step's latest attempt
    usages: tuple[ReportedUsage, ...] = Field(min_length=1)
    source: CostSource = CostSource.REPORT


class RecordCost:
    """Append the reported usage of one step's attempt, priced by the reporter or the rate card,
    all entries at once."""

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

    def execute(self, command: RecordCostCommand) -> tuple[CostLedgerEntry, ...]:
        run_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        context = run_cost_context(self._store, run_id)
        attempt = charged_attempt(self._store, run_id, step_id, command.attempt)
        now = self._clock.now()
        entries = tuple(
            build_entry(
                context,
                step_id,
                attempt,
                reported.usage(),
                self._rates,
                entry_id=self._ids.new_id(),
                source=command.source,
                at=now,
            )
            for reported in command.usages
        )
        self._ledger.append(entries)
        return entries


class RecordAttemptDurationsCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    workflow_execution_id: str
    pipeline_execution_id: str


# uuid5's SHA-1 with the namespace already in it: copied per id, not hashed again
_URL_NAMESPACE_SHA1 = hashlib.sha1(uuid.NAMESPACE_URL.bytes, usedforsecurity=False)


def duration_entry_id(workflow_execution_id: str, pipeline_execution_id: str, attempt: int) -> str:
    """One id per attempt, the same every time: a callback delivered twice records once.
    `duration-` and uuid5(NAMESPACE_URL, the ids) as text, made without a UUID object (its
    checks cost more than the hash; one id per attempt closed)."""
    digest = _URL_NAMESPACE_SHA1.copy()
    digest.update(f"{workflow_execution_id}:{pipeline_execution_id}:{attempt}".encode())
    value = bytearray(digest.digest()[:16])
    value[6] = (value[6] & 0x0F) | 0x50  # version 5
    value[8] = (value[8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = value.hex()
    return f"duration-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class RecordAttemptDurations:
    """Append a `duration` estimate (seconds, priced by the rate card's `seconds` when it has
    one) for each closed attempt of a step that has none yet; idempotent.

    One instance serves a process: it keeps each run's cost context (workflow, group, assets),
    which the launch fixes once and for all, so a run's later steps don't read it again, and the
    entries it has appended itself, so a step's later attempts (a retry, a redrive) append only
    their own with no read of the ledger. The runner's threads share it, so what it keeps is
    changed only under a lock."""

    _KEPT_CONTEXTS = 256

    def __init__(
        self, ledger: CostLedger, store: ExecutionStore, rates: RateCard, clock: Clock
    ) -> None:
        self._ledger, self._store, self._rates, self._clock = ledger, store, rates, clock
        self._contexts: OrderedDict[str, RunCostContext] = OrderedDict()
        self._appended: OrderedDict[str, set[str]] = OrderedDict()  # entry ids, by run
        self._contexts_lock = threading.Lock()

    def execute(self, command: RecordAttemptDurationsCommand) -> tuple[CostLedgerEntry, ...]:
        run_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        closed = [
            (attempt.attempt, seconds)
            for attempt in self._store.list_attempts([step_id])
            if attempt.workflow_execution_id == run_id
            and (seconds := attempt_seconds(attempt)) is not None
        ]
        with self._contexts_lock:
            appended = set(self._appended.get(run_id, ()))
            if run_id in self._contexts:
                self._contexts.move_to_end(run_id)  # a run still stepping stays kept
        closed = [
            (number, seconds)
            for number, seconds in closed
            if duration_entry_id(run_id, step_id, number) not in appended
        ]
        if not closed:
            return ()
        try:
            # the usual case, a step's one attempt just closed: the conditional append is the
            # check, with no read of what the run recorded already
            return self._append(run_id, step_id, closed)
        except CostEntryExistsError:
            pass
        recorded = {e.entry_id for e in self._ledger.list_entries(CostScope.EXECUTION, run_id)}
        missing = [
            (number, seconds)
            for number, seconds in closed
            if duration_entry_id(run_id, step_id, number) not in recorded
        ]
        if not missing:
            return ()
        try:
            return self._append(run_id, step_id, missing)
        except CostEntryExistsError:
            return ()  # another delivery of the same callback recorded them meanwhile

    def _append(
        self, run_id: str, step_id: str, attempts: list[tuple[int, Decimal]]
    ) -> tuple[CostLedgerEntry, ...]:
        now = self._clock.now()
        entries = tuple(
            self._entry(run_id, step_id, number, seconds, now) for number, seconds in attempts
        )
        self._ledger.append(entries)
        self.appended(entries)
        return entries

    def entry_for(
        self,
        run_id: str,
        step_id: str,
        attempt: int,
        started: datetime,
        stopped: datetime,
        execution: WorkflowExecution | None = None,
    ) -> CostLedgerEntry | None:
        """The duration entry of an attempt closing now, for a caller that writes it with the
        close (then tells `appended`); None when this process appended it already.
        `execution`: the run's main row as the caller read it (a context not kept yet is then
        read without it)."""
        entry_id = duration_entry_id(run_id, step_id, attempt)
        with self._contexts_lock:  # once for both: what was appended, and the context kept
            if entry_id in self._appended.get(run_id, ()):
                return None
            context = self._contexts.get(run_id)
            if context is not None:
                self._contexts.move_to_end(run_id)  # a run still stepping stays kept
        seconds = seconds_between(started, stopped)
        if context is None:
            context = self._context(run_id, execution)
        return duration_entry(
            context, step_id, attempt, seconds, self._rates, entry_id=entry_id, at=stopped
        )

    def carried_by(
        self, move: StepMove, started: datetime, execution: WorkflowExecution | None = None
    ) -> StepMove:
        """`move`, which closes an attempt begun at `started`, carrying that attempt's duration
        entry to write with it; unchanged when this process appended the entry already."""
        if move.close_attempt is None or move.stop_date is None:
            return move
        entry = self.entry_for(
            move.workflow_execution_id,
            move.pipeline_execution_id,
            move.close_attempt,
            started,
            move.stop_date,
            execution,
        )
        return move if entry is None else move.carrying((entry,))

    def appended(self, entries: tuple[CostLedgerEntry, ...]) -> None:
        """Entries now in the ledger: a later delivery of the same callback skips them."""
        if not entries:
            return
        run_id = entries[0].workflow_execution_id
        with self._contexts_lock:
            appended = self._appended.get(run_id)
            if appended is None:  # the run's first (setdefault would make a set every call)
                appended = self._appended[run_id] = set()
            for entry in entries:
                appended.add(entry.entry_id)
            self._appended.move_to_end(run_id)
            while len(self._appended) > self._KEPT_CONTEXTS:
                self._appended.popitem(last=False)

    def _entry(
        self, run_id: str, step_id: str, attempt: int, seconds: Decimal, at: datetime
    ) -> CostLedgerEntry:
        return duration_entry(
            self._context(run_id),
            step_id,
            attempt,
            seconds,
            self._rates,
            entry_id=duration_entry_id(run_id, step_id, attempt),
            at=at,
        )

    def launched(self, records: LaunchRecords) -> None:
        """A run this process has just launched: its context is known without a read, and it
        has no entries yet (an id used again after a delete starts afresh)."""
        self._keep(launch_cost_context(records))
        with self._contexts_lock:
            self._appended.pop(records.execution.workflow_execution_id, None)

    def _keep(self, context: RunCostContext) -> None:
        with self._contexts_lock:
            self._contexts[context.workflow_execution_id] = context
            while len(self._contexts) > self._KEPT_CONTEXTS:
                self._contexts.popitem(last=False)  # the oldest run first

    def _context(self, run_id: str, execution: WorkflowExecution | None = None) -> RunCostContext:
        with self._contexts_lock:
            context = self._contexts.get(run_id)
            if context is not None:
                self._contexts.move_to_end(run_id)  # a run still stepping stays kept
                return context
        # read outside the lock: a store read must not hold up every other run's steps; two
        # threads reading the same run's context at once get equal values, either may be kept
        context = run_cost_context(self._store, run_id, execution)
        self._keep(context)
        return context
