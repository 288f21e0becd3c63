"""The approval-requests table's guarded statements, inside a caller's write transaction: shared
by the approvals adapter (a task token renewed) and the run writer (a request opened, closed or
checked with its run's transition)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.approval_records import APPROVAL_ID, PARTITION, PENDING, build_approval_record
from adapters.sqlite.database import Statements
from adapters.sqlite.schema import SqliteSchema
from adapters.sqlite.statements import TableSql, json_path
from adapters.tables import ResourceKeys
from domain.approvals import ApprovalRequest, ApprovalStatus

if TYPE_CHECKING:
    from domain.run_write import ApprovalWrite


class ApprovalRowSql:
    def __init__(self, schema: SqliteSchema) -> None:
        t = self.table = TableSql.render(schema[ResourceKeys.APPROVAL_REQUESTS])
        key = f"{t.q(PARTITION)} = ? AND {t.q(APPROVAL_ID)} = ?"
        pending = f"json_extract(item, {json_path('approvalStatus')}) = ?"
        self._replace_pending = (
            f"UPDATE {t.name} SET {t.q(PENDING)} = ?, item = ? WHERE {key} AND {pending}"
        )
        self._pending = f"SELECT 1 FROM {t.name} WHERE {key} AND {pending}"

    def replace_pending(self, connection: Statements, request: ApprovalRequest) -> bool:
        """The stored request replaced by `request`, only while it is PENDING."""
        record = build_approval_record(request)
        return bool(
            connection.execute(
                self._replace_pending,
                (
                    record.get(PENDING),
                    self.table.row(record)[-1],
                    request.workflow_execution_id,
                    request.approval_id,
                    ApprovalStatus.PENDING.value,
                ),
            ).rowcount
        )

    def write(self, connection: Statements, write: ApprovalWrite) -> bool:
        """The approval's part of a run's write; False when its condition does not hold."""
        # imported by a write only: a list, which writes none, leaves the run's writes out
        from domain.run_write import ApprovalWriteKind

        request = write.request
        if write.kind is ApprovalWriteKind.OPEN:
            row = self.table.row(build_approval_record(request))
            return bool(connection.execute(self.table.insert_if_absent, row).rowcount)
        if write.kind is ApprovalWriteKind.CLOSE:
            return self.replace_pending(connection, request)
        key = (request.workflow_execution_id, request.approval_id, ApprovalStatus.PENDING.value)
        return connection.execute(self._pending, key).fetchone() is not None
