"""`WorkflowCatalog` and `AssetCatalog` on SQLite: wfx's own version and asset-file tables."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine

from adapters.records import (
    build_asset_file_record,
    build_workflow_version_record,
    join_key,
    parse_asset_file_record,
    parse_workflow_version_record,
)
from adapters.sqlite.schema import SqliteSchema, build_schema
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
    def __init__(self, engine: Engine, tables: TableNames, key: ResourceKeys) -> None:
        self._engine = engine
        self._schema: SqliteSchema = build_schema(tables)
        self._table = TableSql.render(engine, self._schema[key])

    def create_tables(self) -> None:
        self._schema.create_all(self._engine)


class SqliteWorkflowCatalog(_SqliteCatalog):
    """Published workflow versions, one row per (workflow, version number)."""

    def __init__(self, engine: Engine, tables: TableNames) -> None:
        super().__init__(engine, tables, ResourceKeys.WORKFLOW_VERSIONS)
        t = self._table
        versions = f"SELECT item FROM {t.name} WHERE {t.q(WORKFLOW_KEY)} = ?"
        self._latest = f"{versions} ORDER BY {t.q(VERSION)} DESC LIMIT 1"
        self._one = f"{versions} AND {t.q(VERSION)} = ?"

    def add_version(self, version: WorkflowVersion) -> bool:
        with self._engine.begin() as connection:
            result = connection.exec_driver_sql(
                self._table.insert_if_absent,
                self._table.row(build_workflow_version_record(version)),
            )
            return bool(result.rowcount)

    def latest_version(self, database_id: str, workflow_id: str) -> WorkflowVersion | None:
        with self._engine.connect() as connection:
            row = connection.exec_driver_sql(
                self._latest, (join_key(database_id, workflow_id),)
            ).first()
        return parse_workflow_version_record(load_item(row[0])) if row else None

    def get_version(self, database_id: str, workflow_id: str, version: int) -> WorkflowVersion:
        with self._engine.connect() as connection:
            row = connection.exec_driver_sql(
                self._one, (join_key(database_id, workflow_id), version)
            ).first()
        if row is None:
            raise WorkflowNotFoundError(
                f"workflow {database_id}/{workflow_id} version {version} not found"
            )
        return parse_workflow_version_record(load_item(row[0]))


class SqliteAssetCatalog(_SqliteCatalog):
    """The current version of each asset file, one row per (asset, file key)."""

    def __init__(self, engine: Engine, tables: TableNames) -> None:
        super().__init__(engine, tables, ResourceKeys.ASSET_FILES)
        t = self._table
        self._files = (
            f"SELECT item FROM {t.name} WHERE {t.q(ASSET_KEY)} = ? ORDER BY {t.q(FILE_KEY)}"
        )

    def put_files(self, files: Sequence[AssetFile]) -> None:
        if not files:
            return
        with self._engine.begin() as connection:
            connection.exec_driver_sql(
                self._table.upsert, self._table.rows(build_asset_file_record(f) for f in files)
            )

    def list_files(self, database_id: str, asset_id: str) -> list[AssetFile]:
        with self._engine.connect() as connection:
            rows = connection.exec_driver_sql(self._files, (join_key(database_id, asset_id),))
            return [parse_asset_file_record(load_item(text)) for (text,) in rows]
