"""`Approvals` on SQLite: the approval-requests table, each change and its event in one
transaction (the unit of work numbers the event under the same write lock)."""

from __future__ import annotations

from adapters.approval_records import (
    ALL,
    ALL_PARTITION,
    APPROVAL_ID,
    LIST_SORT,
    PARTITION,
    PENDING,
    PENDING_PARTITION,
    build_approval_record,
    decode_position,
    encode_position,
    list_position,
    parse_approval_record,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import SqliteSchema, create_tables, create_tables_unless_present
from adapters.sqlite.statements import TableSql, json_path, load_item
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.tables import ResourceKeys
from domain.approvals import ApprovalNotFoundError, ApprovalRequest, ApprovalStatus
from domain.errors import ExecutionNotFoundError
from domain.events import approval_events
from domain.paging import Page
from domain.run import RunChange


class SqliteApprovals:
    """Approval requests in wfx's approval-requests table."""

    def __init__(
        self,
        database: SqliteDatabase,
        schema: SqliteSchema,
        unit_of_work: SqliteUnitOfWork,
        store: SqliteExecutionStore,
    ) -> None:
        self._database, self._schema, self._unit_of_work = database, schema, unit_of_work
        self._store = store
        t = self._table = TableSql.render(schema[ResourceKeys.APPROVAL_REQUESTS])
        main = TableSql.render(schema[ResourceKeys.WORKFLOW_EXECUTIONS])
        self._table_name = schema[ResourceKeys.APPROVAL_REQUESTS].name
        self._run_exists = f"SELECT 1 FROM {main.name} WHERE {main.q(PARTITION)} = ? LIMIT 1"
        self._by_key = (
            f"SELECT item FROM {t.name} WHERE {t.q(PARTITION)} = ? AND {t.q(APPROVAL_ID)} = ?"
        )
        self._by_id = f"SELECT item FROM {t.name} WHERE {t.q(APPROVAL_ID)} = ?"
        self._of_run = (
            f"SELECT item FROM {t.name} WHERE {t.q(PARTITION)} = ? ORDER BY {t.q(LIST_SORT)}"
        )
        status = f"json_extract(item, {json_path('approvalStatus')})"
        self._close = (
            f"UPDATE {t.name} SET {t.q(PENDING)} = ?, item = ? "
            f"WHERE {t.q(PARTITION)} = ? AND {t.q(APPROVAL_ID)} = ? AND {status} = ?"
        )
        self._lists = {
            pending: (
                f"SELECT item FROM {t.name} WHERE {t.q(column)} = ? AND {t.q(LIST_SORT)} < ? "
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

    def open(self, request: ApprovalRequest) -> ApprovalRequest:
        self._ensure_table()
        self._unit_of_work.ensure_table()
        run_id = request.workflow_execution_id
        with self._database.write() as connection:
            if connection.execute(self._run_exists, (run_id,)).fetchone() is None:
                raise ExecutionNotFoundError(run_id)
            stored = connection.execute(self._by_key, (run_id, request.approval_id)).fetchone()
            if stored is not None:
                return parse_approval_record(load_item(stored[0]))
            connection.execute(self._table.insert, self._table.row(build_approval_record(request)))
            self._unit_of_work.append_in(connection, run_id, approval_events(request))
        return request

    def close(self, closed: ApprovalRequest) -> bool:
        self._ensure_table()
        self._unit_of_work.ensure_table()
        record = build_approval_record(closed)
        with self._database.write() as connection:
            changed = connection.execute(
                self._close,
                (
                    record.get(PENDING),
                    self._table.row(record)[-1],
                    closed.workflow_execution_id,
                    closed.approval_id,
                    ApprovalStatus.PENDING.value,
                ),
            ).rowcount
            if not changed:
                return False
            self._unit_of_work.append_in(
                connection, closed.workflow_execution_id, approval_events(closed)
            )
        return True

    def renew_task_token(self, request: ApprovalRequest) -> bool:
        if not request.is_pending or not request.task_token:
            return False
        self._ensure_table()
        record = build_approval_record(request)
        with self._database.write() as connection:
            changed = connection.execute(
                self._close,
                (
                    record.get(PENDING),
                    self._table.row(record)[-1],
                    request.workflow_execution_id,
                    request.approval_id,
                    ApprovalStatus.PENDING.value,
                ),
            ).rowcount
        return bool(changed)

    def park(self, request: ApprovalRequest, change: RunChange) -> bool:
        self._ensure_table()
        key = (request.workflow_execution_id, request.approval_id)
        with self._database.write() as connection:
            row = connection.execute(self._by_key, key).fetchone()
            if row is None or not parse_approval_record(load_item(row[0])).is_pending:
                return False
            return self._store.update_execution_in(connection, change) is not None

    def get(self, approval_id: str) -> ApprovalRequest:
        self._ensure_table()
        with self._database.read() as connection:
            row = connection.execute(self._by_id, (approval_id,)).fetchone()
        if row is None:
            raise ApprovalNotFoundError(approval_id)
        return parse_approval_record(load_item(row[0]))

    def list_for_execution(self, workflow_execution_id: str) -> list[ApprovalRequest]:
        self._ensure_table()
        with self._database.read() as connection:
            rows = connection.execute(self._of_run, (workflow_execution_id,)).fetchall()
        return [parse_approval_record(load_item(text)) for (text,) in rows]

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
        requests = tuple(parse_approval_record(load_item(text)) for (text,) in rows[:limit])
        more = len(rows) > limit and requests
        token = encode_position(list_position(requests[-1])) if more else None
        return Page(items=requests, next_token=token)
