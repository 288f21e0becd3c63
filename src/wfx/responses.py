"""The response models every entrypoint answers with (seed names in camelCase; `dump()` gives
the JSON document): build them from a use case's result to answer as the CLI and the HTTP
service do."""

from entrypoints.responses import (
    AbortResponse,
    AssetFileResponse,
    DeleteResponse,
    DescribeResponse,
    ExecutionDetailsResponse,
    ExecutionLogsResponse,
    ExecutionPageResponse,
    ExecutionResponse,
    Response,
    WorkflowVersionResponse,
)

__all__ = [
    "AbortResponse",
    "AssetFileResponse",
    "DeleteResponse",
    "DescribeResponse",
    "ExecutionDetailsResponse",
    "ExecutionLogsResponse",
    "ExecutionPageResponse",
    "ExecutionResponse",
    "Response",
    "WorkflowVersionResponse",
]
