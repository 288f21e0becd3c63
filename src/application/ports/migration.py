"""The ports of moving stored runs: VAMS and wfx 0.1 items migrated or upgraded, backfills, the
run archive."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from application.ports.orchestration import OrchestratorExecution
    from domain.migration import MigratedRun, TableItemShapes


class V1Items(Protocol):
    """The earlier table's items (VAMS 2.5.x), as plain attribute maps, always in the same
    order (the migration's checkpoint names the last one done)."""

    def items(self) -> Iterable[Mapping[str, Any]]: ...


class MigratedRuns(Protocol):
    """Where the V1 migration writes a run: its main row, input rows and PipelineExecutionInputFiles
    rows as one unit, the main row last (so a run whose main row exists is wholly written)."""

    def has_run(self, workflow_execution_id: str) -> bool: ...

    def add_migrated(self, run: MigratedRun) -> bool:
        """Write the run's rows; False, writing nothing, when its main row exists already."""
        ...


class ItemShapes(Protocol):
    """The items an earlier wfx wrote, moved to the current shapes: each item rewritten at most
    once and only when it differs (so a run cut short resumes by running again), guarded against
    a writer changing it meanwhile."""

    def upgrade(self, dry_run: bool) -> tuple[TableItemShapes, ...]: ...

    def verify(self) -> tuple[TableItemShapes, ...]:
        """Read every item; count those not in the current shapes. Writes nothing."""
        ...


class LegacyExecutions(Protocol):
    """Step Functions' word on a run the earlier release started, by its execution ARN: None
    when it no longer knows the execution; OrchestratorReadError when it does not answer."""

    def describe(self, execution_arn: str) -> OrchestratorExecution | None: ...


class MigrationCheckpoint(Protocol):
    """The key of the last item the migration finished, kept between runs."""

    def last_done(self) -> str | None: ...

    def record(self, item_key: str) -> None: ...


@dataclass(frozen=True)
class MainRowKey:
    """The table key of one main row (seed 000: the run's id, then its workflow's key)."""

    workflow_execution_id: str
    workflow_key: str


@dataclass(frozen=True)
class MainRowPage:
    """One page of the main table in key order: how many rows it held, which of them lack the
    global-list partition, and where the next page starts (None: this was the last)."""

    scanned: int
    unstamped: tuple[MainRowKey, ...]
    next_cursor: str | None


class ListPartitionBackfill(Protocol):
    """The main rows a write path left without `allListPartition` (seed 000's warning), found by
    the product's only scan and stamped one conditional write at a time."""

    def scan_page(self, cursor: str | None, limit: int) -> MainRowPage:
        """Up to `limit` main rows after `cursor` (None: from the start); a cursor this adapter
        did not issue raises InvalidInputError."""
        ...

    def stamp(self, row: MainRowKey) -> bool:
        """Give the row the partition if it still has none and still exists; False otherwise
        (a concurrent writer stamped or rewrote it first: its row is never overwritten)."""
        ...


@dataclass(frozen=True)
class ArchivedItem:
    """One stored item in the store-neutral form: the table's ResourceKeys name (never its
    physical name, which a prefix may change) and the item as plain JSON values."""

    table: str
    item: Mapping[str, Any]
    line: int = 0  # where the item was read from (0: not read from a file)
    # not the run's own: a definition or an asset file other runs may name too
    shared: bool = False


@dataclass(frozen=True)
class ArchivedBody:
    """A body an item budget moved to the object store, carried inline with its run."""

    key: str
    data: bytes
    line: int = 0


@dataclass(frozen=True)
class ArchivedRun:
    """Every item of one run in every table, the definitions and asset files it names, and its
    offloaded bodies; the main row is the last item (written last, so a cut-short import leaves
    no half run listed)."""

    workflow_execution_id: str
    items: tuple[ArchivedItem, ...]
    bodies: tuple[ArchivedBody, ...] = ()


@dataclass(frozen=True)
class RejectedRun:
    """A run whose lines in an archive break a rule: none of it is imported."""

    workflow_execution_id: str
    line: int
    message: str


@dataclass(frozen=True)
class KeptRun:
    """A run the store holds with another main row (another state of it): kept as stored, none
    of the archive's `items` of its own written. A count, so that who prints it words it."""

    main_row: str  # the stored main row, described by its key
    items: int


@dataclass(frozen=True)
class ImportedRun:
    """What an import of one run did: items written, items found equal, items found different
    (left as stored: nothing already stored is overwritten), each named."""

    written: int
    unchanged: int
    conflicts: tuple[str | KeptRun, ...] = ()


class RunRefusedError(Exception):
    """The store cannot take an archived run as it is (nothing of it was written): the line
    of the item that says so, and the rule."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class ListedRuns:
    """The runs an export walks: their ids, read a page at a time as `ids` is walked (none held
    past its page), and `count`, how many the list holds, a read of the list of its own made only
    when called (a progress bar's total; the file needs none). A run started after the listing
    is in neither (the next export's); one deleted after it may still be named or counted."""

    ids: Iterator[str]
    count: Callable[[], int]


class RunArchive(Protocol):
    """Whole runs read from and written to one store, item by item (store-to-store copy)."""

    def list_runs(self, since: datetime | None) -> ListedRuns:
        """The runs in the global list started at or after `since` (None: all) and no later
        than the newest of them at the call, oldest first (a start shared: by id)."""
        ...

    def export_run(self, workflow_execution_id: str) -> ArchivedRun:
        """Raises ExecutionNotFoundError when the run has no main row."""
        ...

    def import_run(self, run: ArchivedRun) -> ImportedRun:
        """Bodies first, then each absent item by a conditional put, the main row last; a
        version (or its steps) past the stored workflow's latest is not written, checked by its
        own write. Raises RunRefusedError, with nothing of the run's own rows left, when one of
        its steps is stored as a step of another run (the rows keyed by that step would be both
        runs'), found before writing or, when another import wrote it since, by the step's
        write."""
        ...

    def differences(self, run: ArchivedRun) -> list[str]:
        """Each item and body of `run` that the store holds otherwise or not at all, named."""
        ...
