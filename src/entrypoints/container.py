"""The one dependency-injector container: the store and runner are picked by configuration.

Adapters are built through small factory functions that import their module on first use, so a
command on SQLite never imports boto3, and SQLAlchemy is imported only to create SQLite tables;
the use cases are stand-ins that import theirs when first built (the `else` of TYPE_CHECKING
below), so mypy checks the real classes and a command imports only the use cases it builds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any, cast

from adapters.item_shapes_version import ITEM_SHAPES_VERSION
from adapters.system import SystemClock, UuidGenerator
from adapters.tables import CREATED_TABLES, TableNames
from domain.redaction import configure_redaction
from entrypoints import registration_wiring, sub_process_controllers
from entrypoints.aws_clients import aws_client
from entrypoints.dependency_injection import containers, deferred, providers
from entrypoints.settings import Settings, TableSettings

if TYPE_CHECKING:
    from adapters.identity.local_tokens import LocalTokenIssuer
    from adapters.sqlite.database import SqliteDatabase
    from application.authorization import AccessControl, AccessFactsCache
    from application.available_logs import AvailableLogFinder
    from application.orchestrator_router import OrchestratorRouter
    from application.ports.access import (
        AuditLog,
        AuthorizationStore,
        Authorizer,
        RevokedTokens,
        TokenVerifier,
    )
    from application.ports.approvals import Approvals
    from application.ports.costs import CostLedger
    from application.ports.executions import ExecutionEvents, ExecutionStore
    from application.ports.files import (
        AssetCatalog,
        HandlerLocator,
        LogStore,
        ObjectStore,
        RunFiles,
    )
    from application.ports.logs import LogReader, RunLogSource, StateMachineLogReader
    from application.ports.migration import (
        ItemShapes,
        LegacyExecutions,
        ListPartitionBackfill,
        MigratedRuns,
        RunArchive,
    )
    from application.ports.orchestration import (
        Orchestrator,
        RunnerLiveness,
        RunReporter,
        StateMachineDeployer,
        TaskCallbacks,
    )
    from application.ports.sub_executions import SubExecutionReader
    from application.ports.system import Clock
    from application.ports.workflows import WorkflowCatalog, WorkflowDefinitions
    from application.reporting import UseCaseRunReporter
    from application.result_texts import ResultTextReader
    from application.run_log_sources import StateMachineRunLog
    from application.sub_execution_status import SubExecutionStatus
    from application.use_cases.abort_execution import AbortExecution
    from application.use_cases.administer_roles import AdministerRoles
    from application.use_cases.approvals import (
        CloseOverdueGate,
        DecideApproval,
        GateResumer,
        GetApproval,
        ListApprovals,
        PassApprovalGate,
    )
    from application.use_cases.backfill_list_partition import BackfillListPartition
    from application.use_cases.complete_execution import CompleteExecution
    from application.use_cases.delete_execution import DeleteExecution
    from application.use_cases.deploy_workflow_version import (
        DeploymentConfiguration,
        DeployWorkflowVersion,
    )
    from application.use_cases.describe_execution import DescribeExecution
    from application.use_cases.end_gate_step import EndGateStep
    from application.use_cases.export_executions import ExportExecutions
    from application.use_cases.get_execution import GetExecution
    from application.use_cases.get_execution_details import GetExecutionDetails
    from application.use_cases.get_execution_events import GetExecutionEvents
    from application.use_cases.get_execution_logs import GetExecutionLogs
    from application.use_cases.get_execution_metadata import GetExecutionMetadata
    from application.use_cases.get_execution_progress import GetExecutionProgress
    from application.use_cases.hand_on_step import HandOnStep
    from application.use_cases.handle_execution_error import HandleExecutionError
    from application.use_cases.import_asset_files import ImportAssetFiles
    from application.use_cases.import_costs import ImportCosts
    from application.use_cases.import_executions import ImportExecutions
    from application.use_cases.launch_execution import LaunchExecution
    from application.use_cases.list_executions import ListExecutions
    from application.use_cases.list_readable_executions import ListReadableExecutions
    from application.use_cases.list_readable_workflows import ListReadableWorkflows
    from application.use_cases.list_workflows import ListWorkflows, ListWorkflowVersions
    from application.use_cases.migrate_items import MigrateItems
    from application.use_cases.migrate_v1 import MigrateV1
    from application.use_cases.open_task_gate import OpenTaskGate
    from application.use_cases.publish_registration import PublishRegistration
    from application.use_cases.publish_workflow_version import PublishWorkflowVersion
    from application.use_cases.read_asset_input_keys import ReadAssetInputKeys
    from application.use_cases.read_assets import ListAssetFiles, ReadAssetFile
    from application.use_cases.read_output_file import ReadOutputFile
    from application.use_cases.read_output_targets import ReadOutputTargets
    from application.use_cases.reconcile_execution import ReconcileExecution
    from application.use_cases.record_cost import RecordAttemptDurations, RecordCost
    from application.use_cases.redrive_execution import RedriveExecution
    from application.use_cases.register_pipeline_execution import RegisterPipelineExecution
    from application.use_cases.rerun_execution import RerunExecution
    from application.use_cases.resolve_execution_id import ResolveExecutionId
    from application.use_cases.retry_step import RetryStep
    from application.use_cases.revoke_tokens import RevokeTokens
    from application.use_cases.runner_lease import RunnerLease
    from application.use_cases.show_workflow import ShowWorkflow
    from application.use_cases.step_tracking import FinishStep, StartStep
    from application.use_cases.summarize_costs import SummarizeCosts
    from application.use_cases.sweep_aborts import SweepAborts
    from application.use_cases.verify_executions import VerifyExecutions
    from domain.costs import RateCard
else:
    # The use cases and services the container builds, each a stand-in that imports its module
    # when first called: a command imports the ones it builds, not the ~50 modules of them all.
    AccessControl = deferred("application.authorization", "AccessControl")
    AccessFactsCache = deferred("application.authorization", "AccessFactsCache")
    AvailableLogFinder = deferred("application.available_logs", "AvailableLogFinder")
    ResultTextReader = deferred("application.result_texts", "ResultTextReader")
    StateMachineRunLog = deferred("application.run_log_sources", "StateMachineRunLog")
    OrchestratorRouter = deferred("application.orchestrator_router", "OrchestratorRouter")
    UseCaseRunReporter = deferred("application.reporting", "UseCaseRunReporter")
    SubExecutionStatus = deferred("application.sub_execution_status", "SubExecutionStatus")
    AbortExecution = deferred("application.use_cases.abort_execution", "AbortExecution")
    AdministerRoles = deferred("application.use_cases.administer_roles", "AdministerRoles")
    RevokeTokens = deferred("application.use_cases.revoke_tokens", "RevokeTokens")
    CloseOverdueGate = deferred("application.use_cases.approvals", "CloseOverdueGate")
    DecideApproval = deferred("application.use_cases.approvals", "DecideApproval")
    GateResumer = deferred("application.use_cases.approvals", "GateResumer")
    GetApproval = deferred("application.use_cases.approvals", "GetApproval")
    ListApprovals = deferred("application.use_cases.approvals", "ListApprovals")
    PassApprovalGate = deferred("application.use_cases.approvals", "PassApprovalGate")
    BackfillListPartition = deferred(
        "application.use_cases.backfill_list_partition", "BackfillListPartition"
    )
    CompleteExecution = deferred("application.use_cases.complete_execution", "CompleteExecution")
    DeleteExecution = deferred("application.use_cases.delete_execution", "DeleteExecution")
    DeploymentConfiguration = deferred(
        "application.use_cases.deploy_workflow_version", "DeploymentConfiguration"
    )
    DeployWorkflowVersion = deferred(
        "application.use_cases.deploy_workflow_version", "DeployWorkflowVersion"
    )
    DescribeExecution = deferred("application.use_cases.describe_execution", "DescribeExecution")
    EndGateStep = deferred("application.use_cases.end_gate_step", "EndGateStep")
    ExportExecutions = deferred("application.use_cases.export_executions", "ExportExecutions")
    GetExecution = deferred("application.use_cases.get_execution", "GetExecution")
    GetExecutionDetails = deferred(
        "application.use_cases.get_execution_details", "GetExecutionDetails"
    )
    GetExecutionEvents = deferred(
        "application.use_cases.get_execution_events", "GetExecutionEvents"
    )
    GetExecutionLogs = deferred("application.use_cases.get_execution_logs", "GetExecutionLogs")
    GetExecutionMetadata = deferred(
        "application.use_cases.get_execution_metadata", "GetExecutionMetadata"
    )
    GetExecutionProgress = deferred(
        "application.use_cases.get_execution_progress", "GetExecutionProgress"
    )
    HandleExecutionError = deferred(
        "application.use_cases.handle_execution_error", "HandleExecutionError"
    )
    ImportAssetFiles = deferred("application.use_cases.import_asset_files", "ImportAssetFiles")
    ImportCosts = deferred("application.use_cases.import_costs", "ImportCosts")
    ImportExecutions = deferred("application.use_cases.import_executions", "ImportExecutions")
    LaunchExecution = deferred("application.use_cases.launch_execution", "LaunchExecution")
    ListExecutions = deferred("application.use_cases.list_executions", "ListExecutions")
    ListReadableExecutions = deferred(
        "application.use_cases.list_readable_executions", "ListReadableExecutions"
    )
    ReadAssetInputKeys = deferred(
        "application.use_cases.read_asset_input_keys", "ReadAssetInputKeys"
    )
    ReadOutputTargets = deferred("application.use_cases.read_output_targets", "ReadOutputTargets")
    ListReadableWorkflows = deferred(
        "application.use_cases.list_readable_workflows", "ListReadableWorkflows"
    )
    ListWorkflows = deferred("application.use_cases.list_workflows", "ListWorkflows")
    ListWorkflowVersions = deferred("application.use_cases.list_workflows", "ListWorkflowVersions")
    MigrateItems = deferred("application.use_cases.migrate_items", "MigrateItems")
    MigrateV1 = deferred("application.use_cases.migrate_v1", "MigrateV1")
    OpenTaskGate = deferred("application.use_cases.open_task_gate", "OpenTaskGate")
    PublishRegistration = deferred(
        "application.use_cases.publish_registration", "PublishRegistration"
    )
    PublishWorkflowVersion = deferred(
        "application.use_cases.publish_workflow_version", "PublishWorkflowVersion"
    )
    ListAssetFiles = deferred("application.use_cases.read_assets", "ListAssetFiles")
    ReadAssetFile = deferred("application.use_cases.read_assets", "ReadAssetFile")
    ReadOutputFile = deferred("application.use_cases.read_output_file", "ReadOutputFile")
    ReconcileExecution = deferred("application.use_cases.reconcile_execution", "ReconcileExecution")
    RecordAttemptDurations = deferred("application.use_cases.record_cost", "RecordAttemptDurations")
    RecordCost = deferred("application.use_cases.record_cost", "RecordCost")
    RedriveExecution = deferred("application.use_cases.redrive_execution", "RedriveExecution")
    RerunExecution = deferred("application.use_cases.rerun_execution", "RerunExecution")
    RegisterPipelineExecution = deferred(
        "application.use_cases.register_pipeline_execution", "RegisterPipelineExecution"
    )
    ResolveExecutionId = deferred(
        "application.use_cases.resolve_execution_id", "ResolveExecutionId"
    )
    RetryStep = deferred("application.use_cases.retry_step", "RetryStep")
    RunnerLease = deferred("application.use_cases.runner_lease", "RunnerLease")
    ShowWorkflow = deferred("application.use_cases.show_workflow", "ShowWorkflow")
    FinishStep = deferred("application.use_cases.step_tracking", "FinishStep")
    HandOnStep = deferred("application.use_cases.hand_on_step", "HandOnStep")
    StartStep = deferred("application.use_cases.step_tracking", "StartStep")
    SummarizeCosts = deferred("application.use_cases.summarize_costs", "SummarizeCosts")
    SweepAborts = deferred("application.use_cases.sweep_aborts", "SweepAborts")
    VerifyExecutions = deferred("application.use_cases.verify_executions", "VerifyExecutions")

WORKER_COMMAND = (sys.executable, "-m", "entrypoints.cli.main", "internal-run-worker")


def _sqlite_database(path: str, tables: TableNames) -> SqliteDatabase:
    from adapters.sqlite.database import SqliteDatabase

    database = SqliteDatabase(path)
    # a file an earlier wfx wrote moves to the current shapes; one at them costs a PRAGMA read,
    # not the import of every table's builders and parsers
    if database.path is not None and database.user_version() < ITEM_SHAPES_VERSION:
        from adapters.sqlite.item_upgrade import upgrade_items
        from adapters.sqlite.schema import build_schema

        upgrade_items(database, build_schema(tables))
    return database


def _sqlite_execution_store(
    database: SqliteDatabase, tables: TableNames, objects: ObjectStore
) -> ExecutionStore:
    from adapters.sqlite.execution_store import SqliteExecutionStore

    return SqliteExecutionStore(database, tables, objects=objects)


def _sqlite_migrated_runs(database: SqliteDatabase, tables: TableNames) -> MigratedRuns:
    from adapters.sqlite.migrated_runs import SqliteMigratedRuns

    return SqliteMigratedRuns(database, tables)


def _sqlite_item_shapes(database: SqliteDatabase, tables: TableNames) -> ItemShapes:
    from adapters.sqlite.item_upgrade import SqliteItemShapes
    from adapters.sqlite.schema import build_schema

    return SqliteItemShapes(database, build_schema(tables))


def _dynamodb_item_shapes(client: Any, tables: TableNames) -> ItemShapes:
    from adapters.dynamodb.item_upgrade import DynamoDbItemShapes

    return DynamoDbItemShapes(client, tables)


def _dynamodb_migrated_runs(client: Any, tables: TableNames) -> MigratedRuns:
    from adapters.dynamodb.migrated_runs import DynamoDbMigratedRuns

    return DynamoDbMigratedRuns(client, tables)


def _legacy_executions(client: Callable[[], Any]) -> LegacyExecutions:
    from adapters.aws.legacy_executions import StepFunctionsLegacyExecutions

    return StepFunctionsLegacyExecutions(_BuiltOnFirstUse(client))


class _BuiltOnFirstUse:
    """A collaborator built on its first use: a migration with nothing open never builds its
    client; a list of finished runs never builds what reconciling an open one needs."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build, self._built = build, None

    def __getattr__(self, name: str) -> Any:
        if self._built is None:
            self._built = self._build()
        return getattr(self._built, name)


