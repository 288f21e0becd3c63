"""`WorkflowCatalog` and `AssetCatalog` on SQLite: wfx's own version and asset-file tables."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.catalog_paging import (
    check_limit,
    decode_version_token,
    decode_workflow_token,
    encode_version_token,
    encode_workflow_token,
)
from adapters.records import (
    WORKFLOW_LIST_PARTITION,
    WORKFLOW_LIST_SEPARATOR,
    build_asset_file_record,
    build_workflow_version_record,
    join_key,
    parse_asset_file_record,
    parse_workflow_version_record,
    workflow_list_sort_key,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import SqliteSchema, build_schema, create_tables, index_columns
from adapters.sqlite.statements import TableSql, load_item, quote
from adapters.tables import WORKFLOW_LIST_INDEX, ResourceKeys, TableNames
from domain.assets import AssetFile
from domain.errors import WorkflowNotFoundError
from domain.paging import Page
from domain.workflow import WorkflowVersion

WORKFLOW_KEY = "workflowDatabaseId:workflowId"
VERSION = "workflowVersion"
ASSET_KEY = "databaseId:assetId"
FILE_KEY = "fileKey"


class _SqliteCatalog:
    def __init__(self, database: SqliteDatabase, tables: TableNames, key: ResourceKeys) -> None:
        self._database = database
        self._schema: SqliteSchema = build_schema(tables)
        self._table = TableSql.render(self._schema[key])

    def create_tables(self) -> None:
        create_tables(self._database, self._schema)


class SqliteWorkflowCatalog(_SqliteCatalog):
    """Published workflow versions, one row per (workflow, version number)."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        super().__init__(database, tables, ResourceKeys.WORKFLOW_VERSIONS)
        t = self._table
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
        index = self._table.table.spec.index(WORKFLOW_LIST_INDEX)
        partition, sort = t.q(index.partition.name), t.q(index.attributes[-1].name)
        # One statement per page: the index's items (version 1 of each workflow), each joined to
        # its workflow's highest version, which the primary key finds without a scan.
        self._workflows_page = {
            (filtered, continued): (
                f"SELECT latest.item FROM {t.name} AS v1 JOIN {t.name} AS latest "
                f"ON latest.{t.q(WORKFLOW_KEY)} = v1.{t.q(WORKFLOW_KEY)} "
                f"AND latest.{t.q(VERSION)} = (SELECT MAX({t.q(VERSION)}) FROM {t.name} "
                f"WHERE {t.q(WORKFLOW_KEY)} = v1.{t.q(WORKFLOW_KEY)}) "
                f"WHERE v1.{partition} = ?"
                + (f" AND v1.{sort} >= ? AND v1.{sort} < ?" if filtered else "")
                + (f" AND v1.{sort} > ?" if continued else "")
                + f" ORDER BY v1.{sort} LIMIT ?"
            )
            for filtered in (False, True)
            for continued in (False, True)
        }

    def create_tables(self) -> None:
        super().create_tables()
        self._add_list_index()

    def _add_list_index(self) -> None:
        """A versions table made before the workflow list index gets its key columns and index,
        and each version 1 its list keys, as `build_workflow_version_record` writes them now
        (create_all makes missing tables only, never a column or an index of an existing one)."""
        t = self._table
        index = t.table.spec.index(WORKFLOW_LIST_INDEX)
        with self._database.write() as connection:
            present = {row[1] for row in connection.execute(f"PRAGMA table_info({t.name})")}
            missing = [a.name for a in index.attributes if a.name not in present]
            if not missing:
                return
            for name in missing:
                connection.execute(f"ALTER TABLE {t.name} ADD COLUMN {t.q(name)} TEXT")
            columns = ", ".join(t.q(name) for name in index_columns(t.table.spec, index))
            connection.execute(
                f"CREATE INDEX IF NOT EXISTS {quote(t.table.index_name(WORKFLOW_LIST_INDEX))} "
                f"ON {t.name} ({columns})"
            )
            firsts = connection.execute(f"SELECT item FROM {t.name} WHERE {t.q(VERSION)} = 1")
            records = [
                build_workflow_version_record(parse_workflow_version_record(load_item(text)))
                for (text,) in firsts
            ]
            connection.executemany(t.upsert, t.rows(records))

    def list_workflows_sql(self, filtered: bool, continued: bool) -> str:
        """The statement behind one page of workflows (shown to EXPLAIN QUERY PLAN by tests)."""
        return self._workflows_page[(filtered, continued)]

    def add_version(self, version: WorkflowVersion) -> bool:
        row = self._table.row(build_workflow_version_record(version))
        with self._database.write() as connection:
            return bool(connection.execute(self._table.insert_if_absent, row).rowcount)

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion | None:
        with self._database.read() as connection:
            row = connection.execute(self._latest, (join_key(database_id, workflow_id),)).fetchone()
        return parse_workflow_version_record(load_item(row[0])) if row else None

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion:
        with self._database.read() as connection:
            row = connection.execute(
                self._one, (join_key(database_id, workflow_id), version)
            ).fetchone()
        if row is None:
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            )
        return parse_workflow_version_record(load_item(row[0]))

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
        with self._database.read() as connection:
            # One row past the page says whether another page exists.
            rows = connection.execute(
                sql, (join_key(database_id, workflow_id), *after, limit + 1)
            ).fetchall()
        versions = [parse_workflow_version_record(load_item(text)) for (text,) in rows]
        page = versions[:limit]
        next_token = None
        if len(versions) > limit:
            next_token = encode_version_token(database_id, workflow_id, page[-1].version)
        return Page(items=tuple(page), next_token=next_token)

    def list_workflows(
        self, limit: int, starting_token: str | None, database_id: str | None = None
    ) -> Page[WorkflowVersion]:
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
        sql = self.list_workflows_sql(database_id is not None, starting_token is not None)
        with self._database.read() as connection:
            rows = connection.execute(sql, (*parameters, limit + 1)).fetchall()
        latest = [parse_workflow_version_record(load_item(text)) for (text,) in rows]
        page = latest[:limit]
        next_token = None
        if len(latest) > limit:
            next_token = encode_workflow_token(page[-1].database_id, page[-1].workflow_id)
        return Page(items=tuple(page), next_token=next_token)

    def record_deployment(
        self, database_id: str, workflow_id: str, version: int, state_machine_arn: str
    ) -> WorkflowVersion:
        key = join_key(database_id, workflow_id)
        with self._database.write() as connection:
            row = connection.execute(self._deploy, (state_machine_arn, key, version)).fetchone()
        if row is None:
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            )
        return parse_workflow_version_record(load_item(row[0]))


class SqliteAssetCatalog(_SqliteCatalog):
    """The current version of each asset file, one row per (asset, file key)."""

    def __init__(self, database: SqliteDatabase, tables: TableNames) -> None:
        super().__init__(database, tables, ResourceKeys.ASSET_FILES)
        t = self._table
        self._files = (
            f"SELECT item FROM {t.name} WHERE {t.q(ASSET_KEY)} = ? ORDER BY {t.q(FILE_KEY)}"
        )

    def put_files(self, files: Sequence[AssetFile]) -> None:
        if not files:
            return
        rows = self._table.rows(build_asset_file_record(f) for f in files)
        with self._database.write() as connection:
            connection.executemany(self._table.upsert, rows)

    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        with self._database.read() as connection:
            rows = connection.execute(self._files, (join_key(database_id, asset_id),)).fetchall()
        return [parse_asset_file_record(load_item(text)) for (text,) in rows]
