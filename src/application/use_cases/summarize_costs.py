"""SummarizeCosts: totals per currency, estimate and actual apart, of one execution, workflow,
group, asset or of everything, optionally per day; superseded entries left out."""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import BaseModel, ConfigDict, model_validator

from application.authorization import AccessControl
from application.ports.costs import CostLedger, CostScope
from application.ports.executions import AssetDirection, ExecutionQueries, ExecutionRef
from domain.authorization import Action, Subject, is_administrator
from domain.costs import CostSummary, CostTally, superseded_ids
from domain.errors import ExecutionNotFoundError, InvalidInputError

ASSET_PAGE = 100
# A key is read as a partition key, which DynamoDB caps at 2048 bytes: at most 4 bytes a
# character of UTF-8. The HTTP route's own bound, so the CLI takes what it does.
MAX_KEY_CHARACTERS = 512


class SummaryScope(StrEnum):
    EXECUTION = "execution"
    WORKFLOW = "workflow"
    GROUP = "group"
    ASSET = "asset"
    ALL = "all"


class SummarizeCostsQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: SummaryScope = SummaryScope.ALL
    key: str | None = None  # run id, `databaseId:workflowId`, group id, `databaseId:assetId`
    by_day: bool = False
    # Who asks, when the caller is to be authorized (HTTP): an execution is read with tier 2,
    # any other scope counts only the runs the subject may GET. None: a local user's CLI.
    subject: Subject | None = None
    route: str = ""

    @model_validator(mode="after")
    def _a_key_for_a_scope(self) -> Self:
        if (self.scope is SummaryScope.ALL) != (self.key is None):
            raise ValueError(f"{self.scope.value}: names one {self.scope.value}")
        if self.scope in (SummaryScope.WORKFLOW, SummaryScope.ASSET) and self.key is not None:
            database, _, name = self.key.partition(":")
            if not database or not name:
                raise ValueError(f"{self.scope.value}: must be DATABASE_ID/ID, got {self.key!r}")
        return self


class CostSummaryResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: SummaryScope
    key: str | None
    by_day: bool
    summary: CostSummary


class SummarizeCosts:
    """Read the scope's entries (one index or partition query; an asset through the runs that
    read or wrote it) and total them."""

    def __init__(self, ledger: CostLedger, store: ExecutionQueries, access: AccessControl) -> None:
        self._ledger, self._store, self._access = ledger, store, access

    def execute(self, query: SummarizeCostsQuery) -> CostSummaryResult:
        if query.key is not None and len(query.key) > MAX_KEY_CHARACTERS:
            raise InvalidInputError(
                f"{query.scope.value}: must be at most {MAX_KEY_CHARACTERS} characters, "
                f"got {len(query.key)}"
            )
        if query.subject is not None and query.scope is SummaryScope.EXECUTION:
            assert query.key is not None
            self._access.require_execution_access(query.subject, query.key, Action.GET, query.route)
        # the runs a subject may read are known only once the entries named them: each run's
        # totals are kept apart until then, unless the subject reads every run or none
        subject = query.subject
        per_run = False
        if subject is not None and query.scope is not SummaryScope.EXECUTION:
            subject = self._access.subject_with_roles(subject)
            per_run = not is_administrator(subject)
        tally = CostTally(by_day=query.by_day, per_run=per_run)
        no_run_readable = per_run and subject is not None and not subject.roles
        if not no_run_readable:  # no role allows anything: not one entry read
            self._tally(query, tally)
        if query.subject is not None and query.scope is SummaryScope.EXECUTION and not tally.seen:
            # tier 2 lets an administrator through unread: a run that is not there is a 404
            # over HTTP, as every read by id answers, not a summary of nothing
            assert query.key is not None
            if not self._store.access_facts([query.key]):
                raise ExecutionNotFoundError(query.key)
        readable = None
        if subject is not None and per_run:
            readable = self._access.readable_ids(subject, tally.runs(), roles_resolved=True)
        return CostSummaryResult(
            scope=query.scope,
            key=query.key,
            by_day=query.by_day,
            summary=tally.summary(readable),
        )

    def _tally(self, query: SummarizeCostsQuery, tally: CostTally) -> None:
        if query.scope is not SummaryScope.ASSET:
            self._ledger.tally(CostScope(query.scope.value), query.key, tally)
            return
        assert query.key is not None
        for run in self._asset_runs(query.key):
            entries = self._ledger.list_entries(CostScope.EXECUTION, run)
            replaced = superseded_ids(entries)
            for entry in entries:
                tally.add(entry, entry.entry_id in replaced)

    def _asset_runs(self, asset_key: str) -> list[str]:
        """Every run that read the asset or wrote to it (seed 000's two indexes), each once."""
        runs: dict[str, None] = {}
        for side in AssetDirection:
            cursor: ExecutionRef | None = None
            while True:
                refs = self._store.asset_execution_refs(asset_key, side, cursor, ASSET_PAGE)
                runs.update((ref.workflow_execution_id, None) for ref in refs)
                if len(refs) < ASSET_PAGE:
                    break
                cursor = refs[-1]
        return list(runs)