def _sqlite_list_partition_backfill(
    database: SqliteDatabase, tables: TableNames
) -> ListPartitionBackfill:
    from adapters.sqlite.list_partition import SqliteListPartitionBackfill

    return SqliteListPartitionBackfill(database, tables)


def _dynamodb_list_partition_backfill(client: Any, tables: TableNames) -> ListPartitionBackfill:
    from adapters.dynamodb.list_partition import DynamoDbListPartitionBackfill

    return DynamoDbListPartitionBackfill(client, tables)


def _sqlite_run_archive(
    database: SqliteDatabase, tables: TableNames, objects: ObjectStore
) -> RunArchive:
    from adapters.sqlite.run_archive import SqliteRunArchive

    return SqliteRunArchive(database, tables, objects)


def _dynamodb_run_archive(client: Any, tables: TableNames, objects: ObjectStore) -> RunArchive:
    from adapters.dynamodb.run_archive import DynamoDbRunArchive

    return DynamoDbRunArchive(client, tables, objects)


def _sqlite_workflow_catalog(database: SqliteDatabase, tables: TableNames) -> WorkflowCatalog:
    from adapters.sqlite.catalogs import SqliteWorkflowCatalog

    return SqliteWorkflowCatalog(database, tables)


def _sqlite_workflow_definitions(
    database: SqliteDatabase, tables: TableNames
) -> WorkflowDefinitions:
    from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions

    return SqliteWorkflowDefinitions(database, tables)


