"""`WorkflowCatalog` and `AssetCatalog` on SQLite: wfx's own version and asset-file tables."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from adapters.catalog_paging import (
    MAX_FILE_PAGE_SIZE,
    check_limit,
    decode_file_token,
    decode_version_token,
    encode_file_token,
    encode_version_token,
    page_of,
)
from adapters.records import (
    Item,
    build_asset_file_record,
    join_key,
    parse_asset_file_record,
    parse_workflow_version_record,
    step_definitions_key,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import SqliteSchema, build_schema, create_tables
from adapters.sqlite.statements import TableSql, chunks, json_path, load_item
from adapters.sqlite.workflow_tables import create_workflow_tables
from adapters.tables import ResourceKeys, TableNames
from domain.assets import AssetFile
from domain.errors import VersionImmutableError, WorkflowNotFoundError
from domain.paging import Page
from domain.workflow import WorkflowVersion

WORKFLOW_KEY = "workflowDatabaseId:workflowId"
VERSION = "workflowVersion"
STEPS_KEY = "workflowDatabaseId:workflowId:workflowVersion"
ASSET_KEY = "databaseId:assetId"
FILE_KEY = "fileKey"
MODIFIED_AT = "modifiedAt"


# Versions kept parsed per catalog: the workflows a process launches again and again.
_PARSED_KEPT = 64


class _SqliteCatalog:
    def __init__(self, database: SqliteDatabase, tables: TableNames, key: ResourceKeys) -> None:
        self._database = database
        self._schema: SqliteSchema = build_schema(tables)
        self._table = TableSql.render(self._schema[key])

    def create_tables(self) -> None:
        create_tables(self._database, self._schema)


class SqliteWorkflowCatalog(_SqliteCatalog):
    """Published workflow versions, one row per (workflow, version number), each with its step
    definitions' rows; written by SqliteWorkflowDefinitions.publish only."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        super().__init__(database, tables, ResourceKeys.WORKFLOW_VERSIONS)
        t = self._table
        self._steps = s = TableSql.render(self._schema[ResourceKeys.STEP_DEFINITIONS])
        versions = f"SELECT item FROM {t.name} WHERE {t.q(WORKFLOW_KEY)} = ?"
        self._latest = f"{versions} ORDER BY {t.q(VERSION)} DESC LIMIT 1"
        self._one = f"{versions} AND {t.q(VERSION)} = ?"
        self._deploy = (
            f"UPDATE {t.name} SET item = json_set(item, '$.stateMachineArn', ?) "
            f"WHERE {t.q(WORKFLOW_KEY)} = ? AND {t.q(VERSION)} = ? RETURNING item"
        )
        self._versions_page = {
            continued: f"{versions}{f' AND {t.q(VERSION)} < ?' if continued else ''} "
            f"ORDER BY {t.q(VERSION)} DESC LIMIT ?"
            for continued in (False, True)
        }
        self._step_partition = s.q(STEPS_KEY)
        # the same version row's text gives the same (immutable) version: see _with_steps
        self._parsed_versions: dict[str, WorkflowVersion] = {}
        self._parsed_lock = threading.Lock()

    def create_tables(self) -> None:
        create_workflow_tables(self._database, self._schema)

    def _with_steps(
        self, connection: sqlite3.Connection, texts: Sequence[str]
    ) -> list[WorkflowVersion]:
        """The versions of these rows: one parsed before from the same row text is that version
        still (its step rows never change: the tables' triggers refuse it, and its digest covers
        them), the others read with their step rows (one query for them all)."""
        versions: dict[str, WorkflowVersion] = {}
        for text in texts:
            known = self._parsed_versions.get(text)
            if known is not None:
                versions[text] = known
        missing = [text for text in texts if text not in versions]
        if missing:
            versions.update(self._parsed(connection, missing))
        return [versions[text] for text in texts]

    def _parsed(
        self, connection: sqlite3.Connection, texts: Sequence[str]
    ) -> dict[str, WorkflowVersion]:
        """The versions of these rows with their step rows, each kept by its row's text: every
        launch reads the newest version, and parsing the same rows again was most of its cost."""
        items = [load_item(text) for text in texts]
        keys = [
            step_definitions_key(
                i["workflowDatabaseId"], i["workflowId"], int(i["workflowVersion"])
            )
            for i in items
        ]
        by_version: dict[str, list[Item]] = {key: [] for key in keys}
        for chunk in chunks(keys):
            rows = connection.execute(self._steps.select_items_in(STEPS_KEY, len(chunk)), chunk)
            for (text,) in rows:
                step = load_item(text)
                by_version[step[STEPS_KEY]].append(step)
        parsed = {
            text: parse_workflow_version_record(item, by_version[key])
            for text, item, key in zip(texts, items, keys, strict=True)
        }
        with self._parsed_lock:  # a served catalog is read by many threads
            for text, version in parsed.items():
                self._parsed_versions[text] = version
                if len(self._parsed_versions) > _PARSED_KEPT:
                    del self._parsed_versions[next(iter(self._parsed_versions))]
        return parsed

    def _read(self, sql: str, parameters: Sequence[object]) -> list[WorkflowVersion]:
        # No BEGIN: the rows' query is a snapshot by itself, and the step rows read after it
        # (for a version not parsed before) were committed with its row and never change (the
        # triggers), so any later read finds them as they were published.
        with self._database.exclusive_connection() as connection:
            texts = [text for (text,) in connection.execute(sql, parameters)]
            return self._with_steps(connection, texts)

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion | None:
        found = self._read(self._latest, (join_key(database_id, workflow_id),))
        return found[0] if found else None

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion:
        found = self._read(self._one, (join_key(database_id, workflow_id), version))
        if not found:
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            )
        return found[0]

    def list_versions(
        self, database_id: str, workflow_id: str, limit: int, starting_token: str | None
    ) -> Page[WorkflowVersion]:
        check_limit(limit)
        after = (
            ()
            if starting_token is None
            else (decode_version_token(starting_token, database_id, workflow_id),)
        )
        sql = self._versions_page[bool(after)]
        # One row past the page says whether another page exists.
        versions = self._read(sql, (join_key(database_id, workflow_id), *after, limit + 1))
        return page_of(
            versions[:limit],
            len(versions) > limit,
            lambda last: encode_version_token(database_id, workflow_id, last.version),
        )

    def record_deployment(
        self, database_id: str, workflow_id: str, version: int, state_machine_arn: str
    ) -> WorkflowVersion:
        key = join_key(database_id, workflow_id)
        try:
            with self._database.write() as connection:
                row = connection.execute(self._deploy, (state_machine_arn, key, version)).fetchone()
                deployed = self._with_steps(connection, [row[0]]) if row else []
        except sqlite3.IntegrityError as refused:  # the immutability trigger: another ARN
            raise VersionImmutableError(
                f"workflow {database_id}/{workflow_id} version {version} is deployed already "
                "as another state machine; a published version never changes"
            ) from refused
        if not deployed:
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            )
        return deployed[0]


