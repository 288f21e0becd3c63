"""`wfx migrate items`: a store an earlier wfx wrote, moved to VAMS 2.6's item shapes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from application.ports.migration import ItemShapes
from domain.migration import TableItemShapes


class MigrateItemsCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    dry_run: bool = False
    verify: bool = False


class MigrateItemsResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    tables: tuple[TableItemShapes, ...]
    dry_run: bool
    verify: bool

    @property
    def complete(self) -> bool:
        """Every item is in the current shapes (after a write, none was left behind)."""
        if self.dry_run or self.verify:
            return all(table.rewritten == 0 for table in self.tables)
        return all(table.conflicts == 0 for table in self.tables)


class MigrateItems:
    """Rewrite every item an earlier wfx wrote in the current shapes, or check that none is left."""

    def __init__(self, shapes: ItemShapes) -> None:
        self._shapes = shapes

    def execute(self, command: MigrateItemsCommand) -> MigrateItemsResult:
        tables = self._shapes.verify() if command.verify else self._shapes.upgrade(command.dry_run)
        return MigrateItemsResult(tables=tables, dry_run=command.dry_run, verify=command.verify)
