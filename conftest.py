"""Storage adapter fixtures, shared by tests/ and features/ (a tests/conftest.py would hide them).

Each adapter comes as `<backend>_execution_store`, `<backend>_workflow_catalog`,
`<backend>_workflow_definitions`, `<backend>_asset_catalog` and `<backend>_authorization_store`
for backend in sqlite_file,
sqlite_memory and dynamodb; the stores of one backend in one test share one database. The
execution stores keep the bodies their item budgets move out of rows in `body_object_store`.
"""

from __future__ import annotations

import copy
import functools
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from tests.botocore_loader import share_the_data_loader
from tests.moto_attribute_values import write_attribute_values_as_they_are
from tests.moto_method_names import find_method_names_once
from tests.moto_serializer import cache_attribute_names
from tests.moto_transactions import back_up_only_the_named_items

from adapters.local.object_store import FilesystemObjectStore
from adapters.sqlite.authorization_store import SqliteAuthorizationStore
from adapters.sqlite.catalogs import SqliteAssetCatalog, SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from adapters.tables import TableNames

# On 2 shared cores an example can take a second: a property fails on what it finds, never on how
# long an example took (hypothesis's 200 ms deadline and its too-slow check made CI flaky).
settings.register_profile("wfx", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("wfx")


def pytest_configure(config: pytest.Config) -> None:
    _signals_as_a_terminal_sends_them()
    _one_moto_request_at_a_time()
    back_up_only_the_named_items()
    cache_attribute_names()
    write_attribute_values_as_they_are()
    share_the_data_loader()
    find_method_names_once()


def _signals_as_a_terminal_sends_them() -> None:
    """The tests signal wfx as a terminal signals a foreground command, which does not ignore
    SIGINT or SIGHUP. A suite started as a background job of a script (`make test &`), or under
    nohup, starts ignoring one of them, and so would every process it starts, which wfx then
    keeps ignoring as the one who started it asked: here the suite's processes, and those they
    start, take both as a foreground command does (xdist's workers start after this)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _one_moto_request_at_a_time() -> None:
    """In-process moto applies a request to its model with no lock: a runner's end of its run
    (a transaction) and its keeper's lease renewal (an UpdateItem), sent from two threads at
    once, interleaved their actions inside one item, and left it RUNNING with the end's stop
    date and error. DynamoDB applies the writes to an item one after the other, so the tests'
    moto does too: every request it answers holds one lock."""
    from moto.core.botocore_stubber import BotocoreStubber

    answer = BotocoreStubber.process_request
    if getattr(answer, "wfx_serialized", False):
        return
    lock = threading.RLock()

    def process_request(self: BotocoreStubber, request: Any) -> Any:
        with lock:
            return answer(self, request)

    process_request.wfx_serialized = True  # type: ignore[attr-defined]
    BotocoreStubber.process_request = process_request  # type: ignore[method-assign]


AWS_REGION = "us-east-1"
FAKE_AWS_ENVIRONMENT = {
    "AWS_DEFAULT_REGION": AWS_REGION,
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
}


# -- SQLite ----------------------------------------------------------------------------------


@pytest.fixture
def sqlite_file_database(tmp_path: Path) -> Iterator[SqliteDatabase]:
    database = SqliteDatabase(tmp_path / "wfx.db")
    yield database
    database.close()


@pytest.fixture
def sqlite_memory_database() -> Iterator[SqliteDatabase]:
    database = SqliteDatabase(None)
    yield database
    database.close()


class _WithTables(Protocol):
    def create_tables(self) -> None: ...


S = TypeVar("S", bound=_WithTables)


@functools.cache
def _sqlite_template() -> SqliteDatabase:
    """An in-memory database with every table, made once: each test's database starts as a copy
    (SQLite's backup, ~1 ms) where creating the tables costs ~40 ms; the store's own
    `create_tables` then finds them all and does the rest of its set-up as on any made file."""
    from adapters.sqlite.schema import build_schema, create_tables

    template = SqliteDatabase(None)
    create_tables(template, build_schema(TableNames()))
    return template


def sqlite_tables_from_template(database: SqliteDatabase) -> None:
    """An empty database gets every table, copied from the template; one with any is left."""
    with database.exclusive_connection() as connection:
        if connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None:
            with _sqlite_template().exclusive_connection() as template:
                template.backup(connection)  # only an empty one: another store may be on it


def _created(store: S, database: SqliteDatabase) -> S:
    sqlite_tables_from_template(database)
    store.create_tables()
    return store


@pytest.fixture
def body_object_store(tmp_path: Path) -> FilesystemObjectStore:
    return FilesystemObjectStore(tmp_path / "bodies")


@pytest.fixture
def sqlite_file_execution_store(
    sqlite_file_database: SqliteDatabase, body_object_store: FilesystemObjectStore
) -> SqliteExecutionStore:
    store = SqliteExecutionStore(sqlite_file_database, TableNames(), objects=body_object_store)
    return _created(store, sqlite_file_database)


@pytest.fixture
def sqlite_memory_execution_store(
    sqlite_memory_database: SqliteDatabase, body_object_store: FilesystemObjectStore
) -> SqliteExecutionStore:
    store = SqliteExecutionStore(sqlite_memory_database, TableNames(), objects=body_object_store)
    return _created(store, sqlite_memory_database)


@pytest.fixture
def sqlite_file_workflow_catalog(sqlite_file_database: SqliteDatabase) -> SqliteWorkflowCatalog:
    return _created(SqliteWorkflowCatalog(sqlite_file_database, TableNames()), sqlite_file_database)


@pytest.fixture
def sqlite_memory_workflow_catalog(sqlite_memory_database: SqliteDatabase) -> SqliteWorkflowCatalog:
    return _created(
        SqliteWorkflowCatalog(sqlite_memory_database, TableNames()), sqlite_memory_database
    )


@pytest.fixture
def sqlite_file_workflow_definitions(
    sqlite_file_database: SqliteDatabase,
) -> SqliteWorkflowDefinitions:
    return _created(
        SqliteWorkflowDefinitions(sqlite_file_database, TableNames()), sqlite_file_database
    )


@pytest.fixture
def sqlite_memory_workflow_definitions(
    sqlite_memory_database: SqliteDatabase,
) -> SqliteWorkflowDefinitions:
    return _created(
        SqliteWorkflowDefinitions(sqlite_memory_database, TableNames()), sqlite_memory_database
    )


@pytest.fixture
def sqlite_file_asset_catalog(sqlite_file_database: SqliteDatabase) -> SqliteAssetCatalog:
    return _created(SqliteAssetCatalog(sqlite_file_database, TableNames()), sqlite_file_database)


@pytest.fixture
def sqlite_memory_asset_catalog(sqlite_memory_database: SqliteDatabase) -> SqliteAssetCatalog:
    return _created(
        SqliteAssetCatalog(sqlite_memory_database, TableNames()), sqlite_memory_database
    )


@pytest.fixture
def sqlite_file_authorization_store(
    sqlite_file_database: SqliteDatabase,
) -> SqliteAuthorizationStore:
    return _created(
        SqliteAuthorizationStore(sqlite_file_database, TableNames()), sqlite_file_database
    )


@pytest.fixture
def sqlite_memory_authorization_store(
    sqlite_memory_database: SqliteDatabase,
) -> SqliteAuthorizationStore:
    return _created(
        SqliteAuthorizationStore(sqlite_memory_database, TableNames()), sqlite_memory_database
    )


@pytest.fixture
def sqlite_file_cost_ledger(sqlite_file_database: SqliteDatabase) -> Any:
    from adapters.sqlite.cost_ledger import SqliteCostLedger

    return _created(SqliteCostLedger(sqlite_file_database, TableNames()), sqlite_file_database)


@pytest.fixture
def sqlite_memory_cost_ledger(sqlite_memory_database: SqliteDatabase) -> Any:
    from adapters.sqlite.cost_ledger import SqliteCostLedger

    return _created(SqliteCostLedger(sqlite_memory_database, TableNames()), sqlite_memory_database)


# -- DynamoDB on moto ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _session_dynamodb_client() -> Any:
    """One boto3 client for the whole session: creating one costs ~60 ms under moto, while a
    fresh mock with all tables created costs ~45 ms. moto hooks every client created after it is
    imported, and answers only while a mock is active (see `moto_dynamodb_client`)."""
    import boto3
    from moto import mock_aws

    with pytest.MonkeyPatch.context() as patch, mock_aws():
        for name, value in FAKE_AWS_ENVIRONMENT.items():
            patch.setenv(name, value)
        return boto3.client(
            "dynamodb",
            region_name=AWS_REGION,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )


@pytest.fixture
def moto_dynamodb_client(
    _session_dynamodb_client: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """The shared client inside a fresh `mock_aws()`: moto starts from empty backends, so every
    test gets its own empty account."""
    from moto import mock_aws

    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield _session_dynamodb_client


@pytest.fixture(scope="session")
def _pristine_dynamodb_tables(_session_dynamodb_client: Any) -> dict[str, Any]:
    """moto's model of every table, empty, made once by `create_tables` through the API: a
    test's copy costs ~7 ms where creating the 21 tables again costs 150-400 ms."""
    from moto import mock_aws

    from adapters.dynamodb.schema import create_tables

    with pytest.MonkeyPatch.context() as patch, mock_aws():
        for name, value in FAKE_AWS_ENVIRONMENT.items():
            patch.setenv(name, value)
        create_tables(_session_dynamodb_client, TableNames())
        return dynamodb_tables_snapshot()


def _moto_dynamodb_backend() -> Any:
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    return dynamodb_backends[DEFAULT_ACCOUNT_ID][AWS_REGION]


def dynamodb_tables_snapshot() -> dict[str, Any]:
    """A copy of moto's model of every table as it is now (inside a `mock_aws()`): a module
    that writes its rows once restores them for each test instead of writing them again."""
    return copy.deepcopy(_moto_dynamodb_backend().tables)


def restore_dynamodb_tables(snapshot: dict[str, Any]) -> None:
    """Every table of `snapshot`, as it was taken, in the active `mock_aws()`."""
    _moto_dynamodb_backend().tables.update(copy.deepcopy(snapshot))


@pytest.fixture
def moto_dynamodb_tables(moto_dynamodb_client: Any, _pristine_dynamodb_tables: Any) -> Any:
    """The client of `moto_dynamodb_client` with every table of the default names already there
    and empty (`create_tables` then lists them and creates nothing)."""
    restore_dynamodb_tables(_pristine_dynamodb_tables)
    return moto_dynamodb_client


@pytest.fixture
def dynamodb_table_names(moto_dynamodb_tables: Any) -> TableNames:
    """Every table there and empty for each test; all DynamoDB stores of the test share them."""
    return TableNames()


@pytest.fixture
def dynamodb_execution_store(
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
    body_object_store: FilesystemObjectStore,
) -> Any:
    from adapters.dynamodb.execution_store import DynamoDbExecutionStore

    return DynamoDbExecutionStore(
        moto_dynamodb_client, dynamodb_table_names, objects=body_object_store
    )


@pytest.fixture
def dynamodb_workflow_catalog(moto_dynamodb_client: Any, dynamodb_table_names: TableNames) -> Any:
    from adapters.dynamodb.catalogs import DynamoDbWorkflowCatalog

    return DynamoDbWorkflowCatalog(moto_dynamodb_client, dynamodb_table_names)


@pytest.fixture
def dynamodb_workflow_definitions(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> Any:
    from adapters.dynamodb.workflow_definitions import DynamoDbWorkflowDefinitions

    return DynamoDbWorkflowDefinitions(moto_dynamodb_client, dynamodb_table_names)


@pytest.fixture
def dynamodb_asset_catalog(moto_dynamodb_client: Any, dynamodb_table_names: TableNames) -> Any:
    from adapters.dynamodb.catalogs import DynamoDbAssetCatalog

    return DynamoDbAssetCatalog(moto_dynamodb_client, dynamodb_table_names)


@pytest.fixture
def dynamodb_authorization_store(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> Any:
    from adapters.dynamodb.authorization_store import DynamoDbAuthorizationStore

    return DynamoDbAuthorizationStore(moto_dynamodb_client, dynamodb_table_names)


@pytest.fixture
def dynamodb_cost_ledger(moto_dynamodb_client: Any, dynamodb_table_names: TableNames) -> Any:
    from adapters.dynamodb.cost_ledger import DynamoDbCostLedger

    return DynamoDbCostLedger(moto_dynamodb_client, dynamodb_table_names)


# -- Object stores: the filesystem, and S3 on moto ------------------------------------------------

S3_BUCKET = "wfx-test-assets"


def s3_client(endpoint: str | None = None) -> Any:
    import boto3

    return boto3.client(
        "s3",
        region_name=AWS_REGION,
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def versioned_bucket(client: Any, name: str = S3_BUCKET) -> str:
    client.create_bucket(Bucket=name)
    client.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return name


@pytest.fixture(scope="session")
def _session_s3_client() -> Any:
    """One S3 client for the session, as for DynamoDB above: building one costs more than a
    test; moto answers it only inside a mock."""
    from moto import mock_aws

    with pytest.MonkeyPatch.context() as patch, mock_aws():
        for name, value in FAKE_AWS_ENVIRONMENT.items():
            patch.setenv(name, value)
        return s3_client()


@pytest.fixture
def moto_s3_client(_session_s3_client: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The shared client in a fresh `mock_aws()`, with the versioned bucket S3_BUCKET. Not for
    a test that also uses `moto_dynamodb_client`: a second mock would empty the first's tables."""
    from moto import mock_aws

    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        versioned_bucket(_session_s3_client)
        yield _session_s3_client


@pytest.fixture
def filesystem_object_store(tmp_path: Path) -> Any:
    from adapters.local.object_store import FilesystemObjectStore

    return FilesystemObjectStore(tmp_path / "objects", bucket=S3_BUCKET)


@pytest.fixture
def s3_object_store(tmp_path: Path, moto_s3_client: Any) -> Any:
    from adapters.aws.s3_object_store import S3ObjectStore

    return S3ObjectStore(lambda: moto_s3_client, S3_BUCKET, tmp_path / "scratch")


@pytest.fixture(params=["sqlite", "dynamodb"])
def inline_container(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """The whole application on each store (DynamoDB on moto), runs executed inline."""
    from dependency_injector import providers

    from entrypoints.container import build_container, create_all_tables
    from entrypoints.settings import Settings

    settings = Settings(
        store=request.param,
        home=tmp_path,
        sqlite_path=tmp_path / "wfx.db",
        dynamodb_endpoint=None,
        region="us-east-1",
        user="alice",
    )
    container = build_container(settings, runner_mode="inline")
    if request.param == "dynamodb":
        client: Any = request.getfixturevalue("moto_dynamodb_tables")
        container.dynamodb_client.override(providers.Object(client))
    else:
        sqlite_tables_from_template(container.sqlite_database())
    create_all_tables(container)
    yield container


# -- The list-partition backfill and the run archive (store-to-store copy) ------------------------


@pytest.fixture
def sqlite_file_list_partition_backfill(
    sqlite_file_database: SqliteDatabase, sqlite_file_execution_store: SqliteExecutionStore
) -> Any:
    """On the execution store's database (which has made the tables)."""
    from adapters.sqlite.list_partition import SqliteListPartitionBackfill

    return SqliteListPartitionBackfill(sqlite_file_database, TableNames())


@pytest.fixture
def sqlite_memory_list_partition_backfill(
    sqlite_memory_database: SqliteDatabase, sqlite_memory_execution_store: SqliteExecutionStore
) -> Any:
    from adapters.sqlite.list_partition import SqliteListPartitionBackfill

    return SqliteListPartitionBackfill(sqlite_memory_database, TableNames())


@pytest.fixture
def dynamodb_list_partition_backfill(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames
) -> Any:
    from adapters.dynamodb.list_partition import DynamoDbListPartitionBackfill

    return DynamoDbListPartitionBackfill(moto_dynamodb_client, dynamodb_table_names)


@pytest.fixture
def sqlite_file_run_archive(
    sqlite_file_database: SqliteDatabase,
    sqlite_file_execution_store: SqliteExecutionStore,
    body_object_store: FilesystemObjectStore,
) -> Any:
    from adapters.sqlite.run_archive import SqliteRunArchive

    return SqliteRunArchive(sqlite_file_database, TableNames(), body_object_store)


@pytest.fixture
def sqlite_memory_run_archive(
    sqlite_memory_database: SqliteDatabase,
    sqlite_memory_execution_store: SqliteExecutionStore,
    body_object_store: FilesystemObjectStore,
) -> Any:
    from adapters.sqlite.run_archive import SqliteRunArchive

    return SqliteRunArchive(sqlite_memory_database, TableNames(), body_object_store)


@pytest.fixture
def dynamodb_run_archive(
    moto_dynamodb_client: Any,
    dynamodb_table_names: TableNames,
    body_object_store: FilesystemObjectStore,
) -> Any:
    from adapters.dynamodb.run_archive import DynamoDbRunArchive

    return DynamoDbRunArchive(moto_dynamodb_client, dynamodb_table_names, body_object_store)
