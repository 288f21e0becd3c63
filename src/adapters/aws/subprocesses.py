"""Stops the sub-processes steps registered; this release stops Step Functions executions only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.logs import RegisteredSubExecution

STOPPED = "stopped"
UNSUPPORTED = "unsupported"
STOP_ERROR = "wfx.ParentStopped"
STOP_CAUSE = "The workflow execution that started it was stopped."


class StepFunctionsSubProcessController:
    """Stops `stepFunctions` sub-executions with StopExecution; any other type is "unsupported".

    The boto3 client is built on first use (`client_factory`), so a run with nothing to stop
    never imports or configures the AWS SDK.
    """

    def __init__(self, client_factory: Callable[[], Any]) -> None:
        self._client_factory = client_factory
        self._client: Any = None

    def stop(self, sub_execution: RegisteredSubExecution) -> str:
        if sub_execution.resource_type != "stepFunctions":
            return UNSUPPORTED
        from botocore.exceptions import ClientError  # here: a local abort never loads botocore

        if self._client is None:
            self._client = self._client_factory()
        try:
            self._client.stop_execution(
                executionArn=sub_execution.resource_id, error=STOP_ERROR, cause=STOP_CAUSE
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ExecutionDoesNotExist":
                return STOPPED  # nothing of that name is running
            raise
        return STOPPED
