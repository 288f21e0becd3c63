"""Stop and confirm the AWS sub-processes a step registered: Step Functions, Batch, Deadline Cloud.

Every client is built on first use (`client_factory`), so a run with nothing of that type to stop
never imports or configures the AWS SDK. A service's refusal is an outcome (couldNotStop, with
the service's code and message), never an exception: one stuck child must not hide the others.
"""

from __future__ import annotations

from collections.abc import Callable

from adapters.aws.failures import transport_problem
from adapters.aws.lazy_client import LazyClient
from domain.execution import PipelineExecution
from domain.logs import RegisteredSubExecution, parse_deadline_job
from domain.sub_processes import StopAttempt, StopOutcome

STOP_ERROR = "wfx.ParentStopped"
STOP_CAUSE = "The workflow execution that started it was stopped."
BATCH_REASON = "wfx: the workflow execution that started this job was stopped"

_SFN_OPEN = frozenset({"RUNNING", "PENDING_REDRIVE"})  # a redriven run is open again
_REQUESTED, _STOPPED = StopOutcome.STOP_REQUESTED, StopOutcome.STOPPED
_FINISHED, _FAILED = StopOutcome.ALREADY_FINISHED, StopOutcome.COULD_NOT_STOP


def _aws_failure(error: Exception) -> tuple[str, str]:
    """(error code, "code: message") of a botocore error; any other exception by its class."""
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        details = response.get("Error", {})
        code = str(details.get("Code", ""))
        return code, f"{code}: {details.get('Message', '')}"
    return "", transport_problem(error) or f"{type(error).__name__}: {error}"


def _guarded(call: Callable[[], StopAttempt], not_found: frozenset[str], what: str) -> StopAttempt:
    """Run one controller action; a missing resource has finished, any other error is reported."""
    from botocore.exceptions import BotoCoreError, ClientError  # a local abort never loads it

    try:
        return call()
    except (ClientError, BotoCoreError) as error:
        code, text = _aws_failure(error)
        if code in not_found:
            return StopAttempt(outcome=_FINISHED, detail=f"no such {what} ({code})")
        return StopAttempt(outcome=_FAILED, detail=text)


_NO_EXECUTION_ARN = StopAttempt(outcome=_FAILED, detail="the locator has no executionArn")


class StepFunctionsSubProcessController(LazyClient):
    """`stepFunctionsExecution` children (their executionArn): StopExecution, then
    DescribeExecution."""

    _NOT_FOUND = frozenset({"ExecutionDoesNotExist"})

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        arn = sub_execution.execution_arn
        if not arn:
            return _NO_EXECUTION_ARN

        def stop() -> StopAttempt:
            status = self._status(arn)
            if status not in _SFN_OPEN:
                return StopAttempt(outcome=_FINISHED, detail=f"it had ended: {status}")
            self.client.stop_execution(executionArn=arn, error=STOP_ERROR, cause=STOP_CAUSE)
            return self._seen(self._status(arn))

        return _guarded(stop, self._NOT_FOUND, "execution")

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        arn = sub_execution.execution_arn
        if not arn:
            return _NO_EXECUTION_ARN
        return _guarded(lambda: self._seen(self._status(arn)), self._NOT_FOUND, "execution")

    def _status(self, arn: str) -> str:
        return str(self.client.describe_execution(executionArn=arn)["status"])

    @staticmethod
    def _seen(status: str) -> StopAttempt:
        if status in _SFN_OPEN:
            return StopAttempt(outcome=_REQUESTED, detail=f"still {status}")
        if status == "ABORTED":
            return StopAttempt(outcome=_STOPPED, detail=status)
        return StopAttempt(outcome=_FINISHED, detail=f"it ended {status}")


_NO_JOB = StopAttempt(outcome=_FAILED, detail="the locator has no jobId or jobArn")


