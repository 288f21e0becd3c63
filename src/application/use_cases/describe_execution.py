"""DescribeExecution: a run as Step Functions' DescribeExecution gives one (seed 001), whoever ran
it: read from Step Functions for its runs, computed from the stored rows for a local run."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import ExecutionQueries
from application.ports.orchestration import Orchestrator, OrchestratorExecution
from application.use_cases.get_execution import GetExecution, GetExecutionQuery
from domain.execution import (
    ExecutionDetails,
    WorkflowExecution,
    failure_parts,
    run_input_document,
)
from domain.redrive import LOCAL_ORCHESTRATOR
from domain.run import ABORT_ERROR, DEFAULT_ABORT_CAUSE
from domain.statuses import ExecutionStatus


class DescribeExecutionQuery(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)


class ExecutionDescription(BaseModel):
    """The executions resource's whole field set (seed 001), snake_case."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    status: str
    start_date: datetime
    stop_date: datetime | None = None
    error: str | None = None
    cause: str | None = None
    input: str | None = None  # JSON text, as Step Functions returns it
    output: str | None = None  # only once SUCCEEDED
    input_included: bool = True
    output_included: bool = True
    execution_arn: str
    state_machine_arn: str
    state_machine_version_arn: str | None = None
    state_machine_alias_arn: str | None = None
    map_run_arn: str | None = None
    redrive_count: int = 0
    redrive_date: datetime | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    trace_header: str | None = None


def local_state_machine_arn(execution: WorkflowExecution) -> str:
    """ARN-like, so tools that split ARNs read a local run too; `wfx` is not a partition AWS
    has, so it can never be taken for a real one."""
    workflow = f"{execution.workflow_database_id}/{execution.workflow_id}"
    return f"arn:wfx:local:stateMachine:{workflow}"


def local_execution_arn(execution: WorkflowExecution) -> str:
    workflow = f"{execution.workflow_database_id}/{execution.workflow_id}"
    return f"arn:wfx:local:execution:{workflow}:{execution.workflow_execution_id}"


class DescribeExecution:
    """Describe one run with DescribeExecution's fields: its Step Functions execution's own
    answer when it has one, else computed from the rows (input and output documents, a local
    ARN, the redrive status derived by seed 001's rules, error and cause apart)."""

    def __init__(
        self, store: ExecutionQueries, get_execution: GetExecution, orchestrator: Orchestrator
    ) -> None:
        self._store, self._get, self._orchestrator = store, get_execution, orchestrator

    def execute(self, query: DescribeExecutionQuery) -> ExecutionDescription:
        # reconciled and with its redrive status derived, as every read gives it
        execution = self._get.execute(
            GetExecutionQuery(workflow_execution_id=query.workflow_execution_id)
        )
        if execution.orchestrator != LOCAL_ORCHESTRATOR and execution.execution_arn:
            described = self._orchestrator.describe_execution(execution)
            if described is not None:
                return _as_described(execution, described)
        # a local run, or one Step Functions never started (its start failed): the rows say all
        details = self._store.get_details(execution.workflow_execution_id)
        return _computed(execution, details)


def _as_described(
    execution: WorkflowExecution, described: OrchestratorExecution
) -> ExecutionDescription:
    # What the service leaves out (an emulator's gaps) is taken from the row.
    fallback = _computed(execution, None)
    return ExecutionDescription(
        name=described.name or execution.workflow_execution_id,
        status=described.status.value,
        start_date=described.start_date or execution.execution_start_date,
        stop_date=described.stop_date,
        error=described.error,
        cause=described.cause,
        input=described.input,
        output=described.output,
        input_included=True if described.input_included is None else described.input_included,
        output_included=True if described.output_included is None else described.output_included,
        execution_arn=described.execution_arn or fallback.execution_arn,
        state_machine_arn=described.state_machine_arn or fallback.state_machine_arn,
        state_machine_version_arn=described.state_machine_version_arn,
        state_machine_alias_arn=described.state_machine_alias_arn,
        map_run_arn=described.map_run_arn,
        redrive_count=described.redrive_count,
        redrive_date=described.redrive_date,
        redrive_status=described.redrive_status,
        redrive_status_reason=described.redrive_status_reason,
        trace_header=described.trace_header,
    )


def _computed(
    execution: WorkflowExecution, details: ExecutionDetails | None
) -> ExecutionDescription:
    error, cause = failure_parts(execution)
    if execution.status is ExecutionStatus.ABORTED and execution.abort_requested_date and not error:
        # what wfx's abort asks the orchestrator to stop with, as Step Functions then describes
        # it; the row keeps no executionError for an abort (seed 000), its cause is abortCause
        error, cause = ABORT_ERROR, execution.abort_cause or DEFAULT_ABORT_CAUSE
    local = execution.orchestrator == LOCAL_ORCHESTRATOR
    state_machine_arn = execution.state_machine_arn or local_state_machine_arn(execution)
    steps = [entry.step for entry in details.steps] if details is not None else []
    return ExecutionDescription(
        name=execution.workflow_execution_id,
        # Step Functions has no NEW: to it a launched run is running
        status=(
            ExecutionStatus.RUNNING.value
            if execution.status is ExecutionStatus.NEW
            else execution.status.value
        ),
        start_date=execution.execution_start_date,
        stop_date=execution.execution_stop_date,
        error=error,
        cause=cause,
        input=_json(run_input_document(execution, steps)) if details is not None else None,
        output=_output(execution, details),
        execution_arn=execution.execution_arn or local_execution_arn(execution),
        state_machine_arn=state_machine_arn,
        # a local run runs one published version, which never changes (seed 003)
        state_machine_version_arn=f"{state_machine_arn}:{execution.workflow_version}"
        if local
        else None,
        redrive_count=execution.redrive_count,
        redrive_date=execution.redrive_date,
        redrive_status=execution.redrive_status,
        redrive_status_reason=execution.redrive_status_reason,
    )


def _output(execution: WorkflowExecution, details: ExecutionDetails | None) -> str | None:
    """A succeeded run's output document: what the completion answers, with the files each
    step wrote (Step Functions, too, has output only for a run that succeeded)."""
    if details is None or execution.status is not ExecutionStatus.SUCCEEDED:
        return None
    files = [
        {
            "pipelineExecutionId": row.pipeline_execution_id,
            "fileType": row.file_type,
            "relativeFilePath": row.relative_file_path,
            "versionId": row.version_id,
        }
        for entry in details.steps
        for row in entry.outputs.files
    ]
    document: dict[str, Any] = {
        "workflowExecutionId": execution.workflow_execution_id,
        "status": execution.status.value,
        "outputFiles": files,
    }
    return _json(document)


def _json(document: dict[str, Any]) -> str:
    return json.dumps(document, separators=(",", ":"))
