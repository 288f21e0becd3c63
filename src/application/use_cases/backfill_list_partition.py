"""BackfillListPartition: stamp the main rows that lack the global-list partition."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports.migration import ListPartitionBackfill

DEFAULT_PAGE_SIZE = 100


class BackfillListPartitionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    dry_run: bool = False
    page_size: int = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=1000)
    # where an interrupted backfill stopped (the last result's `cursor`); None: from the start
    cursor: str | None = None


class BackfillListPartitionResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    scanned: int
    stamped: int
    already_stamped: int
    # rows without the partition: all stamped, or (dry run) all that would be
    missing: int
    dry_run: bool
    # unstamped rows another writer stamped or removed between the scan and the write
    raced: int = 0


class BackfillListPartition:
    """Find every main row without `allListPartition` and stamp it, so it is listed again."""

    def __init__(self, backfill: ListPartitionBackfill) -> None:
        self._backfill = backfill

    def execute(self, command: BackfillListPartitionCommand) -> BackfillListPartitionResult:
        scanned = stamped = missing = raced = 0
        cursor = command.cursor
        while True:
            page = self._backfill.scan_page(cursor, command.page_size)
            scanned += page.scanned
            missing += len(page.unstamped)
            if not command.dry_run:
                for row in page.unstamped:
                    # Idempotent by its condition: a re-run after an interruption finds only
                    # the rows still missing it, so no checkpoint is needed to resume.
                    if self._backfill.stamp(row):
                        stamped += 1
                    else:
                        raced += 1
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        return BackfillListPartitionResult(
            scanned=scanned,
            stamped=stamped,
            already_stamped=scanned - missing,
            missing=missing,
            dry_run=command.dry_run,
            raced=raced,
        )
