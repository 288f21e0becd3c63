"""The Step Functions orchestrator: one execution per run, named by the workflow execution id.

The client is any boto3 `stepfunctions` client; built without `endpoint_url`, it honours boto3's
`AWS_ENDPOINT_URL` / `AWS_ENDPOINT_URL_SFN` (boto3 names it after the service id, SFN), so moto's
server or LocalStack stand in for AWS with no change here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from adapters.aws.failures import transport_problem
from adapters.concurrent_reads import ConcurrentReads
from application.ports.orchestration import (
    Described,
    HistoryPage,
    OrchestratorExecution,
    OrchestratorReadError,
    StateMachineDescription,
    StateMachineTakenError,
    Stopped,
    TaskCallbacks,
)
from domain.approvals import CANCELLED_ERROR, ApprovalRequest, ApprovalStatus
from domain.errors import ConflictError, ExecutionAlreadyExistsError, InvalidInputError
from domain.execution import PipelineExecution, WorkflowExecution, run_input_document
from domain.statuses import ExecutionStatus
from domain.workflow import WorkflowVersion

if TYPE_CHECKING:
    from domain.run import Run

# StopExecution's limits: a longer error or cause is a ValidationException, not a stop.
_MAX_ERROR_CHARS = 256
_MAX_CAUSE_CHARS = 32768


def _error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _error_message(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Message", "")) or str(error)


def _not_ours(execution: WorkflowExecution, runner: str) -> str:
    return (
        f"execution {execution.workflow_execution_id} runs on the {execution.orchestrator} "
        f"runner, not on {runner}: set WFX_RUNNER={execution.orchestrator}"
    )


def execution_arn_for(state_machine_arn: str, execution_name: str) -> str:
    """A standard workflow's execution ARN: the state machine's, with `execution` and the name."""
    prefix, marker, machine = state_machine_arn.partition(":stateMachine:")
    if not marker:
        raise InvalidInputError(f"stateMachineArn: not a state machine ARN: {state_machine_arn}")
    machine_name = machine.split(":", 1)[0]  # a version or alias suffix is not part of it
    return f"{prefix}:execution:{machine_name}:{execution_name}"


def _included(details: Any) -> bool | None:
    """inputDetails / outputDetails: {"included": false} when the data is not returned."""
    if not isinstance(details, dict) or "included" not in details:
        return None
    return bool(details["included"])


class TaskAnswerError(RuntimeError):
    """Step Functions refused a gate's answer for a reason other than a token it no longer
    knows; the message names the call and the error code only (AWS's own message may quote the
    token, a credential)."""


# The token's task is over (timed out, its run stopped or ended): nothing waits on an answer.
_TOKEN_GONE = frozenset({"TaskTimedOut", "InvalidToken", "TaskDoesNotExist"})


class StepFunctionsTaskCallbacks:
    """A closed gate's answer to the task waiting on its token: SendTaskSuccess with the
    decision when approved, SendTaskFailure with the gate's error (`wfx.ApprovalRejected`, ...)
    and the rest of the step's error text as the cause otherwise, within AWS's limits."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def answer(self, approval: ApprovalRequest) -> None:
        token = approval.task_token
        if token is None or approval.is_pending:
            return  # no token reported yet, or nothing decided: there is no answer to give
        approved = approval.status is ApprovalStatus.APPROVED
        call = "SendTaskSuccess" if approved else "SendTaskFailure"
        try:
            if approved:
                output = {
                    "approvalId": approval.approval_id,
                    "status": approval.status.value,
                    "decidedBy": approval.decided_by,
                }
                self._client.send_task_success(taskToken=token, output=json.dumps(output))
            else:
                # the cause carries the reason: together they read as the step's error does
                error, _, cause = (approval.step_error() or CANCELLED_ERROR).partition(": ")
                self._client.send_task_failure(
                    taskToken=token,
                    error=error[:_MAX_ERROR_CHARS],
                    cause=(cause or approval.status.value)[:_MAX_CAUSE_CHARS],
                )
        except ClientError as failure:
            code = _error_code(failure)
            if code in _TOKEN_GONE:
                return
            raise TaskAnswerError(f"{call}: {code or 'refused'}") from None
        except BotoCoreError as failure:
            problem = transport_problem(failure) or type(failure).__name__
            raise TaskAnswerError(f"{call}: {problem}") from None


