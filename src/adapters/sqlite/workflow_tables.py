"""The SQLite workflow tables: their creation, the upgrade of an earlier file, and the triggers
that keep a published version and its step definitions from ever changing."""

from __future__ import annotations

import sqlite3

from adapters.records import (
    build_step_definition_records,
    build_workflow_version_record,
    parse_embedded_version_record,
    recovered_definition_record,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import SqliteSchema, create_tables
from adapters.sqlite.statements import TableSql, load_item, quote
from adapters.tables import ResourceKeys

# What every refused write says (a trigger's message is a literal: it cannot name the row).
IMMUTABLE_MESSAGE = "wfx: a published workflow version and its steps never change"
# The earlier versions table carried the workflow list (a sparse index on version 1).
_EARLIER_LIST_INDEX = "WorkflowsByKeyGSI"
_EARLIER_LIST_KEYS = ("workflowListPartition", "workflowListSortKey")
_KEY = "workflowDatabaseId:workflowId"


def create_workflow_tables(database: SqliteDatabase, schema: SqliteSchema) -> None:
    """Create every missing table, upgrade an earlier file's versions, then guard them."""
    create_tables(database, schema)
    versions = TableSql.render(schema[ResourceKeys.WORKFLOW_VERSIONS])
    steps = TableSql.render(schema[ResourceKeys.STEP_DEFINITIONS])
    definitions = TableSql.render(schema[ResourceKeys.WORKFLOW_DEFINITIONS])
    with database.write() as connection:  # checked inside: two processes may upgrade at once
        if _needs_upgrade(connection, versions, definitions):
            _drop_guards(connection, versions, steps)
            _move_steps_out(connection, versions, steps)
            _drop_the_earlier_list(connection, versions)
            _add_missing_definitions(connection, versions, definitions)
        _guard(connection, versions, steps)


def _needs_upgrade(
    connection: sqlite3.Connection, versions: TableSql, definitions: TableSql
) -> bool:
    embedded = connection.execute(
        f"SELECT 1 FROM {versions.name} WHERE json_type(item, '$.steps') IS NOT NULL LIMIT 1"
    ).fetchone()
    undefined = connection.execute(
        f"SELECT 1 FROM {versions.name} AS v WHERE NOT EXISTS (SELECT 1 FROM {definitions.name} "
        f"AS d WHERE d.{definitions.q(_KEY)} = v.{versions.q(_KEY)}) LIMIT 1"
    ).fetchone()
    return embedded is not None or undefined is not None or _has_list_columns(connection, versions)


def _has_list_columns(connection: sqlite3.Connection, versions: TableSql) -> bool:
    present = {row[1] for row in connection.execute(f"PRAGMA table_info({versions.name})")}
    return any(name in present for name in _EARLIER_LIST_KEYS)


def _move_steps_out(connection: sqlite3.Connection, versions: TableSql, steps: TableSql) -> None:
    """Each version that holds its steps: its steps become step definitions, its item loses them
    (the digest covers the steps, not their storage, so it stays valid)."""
    embedded = connection.execute(
        f"SELECT item FROM {versions.name} WHERE json_type(item, '$.steps') IS NOT NULL"
    ).fetchall()
    for (text,) in embedded:
        version = parse_embedded_version_record(load_item(text))
        connection.executemany(
            steps.insert_if_absent, steps.rows(build_step_definition_records(version))
        )
        connection.execute(
            f"UPDATE {versions.name} SET item = ? WHERE {versions.q(_KEY)} = ? "
            f"AND {versions.q('workflowVersion')} = ?",
            (
                versions.row(build_workflow_version_record(version))[-1],
                version.workflow_key,
                version.version,
            ),
        )


def _drop_the_earlier_list(connection: sqlite3.Connection, versions: TableSql) -> None:
    """The list moved to the definitions table: the old index and its columns go."""
    connection.execute(
        f"DROP INDEX IF EXISTS {quote(f'{versions.table.name}.{_EARLIER_LIST_INDEX}')}"
    )
    present = {row[1] for row in connection.execute(f"PRAGMA table_info({versions.name})")}
    for name in _EARLIER_LIST_KEYS:
        if name in present:
            connection.execute(f"ALTER TABLE {versions.name} DROP COLUMN {quote(name)}")
        connection.execute(f"UPDATE {versions.name} SET item = json_remove(item, '$.{name}')")


def _add_missing_definitions(
    connection: sqlite3.Connection, versions: TableSql, definitions: TableSql
) -> None:
    """A definition for each workflow published before definitions existed: created when its
    version 1 was, its latest version the highest stored, its owner unknown (never recorded)."""
    key, number = versions.q(_KEY), versions.q("workflowVersion")
    rows = connection.execute(
        f"SELECT v.{key}, MIN(v.{number}), MAX(v.{number}) FROM {versions.name} AS v "
        f"WHERE NOT EXISTS (SELECT 1 FROM {definitions.name} AS d "
        f"WHERE d.{definitions.q(_KEY)} = v.{key}) GROUP BY v.{key}"
    ).fetchall()
    one = f"SELECT item FROM {versions.name} WHERE {key} = ? AND {number} = ?"
    for workflow_key, first, latest in rows:
        (first_text,) = connection.execute(one, (workflow_key, first)).fetchone()
        (latest_text,) = connection.execute(one, (workflow_key, latest)).fetchone()
        record = recovered_definition_record(load_item(first_text), load_item(latest_text))
        connection.execute(definitions.insert, definitions.row(record))


def _trigger_names(table: TableSql) -> dict[str, str]:
    return {
        event: quote(f"{table.table.name}.immutable.{event}")
        for event in ("insert", "update", "delete")
    }


def _drop_guards(connection: sqlite3.Connection, versions: TableSql, steps: TableSql) -> None:
    for table in (versions, steps):
        for name in _trigger_names(table).values():
            connection.execute(f"DROP TRIGGER IF EXISTS {name}")


def _guard(connection: sqlite3.Connection, versions: TableSql, steps: TableSql) -> None:
    """Triggers refuse any write to a stored version or step row, whatever statement makes it.
    An INSERT onto a taken key is refused too: `INSERT OR REPLACE` would otherwise delete and
    rewrite the row without firing a delete trigger. The one change allowed: a version gains
    its state machine ARN once (a redeploy writes the same ARN again)."""
    refuse = f"BEGIN SELECT RAISE(ABORT, '{IMMUTABLE_MESSAGE}'); END"
    arn = "'$.stateMachineArn'"
    for table in (versions, steps):
        names = _trigger_names(table)
        match = " AND ".join(f"{table.q(c)} = NEW.{table.q(c)}" for c in table.table.primary_key)
        connection.execute(
            f"CREATE TRIGGER IF NOT EXISTS {names['insert']} BEFORE INSERT ON {table.name} "
            f"WHEN EXISTS (SELECT 1 FROM {table.name} WHERE {match}) {refuse}"
        )
        connection.execute(
            f"CREATE TRIGGER IF NOT EXISTS {names['delete']} BEFORE DELETE ON {table.name} {refuse}"
        )
        changed_keys = " OR ".join(
            f"NEW.{table.q(c)} IS NOT OLD.{table.q(c)}" for c in table.table.key_columns
        )
        allowed = (
            f"json_remove(NEW.item, {arn}) IS json_remove(OLD.item, {arn}) AND "
            f"(json_extract(OLD.item, {arn}) IS NULL "
            f"OR json_extract(NEW.item, {arn}) IS json_extract(OLD.item, {arn}))"
            if table is versions
            else "0"
        )
        connection.execute(
            f"CREATE TRIGGER IF NOT EXISTS {names['update']} BEFORE UPDATE ON {table.name} "
            f"WHEN {changed_keys} OR NOT ({allowed}) {refuse}"
        )
