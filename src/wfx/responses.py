"""The response models every entrypoint answers with (seed names in camelCase; `dump()` gives
the JSON document): build them from a use case's result to answer as the CLI and the HTTP
service do. A run's details and the execution lists are VAMS's documents (`VamsExecutionDetails`,
`ExecutionList` of `ExecutionRow`s), the ones the details and list routes answer inside
`message`."""

from entrypoints.responses import (
    AbortResponse,
    AssetFileResponse,
    DeleteResponse,
    DescribeResponse,
    ExecutionLogsResponse,
    ExecutionResponse,
    Response,
    WorkflowVersionResponse,
)
from entrypoints.vams_details import VamsExecutionDetails
from entrypoints.vams_execution_list import ExecutionList, ExecutionRow

__all__ = [
    "AbortResponse",
    "AssetFileResponse",
    "DeleteResponse",
    "DescribeResponse",
    "ExecutionList",
    "ExecutionLogsResponse",
    "ExecutionResponse",
    "ExecutionRow",
    "Response",
    "VamsExecutionDetails",
    "WorkflowVersionResponse",
]