def _sqlite_asset_catalog(database: SqliteDatabase, tables: TableNames) -> AssetCatalog:
    from adapters.sqlite.catalogs import SqliteAssetCatalog

    return SqliteAssetCatalog(database, tables)


def _dynamodb_execution_store(
    client: Any, tables: TableNames, objects: ObjectStore
) -> ExecutionStore:
    from adapters.dynamodb.execution_store import DynamoDbExecutionStore

    return DynamoDbExecutionStore(client, tables, objects=objects)


def _sqlite_event_log(
    database: SqliteDatabase, tables: TableNames, objects: ObjectStore
) -> ExecutionEvents:
    from adapters.item_budget import OffloadedBodies
    from adapters.sqlite.schema import build_schema
    from adapters.sqlite.unit_of_work import SqliteUnitOfWork

    return SqliteUnitOfWork(database, build_schema(tables), OffloadedBodies(objects))


def _dynamodb_event_log(client: Any, tables: TableNames, objects: ObjectStore) -> ExecutionEvents:
    from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork
    from adapters.item_budget import OffloadedBodies

    return DynamoDbUnitOfWork(client, tables, OffloadedBodies(objects))


def _dynamodb_workflow_catalog(client: Any, tables: TableNames) -> WorkflowCatalog:
    from adapters.dynamodb.catalogs import DynamoDbWorkflowCatalog

    return DynamoDbWorkflowCatalog(client, tables)


def _dynamodb_workflow_definitions(client: Any, tables: TableNames) -> WorkflowDefinitions:
    from adapters.dynamodb.workflow_definitions import DynamoDbWorkflowDefinitions

    return DynamoDbWorkflowDefinitions(client, tables)


def _dynamodb_asset_catalog(client: Any, tables: TableNames) -> AssetCatalog:
    from adapters.dynamodb.catalogs import DynamoDbAssetCatalog

    return DynamoDbAssetCatalog(client, tables)


def _sqlite_authorization_store(database: SqliteDatabase, tables: TableNames) -> AuthorizationStore:
    from adapters.sqlite.authorization_store import SqliteAuthorizationStore

    return SqliteAuthorizationStore(database, tables)


def _dynamodb_authorization_store(client: Any, tables: TableNames) -> AuthorizationStore:
    from adapters.dynamodb.authorization_store import DynamoDbAuthorizationStore

    return DynamoDbAuthorizationStore(client, tables)


def _sqlite_cost_ledger(database: SqliteDatabase, tables: TableNames) -> CostLedger:
    from adapters.sqlite.cost_ledger import SqliteCostLedger

    return SqliteCostLedger(database, tables)


def _dynamodb_cost_ledger(client: Any, tables: TableNames) -> CostLedger:
    from adapters.dynamodb.cost_ledger import DynamoDbCostLedger

    return DynamoDbCostLedger(client, tables)


