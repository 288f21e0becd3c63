"""`WorkflowDefinitions` on SQLite: a definition per workflow, and the publishing transaction."""

from __future__ import annotations

import sqlite3

from adapters.catalog_paging import (
    check_limit,
    decode_workflow_token,
    encode_workflow_token,
    page_of,
)
from adapters.records import (
    WORKFLOW_LIST_PARTITION,
    WORKFLOW_LIST_SEPARATOR,
    build_step_definition_records,
    build_workflow_definition_record,
    build_workflow_version_record,
    join_key,
    parse_workflow_definition_record,
    workflow_list_sort_key,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import SqliteSchema, build_schema
from adapters.sqlite.statements import TableSql, load_item
from adapters.sqlite.workflow_tables import IMMUTABLE_MESSAGE, create_workflow_tables
from adapters.tables import WORKFLOW_LIST_INDEX, ResourceKeys, TableNames
from domain.paging import Page
from domain.workflow import WorkflowDefinition, WorkflowVersion

_KEY = "workflowDatabaseId:workflowId"


class _PublishRefused(Exception):
    """The stored pointer is not on the version before: roll the whole publish back."""


class SqliteWorkflowDefinitions:
    """One row per workflow; a publish adds its version and step rows in the same transaction."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        self._database = database
        self._schema: SqliteSchema = build_schema(tables)
        self._definitions = d = TableSql.render(self._schema[ResourceKeys.WORKFLOW_DEFINITIONS])
        self._versions = TableSql.render(self._schema[ResourceKeys.WORKFLOW_VERSIONS])
        self._steps = TableSql.render(self._schema[ResourceKeys.STEP_DEFINITIONS])
        self._one = f"SELECT item FROM {d.name} WHERE {d.q(_KEY)} = ?"
        # The pointer moves from the version before only: a rival publish finds it moved on.
        self._advance = (
            f"UPDATE {d.name} SET item = ? WHERE {d.q(_KEY)} = ? "
            "AND json_extract(item, '$.latestVersion') = ?"
        )
        index = d.table.spec.index(WORKFLOW_LIST_INDEX)
        partition, sort = d.q(index.partition.name), d.q(index.attributes[-1].name)
        self._page = {
            (filtered, continued): (
                f"SELECT item FROM {d.name} WHERE {partition} = ?"
                + (f" AND {sort} >= ? AND {sort} < ?" if filtered else "")
                + (f" AND {sort} > ?" if continued else "")
                + f" ORDER BY {sort} LIMIT ?"
            )
            for filtered in (False, True)
            for continued in (False, True)
        }

    def create_tables(self) -> None:
        create_workflow_tables(self._database, self._schema)

    def list_definitions_sql(self, filtered: bool, continued: bool) -> str:
        """The statement behind one page of definitions (shown to EXPLAIN QUERY PLAN by tests)."""
        return self._page[(filtered, continued)]

    def publish(self, definition: WorkflowDefinition, version: WorkflowVersion) -> bool:
        if not definition.points_at(version):  # a caller's mistake, not a store's refusal
            raise ValueError(f"{definition.workflow_key}: the definition must point at the version")
        d = self._definitions
        item = build_workflow_definition_record(definition)
        try:
            with self._database.write() as connection:
                if version.version == 1:
                    connection.execute(d.insert, d.row(item))  # a taken key: IntegrityError
                else:
                    moved = connection.execute(
                        self._advance,
                        (d.row(item)[-1], definition.workflow_key, version.version - 1),
                    )
                    if moved.rowcount != 1:
                        raise _PublishRefused
                # plain INSERTs: a stored version or step is refused (key and trigger)
                connection.execute(
                    self._versions.insert,
                    self._versions.row(build_workflow_version_record(version)),
                )
                connection.executemany(
                    self._steps.insert, self._steps.rows(build_step_definition_records(version))
                )
        except _PublishRefused:
            return False
        except sqlite3.IntegrityError as error:
            if not _refused_as_taken(error):
                raise
            return False
        return True

    def find_definition(self, database_id: str, workflow_id: str) -> WorkflowDefinition | None:
        with self._database.read() as connection:
            row = connection.execute(self._one, (join_key(database_id, workflow_id),)).fetchone()
        return parse_workflow_definition_record(load_item(row[0])) if row else None

    def list_definitions(
        self, limit: int, starting_token: str | None, database_id: str | None = None
    ) -> Page[WorkflowDefinition]:
        check_limit(limit)
        parameters: list[object] = [WORKFLOW_LIST_PARTITION]
        if database_id is not None:
            # The sort keys of one database, as a range the index can seek: [db!, db") .
            prefix = workflow_list_sort_key(database_id)
            parameters += [prefix, prefix[:-1] + chr(ord(WORKFLOW_LIST_SEPARATOR) + 1)]
        if starting_token is not None:
            parameters.append(
                workflow_list_sort_key(*decode_workflow_token(starting_token, database_id))
            )
        sql = self.list_definitions_sql(database_id is not None, starting_token is not None)
        with self._database.read() as connection:
            # One row past the page says whether another page exists.
            rows = connection.execute(sql, (*parameters, limit + 1)).fetchall()
        found = [parse_workflow_definition_record(load_item(text)) for (text,) in rows]
        return page_of(
            found[:limit],
            len(found) > limit,
            lambda last: encode_workflow_token(last.database_id, last.workflow_id),
        )


def _refused_as_taken(error: sqlite3.IntegrityError) -> bool:
    """A key already stored (the primary key, or the trigger that guards published rows), not
    another constraint: that would be a bug to show, never a rival publish."""
    return "UNIQUE constraint failed" in str(error) or IMMUTABLE_MESSAGE in str(error)