class StepFunctionsOrchestrator:
    """Runs workflow executions as AWS Step Functions standard-workflow executions."""

    name = "stepfunctions"
    synchronous = False

    def __init__(
        self,
        client: Any,
        callbacks: TaskCallbacks | None = None,
        concurrent_reads: bool = True,
    ) -> None:
        """`concurrent_reads`: several runs' describes (`describe_each`, a list page's open
        runs) are sent at once; false, one after another."""
        self._client = client
        self._callbacks = callbacks or StepFunctionsTaskCallbacks(client)
        self._reads = ConcurrentReads(concurrent_reads)

    def start_problem(self, version: WorkflowVersion) -> str | None:
        if version.state_machine_arn:
            return None
        workflow = f"{version.database_id}/{version.workflow_id}"
        return (
            f"workflow {workflow} version {version.version} is not deployed to Step "
            f"Functions: run `wfx workflows deploy {workflow}` first"
        )

    def ended_run(self, workflow_execution_id: str) -> None:
        return None  # never ended within a start

    def launch_claim(self) -> None:
        return None  # the state machine runs the run: no lease, its steps start as it says

    def start_execution(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        steps: Sequence[PipelineExecution],
    ) -> str | None:
        state_machine_arn = version.state_machine_arn
        if not state_machine_arn:
            raise InvalidInputError(self.start_problem(version) or "not deployed")
        payload = run_input_document(execution, steps)
        name = execution.workflow_execution_id
        try:
            response = self._client.start_execution(
                stateMachineArn=state_machine_arn,
                name=name,  # so $$.Execution.Name is the workflow execution id
                input=json.dumps(payload, separators=(",", ":")),
            )
        except ClientError as error:
            if _error_code(error) != "ExecutionAlreadyExists":
                raise
            return self._existing_execution(state_machine_arn, name, payload, error)
        return str(response["executionArn"])

    def _existing_execution(
        self, state_machine_arn: str, name: str, payload: dict[str, Any], error: ClientError
    ) -> str:
        """A retried start of the same run gets the execution it started; any other is refused."""
        arn = execution_arn_for(state_machine_arn, name)
        try:
            existing = self._client.describe_execution(executionArn=arn)
        except ClientError:
            raise ExecutionAlreadyExistsError(
                f"Step Functions execution {name}: {_error_message(error)}"
            ) from error
        try:
            same_input = json.loads(existing.get("input") or "null") == payload
        except ValueError:
            same_input = False
        if not same_input:
            raise ExecutionAlreadyExistsError(
                f"Step Functions execution {name} already exists with a different input"
            ) from error
        return str(existing["executionArn"])

    def describe_each(self, executions: Sequence[WorkflowExecution]) -> list[Described]:
        return self._reads.each(
            [partial(Described.of, self.describe_execution, execution) for execution in executions]
        )

    def describe_execution(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        if not execution.execution_arn:
            return None
        try:
            response = self._client.describe_execution(executionArn=execution.execution_arn)
        except ClientError as error:
            if _error_code(error) == "ExecutionDoesNotExist":
                return None
            raise
        except BotoCoreError as error:  # no credentials, no route to Step Functions
            problem = transport_problem(error) or type(error).__name__
            raise OrchestratorReadError(f"DescribeExecution: {problem}") from error
        return OrchestratorExecution(
            status=ExecutionStatus(response["status"]),
            start_date=response.get("startDate"),
            stop_date=response.get("stopDate"),
            error=response.get("error"),
            cause=response.get("cause"),
            redrive_count=int(response.get("redriveCount") or 0),
            redrive_date=response.get("redriveDate"),
            redrive_status=response.get("redriveStatus"),
            redrive_status_reason=response.get("redriveStatusReason"),
            name=response.get("name"),
            execution_arn=response.get("executionArn"),
            state_machine_arn=response.get("stateMachineArn"),
            state_machine_version_arn=response.get("stateMachineVersionArn"),
            state_machine_alias_arn=response.get("stateMachineAliasArn"),
            map_run_arn=response.get("mapRunArn"),
            input=response.get("input"),
            output=response.get("output"),
            input_included=_included(response.get("inputDetails")),
            output_included=_included(response.get("outputDetails")),
            trace_header=response.get("traceHeader"),
        )

    def lost_runner(self, execution: WorkflowExecution) -> None:
        return None  # only DescribeExecution tells, under the 30-second rule

    def stop_execution(self, execution: WorkflowExecution, error: str, cause: str) -> Stopped:
        if not execution.execution_arn:
            if execution.orchestrator != self.name:
                raise ConflictError(_not_ours(execution, self.name))
            return Stopped()  # its start failed before Step Functions gave an ARN: nothing to stop
        try:
            # stopping a run that has already ended is accepted, and changes nothing
            self._client.stop_execution(
                executionArn=execution.execution_arn,
                error=error[:_MAX_ERROR_CHARS],
                cause=cause[:_MAX_CAUSE_CHARS],
            )
        except ClientError as failure:
            if _error_code(failure) != "ExecutionDoesNotExist":
                raise
        return Stopped()

    def redrive_execution(
        self, execution: WorkflowExecution, client_token: str, known: Run | None = None
    ) -> datetime:
        """`known` is not needed: Step Functions redrives the run from its own history."""
        if not execution.execution_arn:
            raise ConflictError(
                f"execution {execution.workflow_execution_id} has no Step Functions execution "
                "to redrive"
            )
        try:
            response = self._client.redrive_execution(
                executionArn=execution.execution_arn, clientToken=client_token
            )
        except ClientError as error:
            if _error_code(error) == "ExecutionNotRedrivable":
                raise ConflictError(_error_message(error)) from error
            raise
        redrive_date: datetime = response["redriveDate"]
        return redrive_date

    def resume_execution(self, execution: WorkflowExecution, approval: ApprovalRequest) -> None:
        """The waiting task's answer (StepFunctionsTaskCallbacks)."""
        self._callbacks.answer(approval)

    def history_page(
        self, execution: WorkflowExecution, next_token: str | None = None, max_results: int = 1000
    ) -> HistoryPage:
        if not execution.execution_arn:
            return HistoryPage(events=())
        request: dict[str, Any] = {
            "executionArn": execution.execution_arn,
            "maxResults": max_results,
            "reverseOrder": False,
        }
        if next_token:
            request["nextToken"] = next_token
        response = self._client.get_execution_history(**request)
        return HistoryPage(
            events=tuple(response.get("events", ())), next_token=response.get("nextToken")
        )

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineDescription | None:
        try:
            response = self._client.describe_state_machine(stateMachineArn=state_machine_arn)
        except ClientError as error:
            if _error_code(error) in ("StateMachineDoesNotExist", "InvalidArn"):
                return None
            raise OrchestratorReadError(f"DescribeStateMachine: {_error_code(error)}") from error
        except BotoCoreError as error:  # no credentials, no answer
            problem = transport_problem(error) or type(error).__name__
            raise OrchestratorReadError(f"DescribeStateMachine: {problem}") from error
        return StateMachineDescription(
            arn=str(response["stateMachineArn"]),
            definition=json.loads(response["definition"]),
            logging_configuration=dict(response.get("loggingConfiguration") or {}),
            status=response.get("status"),
        )


def _check_same_comment(name: str, current: dict[str, Any], definition: dict[str, Any]) -> None:
    """The machine `current` runs what `definition` describes (its Comment names the workflow and
    version), or StateMachineTakenError: two keys may read alike in a name's alphabet."""
    try:
        comment = json.loads(current.get("definition") or "{}").get("Comment")
    except (ValueError, AttributeError):
        comment = None
    if comment != definition.get("Comment"):
        raise StateMachineTakenError(f"state machine {name} runs another definition: {comment!r}")


class StepFunctionsDeployer:
    """Creates a workflow version's standard state machine, or updates the one of that name."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def deploy(
        self, name: str, definition: dict[str, Any], role_arn: str, log_group_arn: str
    ) -> str:
        settings: dict[str, Any] = {
            "definition": json.dumps(definition),
            "roleArn": role_arn,
            "loggingConfiguration": {
                "level": "ALL",
                "includeExecutionData": True,
                "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": log_group_arn}}],
            },
        }
        try:
            created = self._client.create_state_machine(name=name, type="STANDARD", **settings)
        except ClientError as error:
            if _error_code(error) != "StateMachineAlreadyExists":
                raise
            arn = self._arn_of(name)
            current = self._client.describe_state_machine(stateMachineArn=arn)
        else:
            arn = str(created["stateMachineArn"])
            # AWS refuses a create that differs from the machine of that name; some emulators
            # (moto) return the old machine unchanged instead, so check what is really there.
            current = self._client.describe_state_machine(stateMachineArn=arn)
        if any(current.get(key) != value for key, value in settings.items()):
            _check_same_comment(name, current, definition)
            self._client.update_state_machine(stateMachineArn=arn, **settings)
        return arn

    def _arn_of(self, name: str) -> str:
        for page in self._client.get_paginator("list_state_machines").paginate():
            for machine in page.get("stateMachines", ()):
                if machine.get("name") == name:
                    return str(machine["stateMachineArn"])
        raise ConflictError(f"state machine {name} exists but is not listed; retry the deploy")
