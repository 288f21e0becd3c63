"""MigrateV1: the earlier table's runs (VAMS 2.5.x) written as run-time rows (seed 000)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from application.ports.migration import LegacyExecutions, MigratedRuns, MigrationCheckpoint, V1Items
from application.ports.orchestration import OrchestratorReadError
from application.ports.system import Clock
from application.ports.workflows import WorkflowDefinitions
from domain.errors import InvalidInputError
from domain.migration import (
    MigrationOutcome,
    Reconciled,
    V1Execution,
    item_key_of,
    migrated_run,
    parse_v1_item,
    recorded_start,
)


class MigrateV1Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    dry_run: bool = False


class MigratedItem(BaseModel):
    """One item's outcome; `detail` says why it was skipped or how it was reconciled."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_key: str
    workflow_execution_id: str | None = None
    outcome: MigrationOutcome
    status: str | None = None
    detail: str | None = None


class MigrateV1Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    dry_run: bool
    resumed_after: str | None = None
    before_checkpoint: int = 0
    counts: dict[MigrationOutcome, int]
    items: tuple[MigratedItem, ...]


class MigrateV1:
    """Read every V1 item, write what it becomes once, and say what happened to each."""

    def __init__(
        self,
        source: V1Items,
        runs: MigratedRuns,
        step_functions: LegacyExecutions,
        checkpoint: MigrationCheckpoint | None = None,
        *,
        clock: Clock,
        definitions: WorkflowDefinitions | None = None,
    ) -> None:
        self._source, self._runs, self._sfn = source, runs, step_functions
        self._checkpoint = checkpoint
        self._clock, self._definitions = clock, definitions
        self._created: dict[tuple[str, str], datetime | None] = {}
        self._unreachable: str | None = None
        self._seen: dict[str, str] = {}  # execution id -> the first item key that had it

    def execute(self, command: MigrateV1Command) -> MigrateV1Result:
        resume_after = self._checkpoint.last_done() if self._checkpoint else None
        items: list[MigratedItem] = []
        before = 0
        found = resume_after is None
        for raw in self._source.items():
            if not found:
                before += 1
                found = item_key_of(raw) == resume_after
                continue
            done = self._one(raw, command.dry_run)
            items.append(done)
            if self._checkpoint is not None and not command.dry_run:
                self._checkpoint.record(done.item_key)
        if not found:
            # resuming after an item the source does not have would skip every item
            raise InvalidInputError(f"--checkpoint: item {resume_after!r} is not in the source")
        counts = Counter(item.outcome for item in items)
        return MigrateV1Result(
            dry_run=command.dry_run,
            resumed_after=resume_after,
            before_checkpoint=before,
            counts={outcome: counts.get(outcome, 0) for outcome in MigrationOutcome},
            items=tuple(items),
        )

    def _one(self, raw: Mapping[str, Any], dry_run: bool) -> MigratedItem:
        try:
            v1 = parse_v1_item(raw)
        except InvalidInputError as refused:
            return MigratedItem(
                item_key=item_key_of(raw), outcome=MigrationOutcome.SKIPPED, detail=str(refused)
            )
        first = self._seen.setdefault(v1.execution_id, v1.item_key)
        if first != v1.item_key:
            # one run per execution id: the first item's asset is the run's input
            twice = f"executionId: also the id of item {first}, migrated from that item"
            return self._item(v1, MigrationOutcome.SKIPPED, twice)
        if self._runs.has_run(v1.execution_id):
            return self._item(v1, MigrationOutcome.ALREADY_MIGRATED, None)
        outcome, reconciled, detail = self._reconcile(v1)
        workflow_created = None
        if recorded_start(v1, reconciled) is None:
            workflow_created = self._workflow_created(v1.workflow_database_id, v1.workflow_id)
        run = migrated_run(
            v1, reconciled, migrated_at=self._clock.now(), workflow_created=workflow_created
        )
        if not dry_run and not self._runs.add_migrated(run):
            # written meanwhile, by another migration running at the same time
            return self._item(v1, MigrationOutcome.ALREADY_MIGRATED, "written meanwhile")
        return self._item(v1, outcome, detail, run.execution.status.value)

    def _workflow_created(self, database_id: str, workflow_id: str) -> datetime | None:
        """When the run's workflow was created, what VAMS dates a run with no start from; asked
        once per workflow (None: not known here)."""
        key = (database_id, workflow_id)
        if key not in self._created:
            found = (
                self._definitions.find_definition(database_id, workflow_id)
                if self._definitions is not None
                else None
            )
            self._created[key] = found.created_at if found is not None else None
        return self._created[key]

    def _reconcile(self, v1: V1Execution) -> tuple[MigrationOutcome, Reconciled | None, str | None]:
        if not v1.needs_reconcile:
            return MigrationOutcome.MIGRATED, None, None
        if not v1.execution_arn:
            return MigrationOutcome.UNREACHABLE, None, "execution_arn: absent, not reconciled"
        if self._unreachable is not None:
            return MigrationOutcome.UNREACHABLE, None, self._unreachable
        try:
            found = self._sfn.describe(v1.execution_arn)
        except OrchestratorReadError as error:
            # one refusal is enough: the rest of the run would wait on the same silence
            self._unreachable = f"Step Functions not reachable: {error}"
            return MigrationOutcome.UNREACHABLE, None, self._unreachable
        if found is None:
            return (
                MigrationOutcome.UNKNOWN_EXECUTION,
                None,
                f"Step Functions has no execution {v1.execution_arn}",
            )
        reconciled = Reconciled(
            status=found.status,
            start_date=found.start_date,
            stop_date=found.stop_date,
            error=found.error,
            cause=found.cause,
        )
        return MigrationOutcome.RECONCILED, reconciled, f"Step Functions says {found.status}"

    @staticmethod
    def _item(
        v1: V1Execution, outcome: MigrationOutcome, detail: str | None, status: str | None = None
    ) -> MigratedItem:
        return MigratedItem(
            item_key=v1.item_key,
            workflow_execution_id=v1.execution_id,
            outcome=outcome,
            status=status,
            detail=detail,
        )