class BatchSubProcessController(LazyClient):
    """`batchJob` children (jobId, else jobArn: both name a job to Batch): TerminateJob with a
    reason, confirmed by DescribeJobs.

    TerminateJob is sent whatever the job's state (AWS leaves a finished job as it was), and
    termination is asynchronous: a job not yet FAILED stays stopRequested until the sweep sees it.
    """

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        job_id = sub_execution.job_id or sub_execution.job_arn
        if not job_id:
            return _NO_JOB

        def stop() -> StopAttempt:
            self.client.terminate_job(jobId=job_id, reason=BATCH_REASON)
            return self._seen(job_id)

        return _guarded(stop, frozenset(), "job")

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        job_id = sub_execution.job_id or sub_execution.job_arn
        if not job_id:
            return _NO_JOB
        return _guarded(lambda: self._seen(job_id), frozenset(), "job")

    def _seen(self, job_id: str) -> StopAttempt:
        jobs = self.client.describe_jobs(jobs=[job_id]).get("jobs", [])
        if not jobs:
            return StopAttempt(outcome=_FINISHED, detail="no such job")
        status, reason = str(jobs[0].get("status", "")), str(jobs[0].get("statusReason", ""))
        if status == "FAILED" and reason == BATCH_REASON:
            return StopAttempt(outcome=_STOPPED, detail="FAILED: terminated by wfx")
        if status in ("SUCCEEDED", "FAILED"):
            return StopAttempt(outcome=_FINISHED, detail=f"it ended {status}")
        return StopAttempt(outcome=_REQUESTED, detail=f"still {status}")


DEADLINE_ID_FORMAT = "farmId, queueId and jobId (or the job ARN)"
_DEADLINE_ENDED = frozenset({"SUCCEEDED", "FAILED", "CANCELED", "NOT_COMPATIBLE"})


def _deadline_job(sub: RegisteredSubExecution) -> tuple[str, str, str] | None:
    """(farmId, queueId, jobId) of a `deadlineCloudJob` locator: its three ids, else its ARN."""
    if sub.farm_id and sub.queue_id and sub.job_id:
        return sub.farm_id, sub.queue_id, sub.job_id
    return parse_deadline_job(sub.job_arn or sub.arn)


class DeadlineSubProcessController(LazyClient):
    """`deadlineCloudJob` children: UpdateJob(targetTaskRunStatus=CANCELED), confirmed by
    GetJob."""

    _NOT_FOUND = frozenset({"ResourceNotFoundException"})

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        ids = _deadline_job(sub_execution)
        if ids is None:
            return StopAttempt(outcome=_FAILED, detail=f"the locator needs {DEADLINE_ID_FORMAT}")
        farm, queue, job = ids

        def stop() -> StopAttempt:
            status = self._status(farm, queue, job)
            if status in _DEADLINE_ENDED:
                return StopAttempt(outcome=_FINISHED, detail=f"it had ended: {status}")
            self.client.update_job(
                farmId=farm, queueId=queue, jobId=job, targetTaskRunStatus="CANCELED"
            )
            return self._seen(self._status(farm, queue, job))

        return _guarded(stop, self._NOT_FOUND, "job")

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        ids = _deadline_job(sub_execution)
        if ids is None:
            return StopAttempt(outcome=_FAILED, detail=f"the locator needs {DEADLINE_ID_FORMAT}")
        return _guarded(lambda: self._seen(self._status(*ids)), self._NOT_FOUND, "job")

    def _status(self, farm: str, queue: str, job: str) -> str:
        found = self.client.get_job(farmId=farm, queueId=queue, jobId=job)
        # taskRunStatus is optional in the response: a job still being created has none yet
        return str(found.get("taskRunStatus", found.get("lifecycleStatus", "")))

    @staticmethod
    def _seen(status: str) -> StopAttempt:
        if status == "CANCELED":
            return StopAttempt(outcome=_STOPPED, detail=status)
        if status in _DEADLINE_ENDED:
            return StopAttempt(outcome=_FINISHED, detail=f"it ended {status}")
        return StopAttempt(outcome=_REQUESTED, detail=f"still {status}")
