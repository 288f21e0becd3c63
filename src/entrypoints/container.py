"""The one dependency-injector container: the store and runner are picked by configuration.

Adapters are built through small factory functions that import their module on first use, so a
command on SQLite never imports boto3, and SQLAlchemy is imported only to create SQLite tables.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dependency_injector import containers, providers

from adapters.system import SystemClock, UuidGenerator
from adapters.tables import TableNames
from application.reporting import UseCaseRunReporter
from application.use_cases.complete_execution import CompleteExecution
from application.use_cases.get_execution_details import GetExecutionDetails
from application.use_cases.import_asset_files import ImportAssetFiles
from application.use_cases.launch_execution import LaunchExecution
from application.use_cases.list_executions import ListExecutions
from application.use_cases.publish_workflow_version import PublishWorkflowVersion
from application.use_cases.step_tracking import FinishStep, StartStep
from entrypoints.settings import Settings

if TYPE_CHECKING:
    from adapters.sqlite.database import SqliteDatabase
    from application.ports import (
        AssetCatalog,
        ExecutionStore,
        LogStore,
        ObjectStore,
        RunReporter,
        WorkflowCatalog,
    )

WORKER_COMMAND = (sys.executable, "-m", "entrypoints.cli.main", "internal-run-worker")


def _sqlite_database(path: str) -> SqliteDatabase:
    from adapters.sqlite.database import SqliteDatabase

    return SqliteDatabase(path)


def _sqlite_execution_store(database: SqliteDatabase, tables: TableNames) -> ExecutionStore:
    from adapters.sqlite.execution_store import SqliteExecutionStore

    return SqliteExecutionStore(database, tables)


def _sqlite_workflow_catalog(database: SqliteDatabase, tables: TableNames) -> WorkflowCatalog:
    from adapters.sqlite.catalogs import SqliteWorkflowCatalog

    return SqliteWorkflowCatalog(database, tables)


def _sqlite_asset_catalog(database: SqliteDatabase, tables: TableNames) -> AssetCatalog:
    from adapters.sqlite.catalogs import SqliteAssetCatalog

    return SqliteAssetCatalog(database, tables)


def _dynamodb_client(endpoint: str | None, region: str) -> Any:
    import boto3
    from botocore.config import Config

    # A hung endpoint must not hang a command for botocore's default 60 s read timeout.
    config = Config(
        connect_timeout=2, read_timeout=10, retries={"mode": "standard", "max_attempts": 3}
    )
    return boto3.client(
        "dynamodb", endpoint_url=endpoint or None, region_name=region, config=config
    )


def _dynamodb_execution_store(client: Any, tables: TableNames) -> ExecutionStore:
    from adapters.dynamodb.execution_store import DynamoDbExecutionStore

    return DynamoDbExecutionStore(client, tables)


def _dynamodb_workflow_catalog(client: Any, tables: TableNames) -> WorkflowCatalog:
    from adapters.dynamodb.catalogs import DynamoDbWorkflowCatalog

    return DynamoDbWorkflowCatalog(client, tables)


def _dynamodb_asset_catalog(client: Any, tables: TableNames) -> AssetCatalog:
    from adapters.dynamodb.catalogs import DynamoDbAssetCatalog

    return DynamoDbAssetCatalog(client, tables)


def _object_store(home: str) -> ObjectStore:
    from adapters.local.object_store import FilesystemObjectStore

    return FilesystemObjectStore(Path(home) / "objects")


def _log_store(home: str) -> LogStore:
    from adapters.local.log_store import FileLogStore

    return FileLogStore(Path(home) / "logs")


def _local_runner(
    store: ExecutionStore,
    catalog: WorkflowCatalog,
    objects: ObjectStore,
    logs: LogStore,
    reporter: RunReporter,
    home: str,
    mode: str,
) -> Any:
    from adapters.local.runner import LocalRunner

    return LocalRunner(
        store=store,
        catalog=catalog,
        objects=objects,
        logs=logs,
        reporter=reporter,
        work_dir=Path(home),
        mode=mode,
        detached_command=WORKER_COMMAND,
    )


class Container(containers.DeclarativeContainer):
    config = providers.Configuration()

    clock = providers.Singleton(SystemClock)
    ids = providers.Singleton(UuidGenerator)
    tables = providers.Singleton(TableNames.from_environment)

    sqlite_database = providers.Singleton(_sqlite_database, config.sqlite_path)
    dynamodb_client = providers.Singleton(_dynamodb_client, config.dynamodb_endpoint, config.region)

    execution_store = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_execution_store, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_execution_store, dynamodb_client, tables),
    )
    workflow_catalog = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_workflow_catalog, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_workflow_catalog, dynamodb_client, tables),
    )
    asset_catalog = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_asset_catalog, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_asset_catalog, dynamodb_client, tables),
    )
    object_store = providers.Singleton(_object_store, config.home)
    log_store = providers.Singleton(_log_store, config.home)

    start_step = providers.Factory(StartStep, store=execution_store, clock=clock)
    finish_step = providers.Factory(
        FinishStep, store=execution_store, objects=object_store, clock=clock
    )
    complete_execution = providers.Factory(
        CompleteExecution,
        store=execution_store,
        objects=object_store,
        assets=asset_catalog,
        logs=log_store,
        clock=clock,
    )
    run_reporter = providers.Singleton(
        UseCaseRunReporter,
        start_step=start_step,
        finish_step=finish_step,
        complete_execution=complete_execution,
    )
    orchestrator = providers.Singleton(
        _local_runner,
        store=execution_store,
        catalog=workflow_catalog,
        objects=object_store,
        logs=log_store,
        reporter=run_reporter,
        home=config.home,
        mode=config.runner_mode,
    )

    publish_workflow_version = providers.Factory(
        PublishWorkflowVersion, catalog=workflow_catalog, clock=clock
    )
    import_asset_files = providers.Factory(
        ImportAssetFiles, catalog=asset_catalog, objects=object_store, clock=clock
    )
    launch_execution = providers.Factory(
        LaunchExecution,
        store=execution_store,
        workflows=workflow_catalog,
        assets=asset_catalog,
        orchestrator=orchestrator,
        clock=clock,
        ids=ids,
    )
    get_execution_details = providers.Factory(GetExecutionDetails, store=execution_store)
    list_executions = providers.Factory(ListExecutions, store=execution_store)


def build_container(settings: Settings | None = None, runner_mode: str = "inline") -> Container:
    """A container configured from the environment (or the given settings)."""
    settings = settings or Settings.from_environment()
    container = Container()
    container.config.from_dict(
        {
            "store": settings.store,
            "home": str(settings.home),
            "sqlite_path": str(settings.sqlite_path),
            "dynamodb_endpoint": settings.dynamodb_endpoint,
            "region": settings.region,
            "runner_mode": runner_mode,
            "user": settings.user,
        }
    )
    return container


def create_all_tables(container: Container) -> None:
    """Every table of every store port; idempotent."""
    container.execution_store().create_tables()
    container.workflow_catalog().create_tables()
