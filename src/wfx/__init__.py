"""wfx as a library: the application for a store, and the commands, queries and results its use
cases speak. docs/embedding.md shows a backend built on it.

    import wfx

    app = wfx.open_application({"WFX_HOME": "/tmp/wfx"})
    app.create_tables()
"""

from application.use_cases.abort_execution import AbortExecutionCommand, AbortResult
from application.use_cases.delete_execution import DeleteExecutionCommand, DeleteResult
from application.use_cases.describe_execution import ExecutionDescription
from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from application.use_cases.get_execution_logs import ExecutionLogs, GetExecutionLogsQuery
from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
from application.use_cases.launch_execution import LaunchExecutionCommand, LaunchResult
from application.use_cases.list_executions import ListExecutionsQuery
from application.use_cases.publish_workflow_version import PublishResult
from application.use_cases.redrive_execution import RedriveExecutionCommand
from application.use_cases.rerun_execution import RerunExecutionCommand
from domain.errors import (
    ConflictError,
    DomainError,
    ExecutionStillRunningError,
    InvalidInputError,
    NotAuthenticatedError,
    NotAuthorizedError,
    NotFoundError,
    RerunNotAllowedError,
)
from domain.execution import ExecutionDetails, WorkflowExecution
from domain.paging import Page
from domain.statuses import ExecutionStatus
from entrypoints.settings import UnusableSettingError
from wfx import responses
from wfx.embedded import Application, open_application

__all__ = [
    "AbortExecutionCommand",
    "AbortResult",
    "Application",
    "ConflictError",
    "DeleteExecutionCommand",
    "DeleteResult",
    "DomainError",
    "ExecutionDescription",
    "ExecutionDetails",
    "ExecutionLogs",
    "ExecutionStatus",
    "ExecutionStillRunningError",
    "GetExecutionDetailsQuery",
    "GetExecutionLogsQuery",
    "ImportAssetFilesCommand",
    "ImportedFile",
    "InvalidInputError",
    "LaunchExecutionCommand",
    "LaunchResult",
    "ListExecutionsQuery",
    "NotAuthenticatedError",
    "NotAuthorizedError",
    "NotFoundError",
    "Page",
    "PublishResult",
    "RedriveExecutionCommand",
    "RerunExecutionCommand",
    "RerunNotAllowedError",
    "UnusableSettingError",
    "WorkflowExecution",
    "open_application",
    "responses",
]