class SqliteAssetCatalog(_SqliteCatalog):
    """The current version of each asset file, one row per (asset, file key)."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        super().__init__(database, tables, ResourceKeys.ASSET_FILES)
        t = self._table
        self._files = (
            f"SELECT item FROM {t.name} WHERE {t.q(ASSET_KEY)} = ? ORDER BY {t.q(FILE_KEY)}"
        )
        self._files_page = {
            after: f"SELECT item FROM {t.name} WHERE {t.q(ASSET_KEY)} = ?"
            f"{f' AND {t.q(FILE_KEY)} > ?' if after else ''} ORDER BY {t.q(FILE_KEY)} LIMIT ?"
            for after in (False, True)
        }
        modified = json_path(MODIFIED_AT)
        # a stored row with a later modifiedAt stays (AssetCatalog.put_files says why)
        self._put_unless_newer = (
            f"{t.insert.removesuffix(';')} ON CONFLICT ({t.q(ASSET_KEY)}, {t.q(FILE_KEY)}) "
            f"DO UPDATE SET {t.q('item')} = excluded.{t.q('item')} "
            f"WHERE json_extract({t.name}.{t.q('item')}, {modified}) "
            f"<= json_extract(excluded.{t.q('item')}, {modified})"
        )

    def put_files(self, files: Sequence[AssetFile]) -> None:
        if not files:
            return
        rows = self._table.rows(build_asset_file_record(f) for f in files)
        with self._database.write() as connection:
            connection.executemany(self._put_unless_newer, rows)

    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        with self._database.read() as connection:
            rows = connection.execute(self._files, (join_key(database_id, asset_id),)).fetchall()
        return [parse_asset_file_record(load_item(text)) for (text,) in rows]

    def list_files_page(
        self, database_id: str, asset_id: str, limit: int, starting_token: str | None
    ) -> Page[AssetFile]:
        check_limit(limit, MAX_FILE_PAGE_SIZE)
        after = (
            ()
            if starting_token is None
            else (decode_file_token(starting_token, database_id, asset_id),)
        )
        # one row past the page says whether another page exists
        parameters = (join_key(database_id, asset_id), *after, limit + 1)
        with self._database.read() as connection:
            rows = connection.execute(self._files_page[bool(after)], parameters).fetchall()
        files = [parse_asset_file_record(load_item(text)) for (text,) in rows[:limit]]
        return page_of(
            files,
            len(rows) > limit,
            lambda last: encode_file_token(database_id, asset_id, last.file_key),
        )