def _sqlite_approvals(database: SqliteDatabase, tables: TableNames) -> Approvals:
    from adapters.sqlite.approvals import SqliteApprovals
    from adapters.sqlite.schema import build_schema

    return SqliteApprovals(database, build_schema(tables))


def _dynamodb_approvals(client: Any, tables: TableNames) -> Approvals:
    from adapters.dynamodb.approvals import DynamoDbApprovals

    return DynamoDbApprovals(client, tables)


def _rate_card(configured: str | None, home: str) -> RateCard:
    from adapters.rate_card_file import load_rate_card

    return load_rate_card(configured, home)


def _casbin_authorizer(store: AuthorizationStore) -> Authorizer:
    from adapters.authz.casbin_authorizer import CasbinAuthorizer  # casbin loads on first use

    return CasbinAuthorizer(store)


def _file_audit_log(home: str, clock: Clock) -> AuditLog:
    from adapters.authz.audit_log import AUDIT_FILE, JsonLinesAuditLog

    return JsonLinesAuditLog(Path(home) / AUDIT_FILE, clock)


def _logging_audit_log(clock: Clock) -> AuditLog:
    from adapters.authz.audit_log import LoggingAuditLog

    return LoggingAuditLog(clock)


def _stepfunctions_task_callbacks(client: Any) -> TaskCallbacks:
    from adapters.aws.stepfunctions import StepFunctionsTaskCallbacks

    return StepFunctionsTaskCallbacks(client)


def _stepfunctions_orchestrator(client: Any, callbacks: TaskCallbacks) -> Orchestrator:
    from adapters.aws.stepfunctions import StepFunctionsOrchestrator

    return StepFunctionsOrchestrator(client, callbacks)


def _stepfunctions_deployer(client: Any) -> StateMachineDeployer:
    from adapters.aws.stepfunctions import StepFunctionsDeployer

    return StepFunctionsDeployer(client)


def _filesystem_object_store(home: str) -> ObjectStore:
    from adapters.local.object_store import FilesystemObjectStore

    return FilesystemObjectStore(Path(home) / "objects")


def _s3_object_store(s3_client: Callable[[], Any], bucket: str, home: str) -> ObjectStore:
    from adapters.aws.s3_object_store import S3ObjectStore

    # the client is built (and the bucket checked) on the first read or write
    return S3ObjectStore(s3_client, bucket, Path(home) / "scratch" / "s3" / bucket)


def _handler_locator() -> HandlerLocator:
    from adapters.local.handler_locator import ImportPathHandlerLocator

    return ImportPathHandlerLocator()


def _log_store(home: str) -> LogStore:
    from adapters.local.log_store import FileLogStore

    return FileLogStore(Path(home) / "logs")


def _run_files(home: str) -> RunFiles:
    from adapters.local.run_files import LocalRunFiles

    # the local runner's run folders and the FileLogStore's step logs
    return LocalRunFiles(Path(home))


def _token_verifier(
    jwks: str | None,
    issuer: str | None,
    audience: str | None,
    home: str,
    revoked: RevokedTokens,
) -> TokenVerifier:
    from adapters.identity.revocation import RevocationCheckingVerifier
    from entrypoints.identity_wiring import jwt_verifier
    from entrypoints.settings import JwtSettings

    verifier = jwt_verifier(JwtSettings(jwks=jwks, issuer=issuer, audience=audience), home)
    return RevocationCheckingVerifier(verifier, revoked)


def _token_issuer(home: str) -> LocalTokenIssuer:
    from entrypoints.identity_wiring import local_token_issuer

    return local_token_issuer(home)


def _local_log_reader(home: str) -> LogReader:
    from adapters.local.log_reader import LocalFileLogReader

    # the FileLogStore's root; the key signs page tokens that say where a next page may resume
    return LocalFileLogReader(Path(home) / "logs", page_key=Path(home) / "log-pages.key")


def _cloudwatch_log_reader(logs_client: Callable[[], Any]) -> LogReader:
    from adapters.aws.cloudwatch_logs import CloudWatchLogReader

    return CloudWatchLogReader(logs_client)  # the client is built on its first read


def _state_machine_log_reader(logs_client: Callable[[], Any]) -> StateMachineLogReader:
    from adapters.aws.cloudwatch_logs import CloudWatchLogReader

    return CloudWatchLogReader(logs_client)


def _local_runner(
    store: ExecutionStore,
    catalog: WorkflowCatalog,
    objects: ObjectStore,
    logs: LogStore,
    reporter: RunReporter,
    home: str,
    mode: str,
    grace_seconds: float,
    lease_seconds: float,
    sleep: Callable[[float], None] | None = None,
    backoff: Callable[[float], None] | None = None,
    registrar: Callable[..., object] | None = None,
    registration_token: Callable[[str, str], str] | None = None,
    step_user: str | None = None,
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
        registrar=registrar,
        registration_token=registration_token,
        sleep=sleep,
        backoff=backoff,
        grace_seconds=grace_seconds,
        lease_seconds=lease_seconds,
        step_user=_step_user(step_user, Path(home)) if step_user else None,
    )


def _local_runner_liveness(home: str) -> RunnerLiveness:
    from adapters.local.runner_liveness import LocalRunnerLiveness

    return LocalRunnerLiveness(home)


def _runs_log_group_arn(deployment: Mapping[str, str] | None) -> str:
    """The runs' log group (WFX_SFN_LOG_GROUP_ARN), "" where none is configured."""
    return (deployment or {}).get("WFX_SFN_LOG_GROUP_ARN", "")


def _step_user(name: str, home: Path) -> Any:
    """WFX_STEP_USER as the runner takes it, in every process that runs steps (a `wfx run`, a
    worker, the service): the user checked, and WFX_HOME closed to it before any step runs."""
    from adapters.local.step_user import StepUser, can_switch_users, lock_home
    from domain.errors import InvalidInputError

    user = StepUser.named(name)
    refusal = can_switch_users()
    if refusal is not None:
        raise InvalidInputError(f"WFX_STEP_USER: {refusal}")
    lock_home(home)
    return user


