"""`Approvals` on SQLite: the approval-requests table's reads, and a task token renewed. A
request opened or closed is a run's transition, written with its event by the run writer
(`SqliteExecutionStore.commit`)."""

from __future__ import annotations

from adapters.approval_records import (
    ALL,
    ALL_PARTITION,
    APPROVAL_ID,
    LIST_SORT,
    PARTITION,
    PENDING,
    PENDING_PARTITION,
    decode_position,
    encode_position,
    parse_approval_record,
)
from adapters.readable_reads import ApprovalReads
from adapters.records import listed_rows, readable_rows
from adapters.sqlite.approval_rows import ApprovalRowSql
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import SqliteSchema, create_tables, create_tables_unless_present
from adapters.sqlite.statements import TableSql, load_item
from adapters.tables import ResourceKeys
from domain.approvals import ApprovalNotFoundError, ApprovalRequest
from domain.execution import UnreadableRow
from domain.paging import Page


class SqliteApprovals(ApprovalReads):
    """Approval requests in wfx's approval-requests table."""

    def __init__(self, database: SqliteDatabase, schema: SqliteSchema) -> None:
        self._database, self._schema = database, schema
        t = TableSql.render(schema[ResourceKeys.APPROVAL_REQUESTS])
        self._rows = ApprovalRowSql(schema)
        self._table_name = schema[ResourceKeys.APPROVAL_REQUESTS].name
        self._by_id = f"SELECT item FROM {t.name} WHERE {t.q(APPROVAL_ID)} = ?"
        self._of_run = (
            f"SELECT item FROM {t.name} WHERE {t.q(PARTITION)} = ? ORDER BY {t.q(LIST_SORT)}"
        )
        self._lists = {
            pending: (
                f"SELECT {t.q(LIST_SORT)}, item FROM {t.name} "
                f"WHERE {t.q(column)} = ? AND {t.q(LIST_SORT)} < ? "
                f"ORDER BY {t.q(LIST_SORT)} DESC LIMIT ?"
            )
            for pending, column in ((True, PENDING), (False, ALL))
        }
        self._ready = False

    def create_tables(self) -> None:
        create_tables(self._database, self._schema)
        self._ready = True

    def _ensure_table(self) -> None:
        """A database made before approvals gets its table on first use (one lookup)."""
        if self._ready:
            return
        create_tables_unless_present(self._database, self._schema, self._table_name)
        self._ready = True

    def renew_task_token(self, request: ApprovalRequest) -> bool:
        if not request.is_pending or not request.task_token:
            return False
        self._ensure_table()
        with self._database.write() as connection:
            return self._rows.replace_pending(connection, request)

    def get(self, approval_id: str) -> ApprovalRequest:
        self._ensure_table()
        with self._database.read() as connection:
            row = connection.execute(self._by_id, (approval_id,)).fetchone()
        if row is None:
            raise ApprovalNotFoundError(approval_id)
        return parse_approval_record(load_item(row[0]))

    def _read_approvals(
        self, workflow_execution_id: str, left_out: list[UnreadableRow] | None
    ) -> list[ApprovalRequest]:
        self._ensure_table()
        with self._database.read() as connection:
            rows = connection.execute(self._of_run, (workflow_execution_id,)).fetchall()
        return readable_rows(parse_approval_record, (load_item(text) for (text,) in rows), left_out)

    def list_requests(
        self, pending_only: bool, limit: int, starting_token: str | None = None
    ) -> Page[ApprovalRequest]:
        self._ensure_table()
        # every position sorts below "~" (it starts with a digit): no token reads from the top
        before = "~" if starting_token is None else decode_position(starting_token)
        partition = PENDING_PARTITION if pending_only else ALL_PARTITION
        with self._database.read() as connection:
            rows = connection.execute(
                self._lists[pending_only], (partition, before, limit + 1)
            ).fetchall()
        requests = listed_rows(parse_approval_record, (load_item(text) for _, text in rows[:limit]))
        # the page's last row read, not listed: one left out still moves the list on
        token = encode_position(rows[limit - 1][0]) if len(rows) > limit else None
        return Page(items=tuple(requests), next_token=token)
