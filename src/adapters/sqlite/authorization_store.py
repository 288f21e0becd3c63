"""`AuthorizationStore` on SQLite: the authorization table, one write transaction per change."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

from adapters.authorization_records import (
    PARTITION,
    REVISION,
    REVISION_KEY,
    REVOKED_SORT,
    ROLE_SORT,
    SORT,
    Item,
    assignment_sort,
    assignments_in,
    build_assignment_record,
    build_constraint_record,
    build_revoked_token_record,
    build_revoked_user_record,
    build_role_name_record,
    build_role_record,
    constraints_in,
    name_taken,
    policy_of,
    revision_key,
    revoked,
    revoked_token_key,
    revoked_user_key,
    role_name_key,
    role_partition,
    roles_in,
    user_partition,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import build_schema, create_tables
from adapters.sqlite.statements import TableSql, load_item
from adapters.tables import REVOKED_TOKEN_EXPIRY, ResourceKeys, TableNames
from domain.constraints import AuthorizationPolicy, Constraint, Role, RoleAssignment
from domain.errors import RoleAlreadyExistsError, RoleNotFoundError


class SqliteAuthorizationStore:
    """Roles, constraints and assignments in one table; the revision is a counter item."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        self._database = database
        self._schema = build_schema(tables)
        t = self._table = TableSql.render(self._schema[ResourceKeys.AUTHORIZATION])
        pk, sk = t.q(PARTITION), t.q(SORT)
        self._all = f"SELECT item FROM {t.name} ORDER BY {pk}, {sk}"
        self._one = f"SELECT item FROM {t.name} WHERE {pk} = ? AND {sk} = ?"
        self._partition = f"SELECT item FROM {t.name} WHERE {pk} = ? ORDER BY {sk}"
        self._delete_one = f"DELETE FROM {t.name} WHERE {pk} = ? AND {sk} = ?"
        self._delete_partition = f"DELETE FROM {t.name} WHERE {pk} = ?"
        self._delete_sort = f"DELETE FROM {t.name} WHERE {sk} = ? AND {pk} LIKE 'user#%'"
        self._delete_expired_tokens = (
            f"DELETE FROM {t.name} WHERE {pk} LIKE 'revokedToken#%' AND {sk} = ? "
            f"AND json_extract(item, '$.{REVOKED_TOKEN_EXPIRY}') < ?"
        )

    def create_tables(self) -> None:
        create_tables(self._database, self._schema)

    def add_role(self, role: Role) -> None:
        with self._database.write() as connection:
            inserted = connection.execute(
                self._table.insert_if_absent, self._table.row(build_role_record(role))
            ).rowcount
            if not inserted:
                raise RoleAlreadyExistsError(role.name)
            name = self._table.row(build_role_name_record(role))
            if not connection.execute(self._table.insert_if_absent, name).rowcount:
                holder = self._item(connection, role_name_key(role.name))
                raise name_taken(role.name, holder or {"roleName": role.name})
            self._bump(connection)

    def list_roles(self) -> list[Role]:
        return roles_in(self._items())

    def delete_role(self, role_name: str) -> None:
        with self._database.write() as connection:
            self._require_role(connection, role_name)
            connection.execute(self._delete_partition, (role_partition(role_name),))
            connection.execute(self._delete_sort, (assignment_sort(role_name),))
            name = role_name_key(role_name)
            if (self._item(connection, name) or {}).get("roleName") == role_name:
                connection.execute(self._delete_one, (name[PARTITION], name[SORT]))
            self._bump(connection)

    def assign(self, assignment: RoleAssignment) -> None:
        with self._database.write() as connection:
            self._require_role(connection, assignment.role)
            connection.execute(
                self._table.upsert, self._table.row(build_assignment_record(assignment))
            )

    def unassign(self, assignment: RoleAssignment) -> bool:
        key = (user_partition(assignment.user_id), assignment_sort(assignment.role))
        with self._database.write() as connection:
            return bool(connection.execute(self._delete_one, key).rowcount)

    def list_assignments(self, user_id: str | None = None) -> list[RoleAssignment]:
        if user_id is None:
            return assignments_in(self._items())
        return assignments_in(self._partition_items(user_partition(user_id)))

    def roles_of(self, user_id: str) -> tuple[str, ...]:
        return tuple(a.role for a in self.list_assignments(user_id))

    def put_constraints(self, constraints: Sequence[Constraint]) -> None:
        if not constraints:
            return
        with self._database.write() as connection:
            for role_name in sorted({c.role for c in constraints}):
                self._require_role(connection, role_name)
            rows = self._table.rows(build_constraint_record(c) for c in constraints)
            connection.executemany(self._table.upsert, rows)
            self._bump(connection)

    def list_constraints(self, role_name: str | None = None) -> list[Constraint]:
        if role_name is None:
            return constraints_in(self._items())
        return constraints_in(self._partition_items(role_partition(role_name)))

    def revision(self) -> str:
        with self._database.read() as connection:
            return self._revision(connection)

    def policy(self) -> AuthorizationPolicy:
        with self._database.read() as connection:  # one snapshot: the revision matches the rows
            revision = self._revision(connection)
            items = [load_item(text) for (text,) in connection.execute(self._all).fetchall()]
        return policy_of(revision, items)

    # -- RevokedTokens -------------------------------------------------------------------------

    def revoke_token(self, token_id: str, expires_at: int) -> None:
        record = build_revoked_token_record(token_id, expires_at)
        with self._database.write() as connection:
            connection.execute(self._table.upsert, self._table.row(record))
            # One row a logout, read by every policy and role read: those whose token has
            # expired (refused by its `exp` anyway) go with the next revocation.
            connection.execute(self._delete_expired_tokens, (REVOKED_SORT, int(time.time())))

    def revoke_user(self, user_id: str, issued_until: int) -> None:
        record = build_revoked_user_record(user_id, issued_until)
        with self._database.write() as connection:
            connection.execute(self._table.upsert, self._table.row(record))

    def is_revoked(self, token_id: str, user_id: str, issued_at: int) -> bool:
        with self._database.read() as connection:
            found = [
                connection.execute(self._one, (key[PARTITION], key[SORT])).fetchone()
                for key in (revoked_token_key(token_id), revoked_user_key(user_id))
            ]
        token, user = (None if row is None else load_item(row[0]) for row in found)
        return revoked(token, user, issued_at)

    def _items(self) -> list[Item]:
        with self._database.read() as connection:
            return [load_item(text) for (text,) in connection.execute(self._all).fetchall()]

    def _partition_items(self, partition: str) -> list[Item]:
        with self._database.read() as connection:
            rows = connection.execute(self._partition, (partition,)).fetchall()
        return [load_item(text) for (text,) in rows]

    def _item(self, connection: sqlite3.Connection, key: Item) -> Item | None:
        row = connection.execute(self._one, (key[PARTITION], key[SORT])).fetchone()
        return None if row is None else load_item(row[0])

    def _require_role(self, connection: sqlite3.Connection, role_name: str) -> None:
        if connection.execute(self._one, (role_partition(role_name), ROLE_SORT)).fetchone() is None:
            raise RoleNotFoundError(role_name)

    def _revision(self, connection: sqlite3.Connection) -> str:
        row = connection.execute(self._one, (REVISION_KEY, REVISION_KEY)).fetchone()
        return str(load_item(row[0])[REVISION]) if row else "0"

    def _bump(self, connection: sqlite3.Connection) -> None:
        # Inside the write's BEGIN IMMEDIATE: no other writer runs between the read and the put.
        next_revision = int(self._revision(connection)) + 1
        item = revision_key() | {REVISION: next_revision}
        connection.execute(self._table.upsert, self._table.row(item))
