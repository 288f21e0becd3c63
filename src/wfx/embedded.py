"""The application for one store, as an embedding backend calls it: one method per use case.

Each method takes the use case's own command or query and answers its own result, so whatever a
backend builds on top (an HTTP route, a queue consumer) speaks the same models as the CLI.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from application.use_cases.abort_execution import AbortExecutionCommand, AbortResult
from application.use_cases.delete_execution import DeleteExecutionCommand, DeleteResult
from application.use_cases.describe_execution import (
    DescribeExecutionQuery,
    ExecutionDescription,
)
from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from application.use_cases.get_execution_logs import ExecutionLogs, GetExecutionLogsQuery
from application.use_cases.import_asset_files import ImportAssetFilesCommand
from application.use_cases.launch_execution import LaunchExecutionCommand, LaunchResult
from application.use_cases.list_executions import ListExecutionsQuery
from application.use_cases.publish_workflow_version import (
    PublishResult,
    PublishWorkflowVersionCommand,
)
from application.use_cases.redrive_execution import RedriveExecutionCommand
from application.use_cases.rerun_execution import RerunExecutionCommand
from application.workflow_documents import parse_workflow_document
from domain.assets import AssetFile
from domain.errors import DomainError, InvalidInputError
from domain.execution import ExecutionDetails, WorkflowExecution
from domain.paging import Page
from entrypoints.container import Container, build_container, create_all_tables
from entrypoints.local_storage import check_local_storage
from entrypoints.settings import Settings, UnusableSettingError

RUNNER_MODES = ("thread", "detached", "inline")
_NO_TABLES = (
    "the store's wfx tables are missing or out of date: call create_tables() first (what "
    "`wfx tables create` does; nothing stored is lost)"
)


class Application:
    """The use cases on one configured store, runner and object store."""

    def __init__(self, container: Container) -> None:
        self._container = container

    @property
    def container(self) -> Container:
        """The dependency-injector container: override a provider to swap an adapter."""
        return self._container

    def create_tables(self) -> None:
        with _setup_said(self._container):
            create_all_tables(self._container)

    def publish(
        self, document: Mapping[str, Any], published_by: str | None = None
    ) -> PublishResult:
        """Publish a workflow document (the YAML file's mapping) as a new immutable version;
        `published_by` owns the workflow when this is its first version."""
        # what yaml.safe_load gives for a file that is no mapping (None, a list, a string) is
        # parse_workflow_document's to refuse, naming the rule
        data = dict(document) if isinstance(document, Mapping) else document
        command = PublishWorkflowVersionCommand(
            document=parse_workflow_document(data), published_by=published_by
        )
        with _setup_said(self._container):
            result: PublishResult = self._container.publish_workflow_version().execute(command)
        return result

    def import_files(self, command: ImportAssetFilesCommand) -> list[AssetFile]:
        with _setup_said(self._container):
            files: list[AssetFile] = self._container.import_asset_files().execute(command)
        return files

    def launch(self, command: LaunchExecutionCommand) -> LaunchResult:
        with _setup_said(self._container):
            result: LaunchResult = self._container.launch_execution().execute(command)
        return result

    def wait(self, workflow_execution_id: str, timeout: float | None = None) -> bool:
        """Wait for a run on the local runner to end; False when `timeout` came first."""
        self.get(workflow_execution_id)  # a run not there is NotFoundError, not "ended"
        return bool(self._container.local_runner().join(workflow_execution_id, timeout=timeout))

    def get(self, workflow_execution_id: str) -> WorkflowExecution:
        query = GetExecutionQuery(workflow_execution_id=workflow_execution_id)
        with _setup_said(self._container):
            execution: WorkflowExecution = self._container.get_execution().execute(query)
        return execution

    def details(self, query: GetExecutionDetailsQuery) -> ExecutionDetails:
        with _setup_said(self._container):
            details: ExecutionDetails = self._container.get_execution_details().execute(query)
        return details

    def list(self, query: ListExecutionsQuery) -> Page[WorkflowExecution]:
        with _setup_said(self._container):
            page: Page[WorkflowExecution] = self._container.list_executions().execute(query)
        return page

    def logs(self, query: GetExecutionLogsQuery) -> ExecutionLogs:
        with _setup_said(self._container):
            logs: ExecutionLogs = self._container.get_execution_logs().execute(query)
        return logs

    def abort(self, command: AbortExecutionCommand) -> AbortResult:
        with _setup_said(self._container):
            result: AbortResult = self._container.abort_execution().execute(command)
        return result

    def redrive(self, command: RedriveExecutionCommand) -> WorkflowExecution:
        with _setup_said(self._container):
            execution: WorkflowExecution = self._container.redrive_execution().execute(command)
        return execution

    def rerun(self, command: RerunExecutionCommand) -> LaunchResult:
        """A new run rebuilt from one that has ended (VAMS's rerun); RerunNotAllowedError for a
        run not ended."""
        with _setup_said(self._container):
            result: LaunchResult = self._container.rerun_execution().execute(command)
        return result

    def describe(self, workflow_execution_id: str) -> ExecutionDescription:
        """The run as Step Functions' DescribeExecution gives one (seed 001 fields)."""
        query = DescribeExecutionQuery(workflow_execution_id=workflow_execution_id)
        with _setup_said(self._container):
            description: ExecutionDescription = self._container.describe_execution().execute(query)
        return description

    def delete(self, command: DeleteExecutionCommand) -> DeleteResult:
        """Delete a run for good; ExecutionStillRunningError for a run not ended, unless forced."""
        with _setup_said(self._container):
            result: DeleteResult = self._container.delete_execution().execute(command)
        return result


def open_application(
    environ: Mapping[str, str] | None = None, *, runner_mode: str = "thread"
) -> Application:
    """The application configured as the CLI is (WFX_STORE, WFX_HOME, WFX_DB, WFX_RUNNER, ...),
    from `environ` (default: os.environ). `runner_mode`: `thread` runs local steps in this
    process, `detached` in a worker process that outlives it, `inline` before `launch` returns."""
    if runner_mode not in RUNNER_MODES:
        raise InvalidInputError(
            f"runner_mode: must be one of {', '.join(RUNNER_MODES)}, got {runner_mode!r}"
        )
    settings = Settings.from_environment(environ)
    # as the CLI does: a home or a database file that cannot be used is said here, by name,
    # and a file that is not a wfx database is never handed to SQLite
    check_local_storage(settings)
    return Application(build_container(settings, runner_mode=runner_mode))


@contextmanager
def _setup_said(container: Container) -> Iterator[None]:
    """A store that is not there, or has no tables, as UnusableSettingError saying what to do;
    what the backend can mend is no traceback of the driver it happened in."""
    try:
        yield
    except DomainError:
        raise
    except Exception as error:
        problem = _setup_problem(error, container) or (
            None if error.__cause__ is None else _setup_problem(error.__cause__, container)
        )
        if problem is None:
            raise
        raise UnusableSettingError(problem) from error


def _setup_problem(error: BaseException, container: Container) -> str | None:
    from adapters.aws.failures import endpoint_of, is_unreachable, transport_problem
    from adapters.store_failures import tables_missing
    from adapters.tables import TableNameError

    if isinstance(error, TableNameError):
        return str(error)  # names VAMS_RESOURCE_PARAM_PREFIX and what to check
    if is_unreachable(error):
        endpoint = endpoint_of(error)
        configured = container.config.dynamodb_endpoint() or ""
        if "dynamodb." in endpoint or (
            configured and endpoint.rstrip("/") == configured.rstrip("/")
        ):
            return (
                f"cannot reach DynamoDB at {endpoint}: start it (for example `moto_server -p "
                "5000` or DynamoDB Local) and point WFX_DYNAMODB_ENDPOINT at it, or leave "
                "WFX_STORE unset to use SQLite"
            )
    problem = transport_problem(error)
    if problem is not None:
        return problem
    return _NO_TABLES if tables_missing(error) else None
