"""`WorkflowCatalog` and `AssetCatalog` on SQLite: wfx's own version and asset-file tables."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.records import (
    build_asset_file_record,
    build_workflow_version_record,
    join_key,
    parse_asset_file_record,
    parse_workflow_version_record,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import SqliteSchema, build_schema, create_tables
from adapters.sqlite.statements import TableSql, load_item
from adapters.tables import ResourceKeys, TableNames
from domain.assets import AssetFile
from domain.errors import WorkflowNotFoundError
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
