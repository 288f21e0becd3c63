"""Reads registered sub-executions for derived stage status: Step Functions and AWS Batch.

Both boto3 clients are built on first use, so a details request that does not ask for
sub-executions never creates one. Every failure, whatever its kind (a ClientError, a connection
error, moto's NotImplementedError for an action it lacks), becomes one SubExecutionReadError: the
use case reports it as UNKNOWN with a warning and never fails the request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from adapters.aws.failures import transport_problem
from adapters.aws.lazy_client import LazyClient
from adapters.concurrent_reads import ConcurrentReads
from application.ports.orchestration import HistoryPage
from application.ports.sub_executions import StateMachineSource, SubExecutionDescription
from domain.stages import SubExecutionReadError

_BATCH_IDS_PER_CALL = 100  # DescribeJobs' limit
_HISTORY_PAGE_SIZE = 1000  # GetExecutionHistory's maximum


@contextmanager
def _read(operation: str, target: str) -> Iterator[None]:
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as error:
        details = error.response.get("Error", {})
        code = details.get("Code") or "error"
        raise SubExecutionReadError(
            f"{operation} {target}: {code}: {details.get('Message', '')}".rstrip(": ")
        ) from error
    except BotoCoreError as error:
        problem = transport_problem(error) or str(error)
        raise SubExecutionReadError(f"{operation} {target}: {problem}") from error
    except NotImplementedError as error:  # an emulator without the action (moto in-process)
        raise SubExecutionReadError(f"{operation} {target}: not implemented here") from error


class AwsSubExecutionReader:
    """DescribeExecution, DescribeStateMachine, GetExecutionHistory and Batch DescribeJobs."""

    def __init__(
        self,
        stepfunctions_factory: Callable[[], Any],
        batch_factory: Callable[[], Any],
        concurrent_reads: bool = True,
    ) -> None:
        """`concurrent_reads`: `describe_executions` sends its requests at once."""
        # each built once, on its first call, whichever read thread makes it
        self._stepfunctions = LazyClient(stepfunctions_factory)
        self._batch = LazyClient(batch_factory)
        self._reads = ConcurrentReads(concurrent_reads)

    def _sfn(self) -> Any:
        return self._stepfunctions.client

    def describe_execution(self, execution_arn: str) -> SubExecutionDescription:
        with _read("DescribeExecution", execution_arn):
            response = self._sfn().describe_execution(executionArn=execution_arn)
        return SubExecutionDescription(
            status=str(response.get("status", "")),
            state_machine_arn=str(response.get("stateMachineArn", "")),
            start_date=response.get("startDate"),
            stop_date=response.get("stopDate"),
        )

    def describe_executions(
        self, execution_arns: Sequence[str]
    ) -> list[SubExecutionDescription | SubExecutionReadError]:
        return self._reads.each([partial(self._described, arn) for arn in execution_arns])

    def _described(self, execution_arn: str) -> SubExecutionDescription | SubExecutionReadError:
        try:
            return self.describe_execution(execution_arn)
        except SubExecutionReadError as error:  # the request goes on: this one is UNKNOWN
            return error

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineSource:
        with _read("DescribeStateMachine", state_machine_arn):
            response = self._sfn().describe_state_machine(stateMachineArn=state_machine_arn)
        logging = response.get("loggingConfiguration") or {}
        return StateMachineSource(
            definition=str(response.get("definition", "")),
            log_group_arns=tuple(_log_group_arns(logging.get("destinations") or ())),
        )

    def history_page(self, execution_arn: str, next_token: str | None) -> HistoryPage:
        request: dict[str, Any] = {
            "executionArn": execution_arn,
            "maxResults": _HISTORY_PAGE_SIZE,
            "reverseOrder": False,
            "includeExecutionData": False,  # statuses need no inputs or outputs
        }
        if next_token:
            request["nextToken"] = next_token
        with _read("GetExecutionHistory", execution_arn):
            response = self._sfn().get_execution_history(**request)
        return HistoryPage(
            events=tuple(response.get("events", ())), next_token=response.get("nextToken")
        )

    def batch_job_statuses(self, job_ids: Sequence[str]) -> dict[str, str]:
        statuses: dict[str, str] = {}
        ids = list(dict.fromkeys(job_ids))
        for start in range(0, len(ids), _BATCH_IDS_PER_CALL):
            chunk = ids[start : start + _BATCH_IDS_PER_CALL]
            with _read("DescribeJobs", ", ".join(chunk)):
                response = self._batch.client.describe_jobs(jobs=chunk)
            for job in response.get("jobs", ()):
                statuses[str(job["jobId"])] = str(job.get("status", ""))
        return statuses


def _log_group_arns(destinations: Sequence[Any]) -> Iterator[str]:
    for destination in destinations:
        group = (destination or {}).get("cloudWatchLogsLogGroup") or {}
        arn = group.get("logGroupArn")
        if isinstance(arn, str) and arn:
            yield arn