def _deployment_configuration(
    deployment: Mapping[str, str] | None, name_prefix: str
) -> DeploymentConfiguration:
    """Read when a deploy is built, so only a deploy needs the WFX_SFN_* / WFX_LAMBDA_* settings."""
    from application.state_machines import HandlerArns
    from entrypoints.settings import deployment_setting

    return DeploymentConfiguration(
        role_arn=deployment_setting(deployment, "WFX_SFN_ROLE_ARN"),
        log_group_arn=deployment_setting(deployment, "WFX_SFN_LOG_GROUP_ARN"),
        handlers=HandlerArns(
            tracking=deployment_setting(deployment, "WFX_LAMBDA_TRACKING_ARN"),
            completion=deployment_setting(deployment, "WFX_LAMBDA_COMPLETION_ARN"),
            error=deployment_setting(deployment, "WFX_LAMBDA_ERROR_ARN"),
        ),
        name_prefix=name_prefix,
    )


def _run_log_router(
    log_store: LogStore, state_machine_run_log: Callable[[], RunLogSource]
) -> RunLogSource:
    """A run's log by its orchestrator; imported when first built (a request that ends no run
    never does)."""
    from application.run_log_sources import STEP_FUNCTIONS, LocalRunLog, RunLogRouter

    return RunLogRouter(
        local=LocalRunLog(log_store), by_orchestrator={STEP_FUNCTIONS: state_machine_run_log}
    )


def _sub_execution_reader(
    stepfunctions_client: Callable[[], Any], batch_client: Callable[[], Any]
) -> SubExecutionReader:
    from adapters.aws.sub_executions import AwsSubExecutionReader

    # client providers, not clients: built only when a request reads a sub-execution
    return AwsSubExecutionReader(stepfunctions_client, batch_client)


def _dynamodb_client(region: str, endpoint: str | None) -> Any:
    from adapters.dynamodb.missing_tables import name_missing_tables

    # a missing table's error names it: the CLI says which table to create
    return name_missing_tables(aws_client("dynamodb", region, endpoint))


def _table_names(settings: TableSettings | None, ssm_client: Callable[[], Any]) -> TableNames:
    settings = settings or TableSettings()
    if settings.vams_parameter_prefix is None:
        return settings.names()
    from adapters.dynamodb.vams_table_names import vams_table_names

    return vams_table_names(
        ssm_client(),
        settings.vams_parameter_prefix,
        prefix=settings.prefix,
        overrides=settings.overrides,
        variables=settings.vams_variables,
    )


