"""The port of the cost ledger."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from domain.costs import CostLedgerEntry, CostTally


class CostScope(StrEnum):
    """Which entries a cost read takes: one run's, a workflow's, a group's, or all of them."""

    EXECUTION = "execution"
    WORKFLOW = "workflow"
    GROUP = "group"
    ALL = "all"


class CostLedger(Protocol):
    """Append-only cost entries (seed 003 COST_LEDGER_ENTRY); an entry is never rewritten."""

    def create_tables(self) -> None: ...

    def append(self, entries: Sequence[CostLedgerEntry]) -> None:
        """Add the entries all at once (one transaction; on DynamoDB one TransactWriteItems per
        100, the service's cap). CostEntryExistsError, nothing of that transaction written, when
        an entry's key (run, step, attempt, entry id) is taken; ExecutionNotFoundError, the
        same, when the main row of a run an entry names is gone (a run deleted meanwhile keeps
        no entry: the transaction holds only while the main row is there, and a delete takes
        the run's entries after its main row)."""
        ...

    def list_entries(self, scope: CostScope, key: str | None) -> list[CostLedgerEntry]:
        """Every entry of the scope - `key` is the run id, `databaseId:workflowId` or the group
        id; None for ALL - one index or partition query (paged to the end), never a scan. A
        run's entries come by entry key, the others oldest first by recordedAt."""
        ...

    def tally(self, scope: CostScope, key: str | None, tally: CostTally) -> None:
        """Feed every entry of the scope (as `list_entries` reads it) to `tally`, each with
        whether a correction of the scope replaces it, without holding the scope's entries: a
        summary of a million entries costs what one of a thousand does."""
        ...
