"""LegacyExecutions on Step Functions: DescribeExecution by the ARN the earlier release kept."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from application.ports.orchestration import OrchestratorExecution, OrchestratorReadError
from domain.statuses import ExecutionStatus


class StepFunctionsLegacyExecutions:
    def __init__(self, client: Any) -> None:
        self._client = client

    def describe(self, execution_arn: str) -> OrchestratorExecution | None:
        try:
            response = self._client.describe_execution(executionArn=execution_arn)
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code == "ExecutionDoesNotExist":
                return None
            raise OrchestratorReadError(f"DescribeExecution: {code or 'error'}") from error
        except BotoCoreError as error:  # no endpoint, no credentials: not reachable
            raise OrchestratorReadError(f"DescribeExecution: {type(error).__name__}") from error
        return OrchestratorExecution(
            status=ExecutionStatus(response["status"]),
            start_date=response.get("startDate"),
            stop_date=response.get("stopDate"),
            error=response.get("error"),
            cause=response.get("cause"),
        )


class UnreachableLegacyExecutions:
    """No Step Functions to ask (`--offline`): every open row is kept as it is, and reported."""

    def describe(self, execution_arn: str) -> OrchestratorExecution | None:
        raise OrchestratorReadError("not asked (--offline)")