class Container(containers.DeclarativeContainer):
    config = providers.Configuration()

    clock = providers.Singleton(SystemClock)
    ids = providers.Singleton(UuidGenerator)
    ssm_client = providers.Singleton(aws_client, "ssm", config.region)
    # once per process (a Lambda's cold start): a VAMS deployment's names cost an SSM read
    tables = providers.Singleton(_table_names, config.tables, ssm_client.provider)

    sqlite_database = providers.Singleton(_sqlite_database, config.sqlite_path, tables)
    dynamodb_client = providers.Singleton(_dynamodb_client, config.region, config.dynamodb_endpoint)

    s3_client = providers.Singleton(aws_client, "s3", config.region)
    # the stores keep there the bodies the item budgets move out of rows
    object_store = providers.Selector(
        config.object_store,
        filesystem=providers.Singleton(_filesystem_object_store, config.home),
        s3=providers.Singleton(_s3_object_store, s3_client.provider, config.s3_bucket, config.home),
    )
    execution_store = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_execution_store, sqlite_database, tables, object_store),
        dynamodb=providers.Singleton(
            _dynamodb_execution_store, dynamodb_client, tables, object_store
        ),
    )
    workflow_catalog = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_workflow_catalog, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_workflow_catalog, dynamodb_client, tables),
    )
    workflow_definitions = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_workflow_definitions, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_workflow_definitions, dynamodb_client, tables),
    )
    asset_catalog = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_asset_catalog, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_asset_catalog, dynamodb_client, tables),
    )
    authorization_store = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_authorization_store, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_authorization_store, dynamodb_client, tables),
    )
    authorizer = providers.Singleton(_casbin_authorizer, authorization_store)
    audit_log = providers.Selector(
        config.audit_log,
        file=providers.Singleton(_file_audit_log, config.home, clock),
        logging=providers.Singleton(_logging_audit_log, clock),
    )
    log_store = providers.Singleton(_log_store, config.home)
    run_files = providers.Singleton(_run_files, config.home)

    # AWS clients are built on first use; providers, not clients, are handed to the adapters
    # that may not need them, so a SQLite command on the local runner never imports boto3.
    stepfunctions_client = providers.Singleton(aws_client, "stepfunctions", config.region)
    batch_client = providers.Singleton(aws_client, "batch", config.region)
    deadline_client = providers.Singleton(aws_client, "deadline", config.region)
    logs_client = providers.Singleton(aws_client, "logs", config.region)
    # A Step Functions gate's answer (SendTaskSuccess/Failure): the tracking function gives it
    # too, to a task that reaches a gate decided already, without the orchestrator's powers.
    task_callbacks = providers.Singleton(_stepfunctions_task_callbacks, stepfunctions_client)
    stepfunctions_orchestrator = providers.Singleton(
        _stepfunctions_orchestrator, stepfunctions_client, task_callbacks
    )
    # The executionLog of a run that ends: the local step logs, or the Step Functions run's
    # events in its state machine's CloudWatch log group (application/run_log_sources.py).
    state_machine_log_reader = providers.Singleton(_state_machine_log_reader, logs_client.provider)
    state_machine_run_log = providers.Singleton(
        StateMachineRunLog,
        state_machines=stepfunctions_orchestrator,
        events=state_machine_log_reader,
    )
    run_log_source = providers.Singleton(
        _run_log_router, log_store, state_machine_run_log=state_machine_run_log.provider
    )

    # The cost ledger (seed 003): a duration estimate per closed attempt, reported usage, bills.
    cost_ledger = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_cost_ledger, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_cost_ledger, dynamodb_client, tables),
    )
    rate_card = providers.Singleton(_rate_card, config.rate_card, config.home)
    # one per process: it keeps each run's cost context
    record_attempt_durations = providers.Singleton(
        RecordAttemptDurations,
        ledger=cost_ledger,
        store=execution_store,
        rates=rate_card,
        clock=clock,
    )
    record_cost = providers.Factory(
        RecordCost, ledger=cost_ledger, store=execution_store, rates=rate_card, clock=clock, ids=ids
    )
    import_costs = providers.Factory(
        ImportCosts,
        ledger=cost_ledger,
        store=execution_store,
        rates=rate_card,
        clock=clock,
        ids=ids,
    )

    # Approval gates (seed 003): a request per gate reached, a run parked until its decision.
    approvals = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_approvals, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_approvals, dynamodb_client, tables),
    )
    pass_approval_gate = providers.Factory(
        PassApprovalGate,
        approvals=approvals,
        store=execution_store,
        catalog=workflow_catalog,
        clock=clock,
        ids=ids,
        writer=execution_store,
    )

    # a Step Functions task at a gate: it opens the request holding its token, and waits
    open_task_gate = providers.Factory(
        OpenTaskGate, gate=pass_approval_gate, callbacks=task_callbacks
    )

    start_step = providers.Factory(StartStep, store=execution_store, clock=clock)
    retry_step = providers.Factory(
        RetryStep,
        store=execution_store,
        clock=clock,
        durations=record_attempt_durations,
        objects=object_store,
    )
    finish_step = providers.Factory(
        FinishStep,
        store=execution_store,
        objects=object_store,
        clock=clock,
        durations=record_attempt_durations,
    )
    # ... and its wait ended other than approved: the step ends with the gate's error
    end_gate_step = providers.Factory(
        EndGateStep,
        approvals=approvals,
        store=execution_store,
        finish_step=finish_step,
        clock=clock,
        ids=ids,
        writer=execution_store,
    )
    complete_execution = providers.Factory(
        CompleteExecution,
        store=execution_store,
        objects=object_store,
        assets=asset_catalog,
        logs=log_store,
        clock=clock,
        run_logs=run_log_source,
        durations=record_attempt_durations,
    )
    # The local runner's wait between a step's attempts (None: time.sleep); tests override it.
    retry_sleep: providers.Provider[Callable[[float], None] | None] = providers.Object(None)
    # Its wait before a report the store failed is tried again (None: time.sleep); tests too.
    store_backoff: providers.Provider[Callable[[float], None] | None] = providers.Object(None)
    runner_lease = providers.Factory(
        RunnerLease,
        store=execution_store,
        clock=clock,
        lease_seconds=config.lease_seconds,
    )
    # a step's success and the next step's start, one write (the local runner's common move)
    hand_on_step = providers.Factory(
        HandOnStep,
        writer=execution_store,
        store=execution_store,
        finish_step=finish_step,
        clock=clock,
        durations=record_attempt_durations,
    )
    run_reporter = providers.Singleton(
        UseCaseRunReporter,
        start_step=start_step,
        finish_step=finish_step,
        complete_execution=complete_execution,
        retry_step=retry_step,
        lease=runner_lease,
        store=execution_store,
        gate=pass_approval_gate,
        hand_on=hand_on_step,
    )
    # Sub-process registration: the handler, the bus a step publishes on, and the publisher.
    sub_process_controller = providers.Singleton(
        sub_process_controllers.sub_process_controller,
        stepfunctions_client.provider,
        batch_client.provider,
        deadline_client.provider,
        config.home,
        config.stop_grace_seconds,
    )
    register_pipeline_execution = providers.Factory(
        RegisterPipelineExecution,
        store=execution_store,
        sub_processes=sub_process_controller,
        clock=clock,
        costs=record_cost,
        state_machine_prefix=config.state_machine_prefix,
        sub_process_reach=config.sub_process_reach,
    )
    events_client = providers.Singleton(aws_client, "events", config.region)
    # The key is read on the first credential issued or checked, not when this is built.
    registration_credentials = providers.Singleton(
        registration_wiring.registration_credentials, config.home
    )
    event_bus = providers.Selector(
        config.event_bus,
        local=providers.Singleton(
            registration_wiring.local_event_bus,
            register_pipeline_execution.provider,
            registration_credentials,
            config.event_source_prefix,
            config.region,
        ),
        eventbridge=providers.Singleton(
            registration_wiring.eventbridge_bus, events_client.provider, config.event_bus_name
        ),
    )
    publish_registration = providers.Factory(
        PublishRegistration, bus=event_bus, source_prefix=config.event_source_prefix
    )
    # The local runner whatever the runner setting: `wfx run` waits on it, the worker runs on it.
    local_runner = providers.Singleton(
        _local_runner,
        store=execution_store,
        catalog=workflow_catalog,
        objects=object_store,
        logs=log_store,
        reporter=run_reporter,
        home=config.home,
        mode=config.runner_mode,
        grace_seconds=config.stop_grace_seconds,
        lease_seconds=config.lease_seconds,
        sleep=retry_sleep,
        backoff=store_backoff,
        registrar=publish_registration.provided.register,
        registration_token=registration_credentials.provided.issue,
        step_user=config.step_user,
    )
    # Runs start on config.runner; a later call about a run goes to the orchestrator that ran it.
    # A read asks whether a leased run's runner lives without building the local runner (and
    # the run reporter it takes): a cold list of open runs imports only the process records.
    orchestrator = providers.Singleton(
        OrchestratorRouter,
        default=config.runner,
        orchestrators=providers.Dict(
            local=local_runner.provider, stepfunctions=stepfunctions_orchestrator.provider
        ),
        liveness=providers.Dict(
            local=providers.Singleton(_local_runner_liveness, home=config.home).provider
        ),
    )
    state_machine_deployer = providers.Singleton(_stepfunctions_deployer, stepfunctions_client)
    deploy_workflow_version = providers.Factory(
        DeployWorkflowVersion,
        catalog=workflow_catalog,
        deployer=state_machine_deployer,
        configuration=providers.Factory(
            _deployment_configuration, config.deployment, config.state_machine_prefix
        ),
    )

    handler_locator = providers.Singleton(_handler_locator)
    publish_workflow_version = providers.Factory(
        PublishWorkflowVersion,
        definitions=workflow_definitions,
        catalog=workflow_catalog,
        clock=clock,
        handlers=handler_locator,
    )
    list_workflows = providers.Factory(ListWorkflows, definitions=workflow_definitions)
    show_workflow = providers.Factory(
        ShowWorkflow, definitions=workflow_definitions, catalog=workflow_catalog
    )
    list_workflow_versions = providers.Factory(ListWorkflowVersions, catalog=workflow_catalog)
    list_asset_files = providers.Factory(ListAssetFiles, catalog=asset_catalog)
    read_asset_file = providers.Factory(ReadAssetFile, catalog=asset_catalog, objects=object_store)
    read_output_file = providers.Factory(
        ReadOutputFile, store=execution_store, objects=object_store
    )
    import_asset_files = providers.Factory(
        ImportAssetFiles, catalog=asset_catalog, objects=object_store, clock=clock
    )
    # read from the configuration once, as the store's own settings are: not on each launch
    runs_log_group_arn = providers.Singleton(_runs_log_group_arn, config.deployment)
    launch_execution = providers.Factory(
        LaunchExecution,
        store=execution_store,
        workflows=workflow_catalog,
        assets=asset_catalog,
        orchestrator=orchestrator,
        clock=clock,
        ids=ids,
        durations=record_attempt_durations,
        event_source_prefix=config.event_source_prefix,
        log_group_arn=runs_log_group_arn,
    )
    # a decided or overdue gate hands its run on; a runner has a lease's length to take it
    gate_resumer = providers.Factory(
        GateResumer,
        store=execution_store,
        orchestrator=orchestrator,
        clock=clock,
        grace_seconds=config.lease_seconds,
    )
    close_overdue_gate = providers.Factory(
        CloseOverdueGate,
        approvals=approvals,
        store=execution_store,
        resumer=gate_resumer,
        clock=clock,
        writer=execution_store,
    )
    decide_approval = providers.Factory(
        DecideApproval,
        approvals=approvals,
        store=execution_store,
        roles=authorization_store,
        resumer=gate_resumer,
        audit=audit_log,
        clock=clock,
        writer=execution_store,
    )
    reconcile_execution = providers.Factory(
        ReconcileExecution,
        store=execution_store,
        orchestrator=orchestrator,
        logs=log_store,
        objects=object_store,
        clock=clock,
        min_interval_seconds=config.sfn_sync_min_interval_seconds,
        lease_seconds=config.lease_seconds,
        # Only an open run's check uses these; a list of finished runs (most lists) would build
        # the sub-process controllers, the run log's sources, the approvals store, the cost
        # ledger and the rate card for nothing (and import their ports' modules).
        sub_processes=providers.Factory(_BuiltOnFirstUse, sub_process_controller.provider),
        run_logs=providers.Factory(_BuiltOnFirstUse, run_log_source.provider),
        overdue_gates=providers.Factory(_BuiltOnFirstUse, close_overdue_gate.provider),
        durations=providers.Factory(_BuiltOnFirstUse, record_attempt_durations.provider),
    )
    get_execution = providers.Factory(
        GetExecution, store=execution_store, reconcile=reconcile_execution, clock=clock
    )
    describe_execution = providers.Factory(
        DescribeExecution,
        store=execution_store,
        get_execution=get_execution,
        orchestrator=orchestrator,
    )
    sub_execution_reader = providers.Singleton(
        _sub_execution_reader, stepfunctions_client.provider, batch_client.provider
    )
    sub_execution_status = providers.Singleton(SubExecutionStatus, sub_execution_reader)
    available_log_finder = providers.Factory(
        AvailableLogFinder,
        catalog=workflow_catalog,
        state_machines=sub_execution_reader,
        reference_log_group_arn=runs_log_group_arn,
    )
    result_text_reader = providers.Factory(ResultTextReader, objects=object_store)
    get_execution_details = providers.Factory(
        GetExecutionDetails,
        store=execution_store,
        reconcile=reconcile_execution,
        # only --sub-executions asks it: a plain show never imports how stages are read
        sub_executions=providers.Factory(_BuiltOnFirstUse, sub_execution_status.provider),
        available_logs=available_log_finder,
        state_machines=sub_execution_reader,
        clock=clock,
        approvals=approvals,
        result_texts=result_text_reader,
        definitions=workflow_definitions,
    )
    get_execution_progress = providers.Factory(GetExecutionProgress, store=execution_store)
    # the event log (seed 003): read here; written by the execution store with each transition
    execution_events = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_event_log, sqlite_database, tables, object_store),
        dynamodb=providers.Singleton(_dynamodb_event_log, dynamodb_client, tables, object_store),
    )
    get_execution_events = providers.Factory(
        GetExecutionEvents, store=execution_store, events=execution_events
    )
    get_execution_metadata = providers.Factory(
        GetExecutionMetadata, store=execution_store, available_logs=available_log_finder
    )
    local_log_reader = providers.Singleton(_local_log_reader, config.home)
    cloudwatch_log_reader = providers.Singleton(_cloudwatch_log_reader, logs_client.provider)
    # which reader reads a source: application.available_logs.reader_for
    get_execution_logs = providers.Factory(
        GetExecutionLogs,
        store=execution_store,
        available_logs=available_log_finder,
        readers=providers.Dict(
            local=local_log_reader.provider, cloudwatch=cloudwatch_log_reader.provider
        ),
        logs=log_store,
        objects=object_store,
    )
    resolve_execution_id = providers.Factory(ResolveExecutionId, store=execution_store)
    list_executions = providers.Factory(
        ListExecutions, store=execution_store, reconcile=reconcile_execution, clock=clock
    )
    access_facts_cache = providers.Singleton(AccessFactsCache)
    access_control = providers.Factory(
        AccessControl,
        authorizer=authorizer,
        roles=authorization_store,
        executions=execution_store,
        audit=audit_log,
        facts=access_facts_cache,
    )
    list_approvals = providers.Factory(
        ListApprovals, approvals=approvals, overdue=close_overdue_gate, access=access_control
    )
    get_approval = providers.Factory(
        GetApproval, approvals=approvals, overdue=close_overdue_gate, access=access_control
    )
    list_readable_executions = providers.Factory(
        ListReadableExecutions, executions=list_executions, access=access_control
    )
    read_asset_input_keys = providers.Factory(ReadAssetInputKeys, store=execution_store)
    read_output_targets = providers.Factory(
        ReadOutputTargets, store=execution_store, facts=access_facts_cache
    )
    list_readable_workflows = providers.Factory(
        ListReadableWorkflows, workflows=list_workflows, access=access_control
    )
    summarize_costs = providers.Factory(
        SummarizeCosts, ledger=cost_ledger, store=execution_store, access=access_control
    )
    administer_roles = providers.Factory(
        AdministerRoles, store=authorization_store, access=access_control
    )
    abort_execution = providers.Factory(
        AbortExecution,
        store=execution_store,
        orchestrator=orchestrator,
        sub_processes=sub_process_controller,
        logs=log_store,
        objects=object_store,
        clock=clock,
        run_logs=run_log_source,
        durations=record_attempt_durations,
    )
    delete_execution = providers.Factory(
        DeleteExecution,
        store=execution_store,
        objects=object_store,
        run_files=run_files,
        abort=abort_execution,
        clock=clock,
    )
    redrive_execution = providers.Factory(
        RedriveExecution, store=execution_store, orchestrator=orchestrator, clock=clock, ids=ids
    )
    rerun_execution = providers.Factory(
        RerunExecution,
        get_execution=get_execution,
        queries=execution_store,
        launch=launch_execution,
    )
    migrated_runs = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_migrated_runs, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_migrated_runs, dynamodb_client, tables),
    )
    legacy_executions = providers.Singleton(_legacy_executions, stepfunctions_client.provider)
    # the source (a file or the earlier table) and the checkpoint come with each call
    migrate_v1 = providers.Factory(
        MigrateV1,
        runs=migrated_runs,
        step_functions=legacy_executions,
        clock=clock,
        definitions=workflow_definitions,
    )
    item_shapes = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_item_shapes, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_item_shapes, dynamodb_client, tables),
    )
    migrate_items = providers.Factory(MigrateItems, shapes=item_shapes)
    sweep_aborts = providers.Factory(
        SweepAborts,
        store=execution_store,
        sub_processes=sub_process_controller,
        clock=clock,
        reconcile=reconcile_execution,
    )
    list_partition_backfill = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_list_partition_backfill, sqlite_database, tables),
        dynamodb=providers.Singleton(_dynamodb_list_partition_backfill, dynamodb_client, tables),
    )
    backfill_list_partition = providers.Factory(
        BackfillListPartition, backfill=list_partition_backfill
    )
    run_archive = providers.Selector(
        config.store,
        sqlite=providers.Singleton(_sqlite_run_archive, sqlite_database, tables, object_store),
        dynamodb=providers.Singleton(_dynamodb_run_archive, dynamodb_client, tables, object_store),
    )
    export_executions = providers.Factory(ExportExecutions, archive=run_archive)
    import_executions = providers.Factory(ImportExecutions, archive=run_archive)
    verify_executions = providers.Factory(VerifyExecutions, archive=run_archive)
    # Bearer tokens: built on first use, so no command but those that need one imports PyJWT.
    token_verifier = providers.Singleton(
        _token_verifier,
        config.jwt_jwks,
        config.jwt_issuer,
        config.jwt_audience,
        config.home,
        authorization_store,  # also the revoked tokens' store
    )
    token_issuer = providers.Singleton(_token_issuer, config.home)
    revoke_tokens = providers.Factory(RevokeTokens, revoked=authorization_store, clock=clock)
    handle_execution_error = providers.Factory(
        HandleExecutionError,
        store=execution_store,
        sub_processes=sub_process_controller,
        complete_execution=complete_execution,
        clock=clock,
    )


# Container() gives each container its own providers by deep-copying the class's, ~1,600 Python
# copies (~14 ms; ~3 % of a cold command's CPU, and of each test that builds a container).
# Running the class body again makes the same providers anew in ~4 ms: its code, kept here.
_CONTAINER_BODY = next(
    constant
    for constant in sys._getframe(0).f_code.co_consts
    if isinstance(constant, CodeType) and constant.co_name == Container.__name__
)


def _new_container() -> Container:
    """What `Container()` gives, a DynamicContainer whose providers are its own, with those
    providers made by the class body rather than copied from the class's."""
    declared: dict[str, Any] = {}
    exec(_CONTAINER_BODY, globals(), declared)  # this module's own class body, run again
    container = containers.DynamicContainer()
    container.declarative_parent = Container
    for name, value in declared.items():
        if isinstance(value, providers.Provider):
            container.set_provider(name, value)
    return cast("Container", container)


def build_container(
    settings: Settings | None = None, runner_mode: str = "inline", runner: str | None = None
) -> Container:
    """A container configured from the environment (or the given settings); `runner` overrides
    the settings' (WFX_RUNNER) choice of orchestrator."""
    settings = settings or Settings.from_environment()
    # Process-wide on purpose: every redaction, down to a record builder, uses the same secrets.
    configure_redaction(settings.registered_secrets)
    container = _new_container()
    container.config.from_dict(
        {
            "store": settings.store,
            "home": str(settings.home),
            "sqlite_path": str(settings.sqlite_path),
            "dynamodb_endpoint": settings.dynamodb_endpoint,
            "region": settings.region,
            "runner_mode": runner_mode,
            "runner": runner or settings.runner,
            "user": settings.user,
            "deployment": dict(settings.deployment),
            "state_machine_prefix": settings.state_machine_prefix,
            "sub_process_reach": settings.sub_process_reach,
            "sfn_sync_min_interval_seconds": settings.sfn_sync_min_interval_seconds,
            "stop_grace_seconds": settings.stop_grace_seconds,
            "lease_seconds": settings.lease_seconds,
            "event_source_prefix": settings.event_source_prefix,
            "event_bus": settings.event_bus,
            "event_bus_name": settings.event_bus_name,
            "jwt_jwks": settings.jwt.jwks,
            "jwt_issuer": settings.jwt.issuer,
            "jwt_audience": settings.jwt.audience,
            "audit_log": settings.audit_log,
            "object_store": settings.object_store,
            "s3_bucket": settings.s3_bucket,
            "rate_card": settings.rate_card,
            "tables": settings.tables,
            "step_user": settings.step_user,
        }
    )
    return container


def add_missing_sqlite_tables(container: Container) -> None:
    """A SQLite file made by an earlier wfx (or left empty) gets every table added since, and
    nothing stored changes; when it has them all this costs one lookup."""
    from adapters.sqlite.schema import missing_tables

    tables = container.tables()
    names = [tables.get_table_name(spec.key) for spec in CREATED_TABLES]
    if missing_tables(container.sqlite_database(), names):
        create_all_tables(container)


def create_all_tables(container: Container) -> None:
    """Every table of every store port; idempotent. On DynamoDB every port's set-up is the one
    shared schema's (`adapters.dynamodb.schema.create_tables`), and the definitions' also
    upgrades earlier versions: that one alone, not the schema five times over (a ListTables
    and a DescribeTimeToLive each, on tables already made)."""
    if container.config.store() == "dynamodb":
        container.workflow_definitions().create_tables()
        return
    container.execution_store().create_tables()
    container.workflow_catalog().create_tables()
    container.cost_ledger().create_tables()
    container.workflow_definitions().create_tables()
    container.approvals().create_tables()
