"""The one response contract of every entrypoint: the HTTP bodies and every `--json` of the CLI.

Pydantic models with the seeds' names (camelCase on the way out), built from what the use cases
return - never from the storage records: no composite key, `allListPartition`, `requestDigest`,
lease or object key leaves. Free text (logs, errors, messages) is redacted as the model is built,
so that no entrypoint can forget to.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer
from pydantic.alias_generators import to_camel

from application.use_cases.administer_roles import AppliedTemplate
from application.use_cases.delete_execution import DeleteResult
from application.use_cases.describe_execution import ExecutionDescription
from application.use_cases.get_execution_logs import AttemptLog, ExecutionLogs, LogSourceReport
from application.use_cases.publish_registration import PublishedRegistration
from application.use_cases.show_workflow import WorkflowView
from application.use_cases.sweep_aborts import SweepAbortsResult
from domain.approvals import ApprovalRequest
from domain.assets import AssetFile
from domain.attempts import TaskExecution
from domain.available_logs import AvailableLog, group_name_of
from domain.constraints import Constraint, Criterion, Role, RoleAssignment
from domain.events import ExecutionEvent
from domain.execution import (
    Artifact,
    ExecutionConfiguration,
    ExecutionInput,
    OutputMetadata,
    OutputResult,
    PipelineExecution,
    StepInputConfiguration,
    StepInputMetadata,
    StepLog,
    WorkflowExecution,
)
from domain.logs import LogLocation, RegisteredLog, RegisteredSubExecution
from domain.paging import Page
from domain.permission_templates import ROLE_NAME_VARIABLE, PermissionTemplate
from domain.redaction import REDACTED, is_secret_name, redact, redact_lines, redact_optional
from domain.stages import SubExecutionWarning
from domain.sub_processes import SubExecutionStop
from domain.truncation import TruncatedCollection
from domain.workflow import StepDefinition, WorkflowDefinition, WorkflowVersion
from entrypoints.shown_run import shown_run, shown_text
from entrypoints.withheld import resource_name, without_arns


def _utc(moment: datetime) -> str:
    # the stored form: fixed width, so that dates sort as text
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


UtcDate = Annotated[datetime, PlainSerializer(_utc, return_type=str)]


class Response(BaseModel):
    """Frozen, camelCase on the way out; absent values are left out of `dump()`."""

    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, populate_by_name=True, defer_build=True
    )

    def dump(self) -> dict[str, Any]:
        """The JSON document as the CLI prints it and the HTTP service sends it."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# -- the main row and what a launch wrote beside it ----------------------------------------------


class ExecutionResponse(Response):
    """The main row (seed 000 WorkflowExecutionsStorageTableV2), as a caller may see it: with
    `executionError`, never the run log, which only the logs route returns (seed 000 scopes
    full log retrieval to it, and some templates deny it; VAMS's lists and details do the same).
    No ARN: VAMS keeps its state machines' and executions' ARNs from its callers (`wfx
    describe` is where an operator reads them). Its values are the run's one mapping
    (entrypoints.shown_run), dates kept to the microsecond."""

    workflow_execution_id: str
    workflow_database_id: str
    workflow_id: str
    workflow_version: int
    execution_group_id: str | None = None
    execution_status: str
    execution_start_date: UtcDate
    start_date_estimated: bool | None = None  # true only when the start was estimated
    execution_stop_date: UtcDate | None = None
    last_sfn_sync_check_date: UtcDate | None = None
    triggered_by_user_id: str
    trigger_type: str
    orchestrator: str
    execution_error: str | None = None
    execution_cause: str | None = None
    redrive_count: int = 0
    redrive_date: UtcDate | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    client_token: str | None = None
    rerun_of_execution_id: str | None = None
    abort_requested_date: UtcDate | None = None
    abort_cause: str | None = None
    finishing_date: UtcDate | None = None
    runner_lease_owner: str | None = None

    @classmethod
    def of(cls, execution: WorkflowExecution) -> Self:
        return cls(**shown_run(execution))


class AbortResponse(ExecutionResponse):
    """An abort's answer: the row, and what it may have left running (named, redacted)."""

    abort_warnings: tuple[str, ...] | None = None

    @classmethod
    def of_abort(cls, execution: WorkflowExecution, warnings: Sequence[str]) -> Self:
        row = ExecutionResponse.of(execution).model_dump()
        return cls(**row, abort_warnings=tuple(shown_text(w) for w in warnings) or None)


class DeleteResponse(Response):
    """A permanent delete's answer; `deleted` is false when there was nothing left to delete."""

    workflow_execution_id: str
    deleted: bool
    aborted: bool = False
    objects_deleted: int = 0
    abort_warnings: tuple[str, ...] | None = None

    @classmethod
    def of(cls, result: DeleteResult) -> Self:
        return cls(
            workflow_execution_id=result.workflow_execution_id,
            deleted=result.deleted,
            aborted=result.aborted,
            objects_deleted=result.objects_deleted,
            abort_warnings=tuple(shown_text(w) for w in result.warnings) or None,
        )


class ContentDetailsResponse(Response):
    """inputDetails / outputDetails: whether the data is in the answer."""

    included: bool


class DescribeResponse(Response):
    """DescribeExecution's answer (seed 001 names), for every run: from Step Functions, or as
    computed for a local run. Error and cause are redacted; input and output are JSON text."""

    name: str
    status: str
    start_date: UtcDate
    stop_date: UtcDate | None = None
    error: str | None = None
    cause: str | None = None
    input: str | None = None
    output: str | None = None
    input_details: ContentDetailsResponse
    output_details: ContentDetailsResponse
    execution_arn: str
    state_machine_arn: str
    state_machine_version_arn: str | None = None
    state_machine_alias_arn: str | None = None
    map_run_arn: str | None = None
    redrive_count: int = 0
    redrive_date: UtcDate | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    trace_header: str | None = None

    @classmethod
    def of(cls, description: ExecutionDescription) -> Self:
        values = description.model_dump(exclude={"input_included", "output_included"})
        values |= {
            "error": redact_optional(description.error),
            "cause": redact_optional(description.cause),
            "input": redact_optional(description.input),
            "output": redact_optional(description.output),
            "input_details": ContentDetailsResponse(included=description.input_included),
            "output_details": ContentDetailsResponse(included=description.output_included),
        }
        return cls(**values)


class ExecutionConfigurationResponse(Response):
    workflow_execution_id: str
    workflow_database_id: str
    workflow_id: str
    workflow_version: int
    execution_start_date: UtcDate
    output_database_id: str | None = None
    output_asset_id: str | None = None
    input_selections: tuple[str, ...] = ()
    execution_group_id: str | None = None

    @classmethod
    def of(cls, configuration: ExecutionConfiguration) -> Self:
        database_id, _, workflow_id = configuration.workflow_key.partition(":")
        return cls(
            workflow_execution_id=configuration.workflow_execution_id,
            workflow_database_id=database_id,
            workflow_id=workflow_id,
            workflow_version=configuration.workflow_version,
            execution_start_date=configuration.execution_start_date,
            output_database_id=configuration.output_database_id,
            output_asset_id=configuration.output_asset_id,
            input_selections=configuration.input_selections,
            execution_group_id=configuration.execution_group_id,
        )


def shown_input(row: ExecutionInput) -> dict[str, Any]:
    """An input row as every answer shows it (VAMS's `inputFiles`, a details/metadata page)."""
    return {
        "database_id": row.database_id,
        "asset_id": row.asset_id,
        "input_asset_file_key": row.input_asset_file_key,
        "version_id": row.version_id,
    }


# -- a step ---------------------------------------------------------------------------------------


class RegisteredSubExecutionResponse(Response):
    """The typed locator as stored, without its ARNs (VAMS keeps them from its callers): the
    ids that are not ARNs (a Batch job's, a Deadline Cloud farm's, queue's and job's), and
    `resourceName`, the name wfx shows it by."""

    resource_type: str
    resource_name: str
    job_id: str | None = None
    farm_id: str | None = None
    queue_id: str | None = None
    local_process_id: str | None = None
    stage_name: str | None = None
    label: str = ""

    @classmethod
    def of(cls, sub: RegisteredSubExecution) -> Self:
        return cls(
            resource_type=sub.resource_type,
            resource_name=resource_name(sub.resource_id),
            job_id=sub.job_id or None,
            farm_id=sub.farm_id or None,
            queue_id=sub.queue_id or None,
            local_process_id=sub.local_process_id or None,
            stage_name=sub.stage_name or None,
            label=sub.label,
        )


def _shown_location(log: LogLocation) -> dict[str, str]:
    """A log location's fields as VAMS shows them: the group by name, never by ARN."""
    return {
        "log_group_name": log.log_group_name or group_name_of(log.log_group_arn),
        "log_stream_name": log.log_stream_name,
        "log_stream_prefix": log.log_stream_prefix,
        "stage_name": log.stage_name,
        "label": log.label,
        "source_type": log.source_type,
    }


class RegisteredLogResponse(Response):
    """A registered log location, by name: VAMS shows no log group ARN."""

    log_group_name: str = ""
    log_stream_name: str = ""
    log_stream_prefix: str = ""
    stage_name: str = ""
    label: str = ""
    source_type: str = ""

    @classmethod
    def of(cls, log: RegisteredLog) -> Self:
        return cls(**_shown_location(log))


class SubExecutionStopResponse(Response):
    resource_type: str
    resource_name: str
    outcome: str
    detail: str = ""
    at: UtcDate
    tries: int

    @classmethod
    def of(cls, stop: SubExecutionStop) -> Self:
        return cls(
            resource_type=stop.resource_type,
            resource_name=resource_name(stop.resource_id),
            outcome=stop.outcome.value,
            detail=without_arns(redact(stop.detail)),
            at=stop.at,
            tries=stop.tries,
        )


class PipelineExecutionResponse(Response):
    """One step of the run (seed 000 PipelineExecutionsStorageTable), without what VAMS keeps
    from its callers: the S3 buckets and prefixes, the vended role and its scopes."""

    pipeline_execution_id: str
    workflow_execution_id: str
    pipeline_database_id: str
    pipeline_id: str
    step_index: int
    step_definition_id: str | None = None
    status: str
    start_date: UtcDate | None = None
    stop_date: UtcDate | None = None
    error_message: str | None = None
    execution_type: str
    input_file_arity: str
    # seed 000's own name for the chain link, snake_case as it stands there
    from_pipeline_execution_id: str | None = Field(default=None, alias="from_pipeline_execution_id")
    end_state_pipeline: bool
    registered_sub_executions: tuple[RegisteredSubExecutionResponse, ...] = ()
    registered_logs: tuple[RegisteredLogResponse, ...] = ()
    sub_execution_stops: tuple[SubExecutionStopResponse, ...] | None = None

    @classmethod
    def of(cls, step: PipelineExecution) -> Self:
        return cls(
            **shown_step(step),
            workflow_execution_id=step.workflow_execution_id,
            status=step.status.value,
            start_date=step.start_date,
            stop_date=step.stop_date,
            execution_type=step.execution_type.value,
            input_file_arity=step.input_file_arity.value,
        )


def shown_step(step: PipelineExecution) -> dict[str, Any]:
    """A step's fields as every answer shows them (this row, VAMS's pipeline entry of the
    details): its error redacted, its sub-processes and log locations by name, never by ARN."""
    return {
        "pipeline_execution_id": step.pipeline_execution_id,
        "pipeline_database_id": step.pipeline_database_id,
        "pipeline_id": step.pipeline_id,
        "step_index": step.step_index,
        "step_definition_id": step.step_definition_id,
        "error_message": redact_optional(step.error),
        "from_pipeline_execution_id": step.from_pipeline_execution_id,
        "end_state_pipeline": step.end_state,
        "registered_sub_executions": tuple(
            RegisteredSubExecutionResponse.of(s) for s in step.registered_sub_executions
        ),
        "registered_logs": tuple(RegisteredLogResponse.of(log) for log in step.registered_logs),
        "sub_execution_stops": tuple(
            SubExecutionStopResponse.of(s) for s in step.sub_execution_stops
        )
        or None,
    }


class StepInputConfigurationResponse(Response):
    pipeline_execution_id: str
    workflow_execution_id: str
    execution_type: str
    handler: str | None = None
    command: tuple[str, ...] | None = None
    input_file_arity: str
    metadata_inputs: tuple[str, ...] = ()
    input_files: tuple[str, ...] = ()

    @classmethod
    def of(cls, configuration: StepInputConfiguration) -> Self:
        return cls(
            pipeline_execution_id=configuration.pipeline_execution_id,
            workflow_execution_id=configuration.workflow_execution_id,
            execution_type=configuration.execution_type.value,
            handler=redact_optional(configuration.handler),
            command=None
            if configuration.command is None
            else tuple(redact(part) for part in configuration.command),
            input_file_arity=configuration.input_file_arity.value,
            metadata_inputs=configuration.metadata_inputs,
            input_files=configuration.input_files,
        )


def shown_input_metadata(row: StepInputMetadata) -> dict[str, Any]:
    """A metadata row a step read as every answer shows it (VAMS's `inputMetadata`)."""
    return {
        "database_id": row.database_id,
        "asset_id": row.asset_id,
        "file_path": row.file_path,
        "metadata": {key: metadata_value(key, value) for key, value in row.metadata},
    }


def metadata_value(key: str, value: str) -> str:
    """As every answer shows a metadata value: a secret's by name withheld, others redacted."""
    return REDACTED if is_secret_name(key) else redact(value)


class ArtifactResponse(Response):
    """One output file version as the attempt that wrote it left it (seed 003 ARTIFACT)."""

    pipeline_execution_id: str
    workflow_execution_id: str
    attempt: int
    file_type: str
    relative_file_path: str
    version_id: str
    size: int
    etag: str
    recorded_at: UtcDate

    @classmethod
    def of(cls, row: Artifact) -> Self:
        return cls(
            pipeline_execution_id=row.pipeline_execution_id,
            workflow_execution_id=row.workflow_execution_id,
            attempt=row.attempt,
            file_type=row.file_type,
            relative_file_path=row.relative_file_path,
            version_id=row.version_id,
            size=row.size,
            etag=row.etag,
            recorded_at=row.recorded_at,
        )


def shown_output_metadata(row: OutputMetadata) -> dict[str, Any]:
    """A metadata value a step wrote as every answer shows it (VAMS's `outputs.metadata`)."""
    return {
        "target_file_path": row.target_file_path,
        "metadata_key": row.metadata_key,
        "metadata_value": metadata_value(row.metadata_key, row.value),
    }


class OutputResultResponse(Response):
    pipeline_execution_id: str
    workflow_execution_id: str
    relative_file_path: str
    version_id: str
    output_database_id: str | None = None
    output_asset_id: str | None = None
    asset_version_id: str | None = None

    @classmethod
    def of(cls, row: OutputResult) -> Self:
        return cls(
            pipeline_execution_id=row.pipeline_execution_id,
            workflow_execution_id=row.workflow_execution_id,
            relative_file_path=row.relative_file_path,
            version_id=row.version_id,
            output_database_id=row.output_database_id,
            output_asset_id=row.output_asset_id,
            asset_version_id=row.asset_version_id,
        )


class StepLogResponse(Response):
    """A step's summary log row, without its text: a step's log, like the run's, leaves only
    through the logs route (seed 000), which the reader templates deny. `message` is its first
    line, the step and how it ended."""

    pipeline_execution_id: str
    workflow_execution_id: str
    log_type: str
    status: str
    message: str
    log_location: str = ""

    @classmethod
    def of(cls, row: StepLog) -> Self:
        return cls(
            pipeline_execution_id=row.pipeline_execution_id,
            workflow_execution_id=row.workflow_execution_id,
            log_type=row.log_type,
            status=row.status,
            message=redact(row.message.split("\n", 1)[0]),
            log_location=without_arns(row.log_location),
        )


class AttemptResponse(Response):
    """One attempt of a step (seed 003 TASK_EXECUTION)."""

    pipeline_execution_id: str
    workflow_execution_id: str
    attempt: int
    status: str
    start_date: UtcDate
    stop_date: UtcDate | None = None
    error_message: str | None = None
    trigger: str

    @classmethod
    def of(cls, attempt: TaskExecution) -> Self:
        return cls(
            pipeline_execution_id=attempt.pipeline_execution_id,
            workflow_execution_id=attempt.workflow_execution_id,
            attempt=attempt.attempt,
            status=attempt.status.value,
            start_date=attempt.start_date,
            stop_date=attempt.stop_date,
            error_message=redact_optional(attempt.error),
            trigger=attempt.trigger.value,
        )


class AvailableLogResponse(Response):
    """A log source of a step, with its stable logId (seed 000 availableLogs), by name: VAMS
    shows no log group ARN."""

    log_id: str
    kind: str
    pipeline_execution_id: str
    log_group_name: str = ""
    log_stream_name: str = ""
    log_stream_prefix: str = ""
    stage_name: str = ""
    label: str = ""
    source_type: str = ""

    @classmethod
    def of(cls, entry: AvailableLog) -> Self:
        return cls(
            log_id=entry.log_id,
            kind=entry.kind.value,
            pipeline_execution_id=entry.pipeline_execution_id,
            **_shown_location(entry),
        )


class SubExecutionWarningResponse(Response):
    pipeline_execution_id: str
    resource_type: str
    resource_name: str
    message: str

    @classmethod
    def of(cls, warning: SubExecutionWarning) -> Self:
        return cls(
            pipeline_execution_id=warning.pipeline_execution_id,
            resource_type=warning.resource_type,
            resource_name=resource_name(warning.resource_id),
            message=without_arns(redact(warning.message)),
        )


# -- workflows and assets -------------------------------------------------------------------------


class RetryPolicyResponse(Response):
    max_attempts: int
    interval_seconds: float
    backoff_rate: float


class StepDefinitionResponse(Response):
    """One step definition of a version; its id is what each of its step runs points at."""

    step_definition_id: str | None = None
    step_index: int | None = None
    pipeline_id: str
    pipeline_database_id: str
    execution_type: str
    input_file_arity: str
    metadata_inputs: tuple[str, ...] = ()
    handler: str | None = None
    handler_path: str | None = None  # the folder the handler is imported from, if not sys.path
    command: tuple[str, ...] | None = None
    function_name: str | None = None
    wait_for_callback: bool | None = None
    job_queue: str | None = None
    job_definition: str | None = None
    retry: RetryPolicyResponse | None = None
    approvers: tuple[str, ...] | None = None
    message: str | None = None
    timeout_seconds: int | None = None

    @classmethod
    def of(
        cls, step: StepDefinition, version: WorkflowVersion | None = None, index: int = 0
    ) -> Self:
        gate = step.approval
        return cls(
            step_definition_id=None if version is None else version.step_definition_id(index),
            step_index=None if version is None else index,
            pipeline_id=step.pipeline_id,
            pipeline_database_id=step.pipeline_database_id,
            execution_type=step.execution_type.value,
            input_file_arity=step.input_file_arity.value,
            metadata_inputs=step.metadata_inputs,
            handler=redact_optional(step.handler),
            handler_path=redact_optional(step.handler_path),
            command=None if step.command is None else tuple(redact(p) for p in step.command),
            function_name=step.function_name,
            wait_for_callback=True if step.wait_for_callback else None,
            job_queue=step.job_queue,
            job_definition=step.job_definition,
            retry=None
            if step.retry is None
            else RetryPolicyResponse(
                max_attempts=step.retry.max_attempts,
                interval_seconds=step.retry.interval_seconds,
                backoff_rate=step.retry.backoff_rate,
            ),
            approvers=None if gate is None else gate.approvers,
            message=None if gate is None else redact(gate.message),
            timeout_seconds=None if gate is None else gate.timeout_seconds,
        )


class WorkflowVersionResponse(Response):
    """A published, immutable version of a workflow."""

    workflow_database_id: str
    workflow_id: str
    workflow_version: int
    description: str = ""
    published_at: UtcDate
    digest: str
    steps: tuple[StepDefinitionResponse, ...] = ()
    state_machine_arn: str | None = None
    state_machine_name: str | None = None
    created: bool | None = None
    warnings: tuple[str, ...] | None = None  # what a publish found worth saying

    @classmethod
    def of(
        cls,
        version: WorkflowVersion,
        created: bool | None = None,
        state_machine_name: str | None = None,
        warnings: Sequence[str] = (),
    ) -> Self:
        return cls(
            workflow_database_id=version.database_id,
            workflow_id=version.workflow_id,
            workflow_version=version.version,
            description=redact(version.description),
            published_at=version.published_at,
            digest=version.digest,
            steps=tuple(
                StepDefinitionResponse.of(step, version, index)
                for index, step in enumerate(version.steps)
            ),
            state_machine_arn=version.state_machine_arn,
            state_machine_name=state_machine_name,
            created=created,
            warnings=tuple(redact(w) for w in warnings) or None,
        )


class AssetFileResponse(Response):
    database_id: str
    asset_id: str
    file_key: str
    version_id: str
    size: int
    etag: str
    s3_bucket: str
    asset_root_s3_key: str = Field(alias="assetRootS3Key")
    modified_at: UtcDate
    metadata: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def of(cls, asset_file: AssetFile) -> Self:
        return cls(
            database_id=asset_file.database_id,
            asset_id=asset_file.asset_id,
            file_key=asset_file.file_key,
            version_id=asset_file.version_id,
            size=asset_file.size,
            etag=asset_file.etag,
            s3_bucket=asset_file.bucket,
            asset_root_s3_key=asset_file.asset_root_key,
            modified_at=asset_file.modified_at,
            metadata={key: metadata_value(key, value) for key, value in asset_file.metadata},
        )


# -- logs, the sweep, registrations, tables -------------------------------------------------------


class LogSourceResponse(AvailableLogResponse):
    """An available log and what reading it gave (notRead when it was not asked for)."""

    read_status: str
    execution_filtered: bool
    next_token: str | None = None
    problem: str | None = None

    @classmethod
    def of_report(cls, report: LogSourceReport) -> Self:
        return cls(
            **AvailableLogResponse.of(report.source).model_dump(),
            read_status=report.status.value,
            execution_filtered=report.execution_filtered,
            next_token=report.next_token,
            problem=shown_text(report.problem),
        )


class LogEventResponse(Response):
    log_id: str
    timestamp: UtcDate | None = None
    message: str


class AttemptLogResponse(Response):
    """One attempt of a step and the lines it wrote."""

    pipeline_execution_id: str
    pipeline_id: str
    attempt: int
    status: str
    lines: tuple[str, ...] = ()
    # the lines are the attempt's last: how many came before them, and the source to read them
    earlier_lines: int | None = None
    log_id: str | None = None

    @classmethod
    def of(cls, log: AttemptLog) -> Self:
        return cls(
            pipeline_execution_id=log.pipeline_execution_id,
            pipeline_id=log.pipeline_id,
            attempt=log.attempt,
            status=log.status.value,
            lines=log.lines,
            earlier_lines=log.earlier or None,
            log_id=log.log_id if log.earlier else None,
        )


class ExecutionLogsResponse(Response):
    """The logs route's answer: the sources with their read status, the lines read, the one
    source's own next token, and the run's own log when no source was asked for."""

    workflow_execution_id: str
    mode: Literal["truncated", "full"]
    # VAMS's answers say the step asked for: the one-step stored log, and every read of the
    # sources ("" for the whole run's); the whole run's stored log says none
    pipeline_execution_id: str | None = None
    log_sources: tuple[LogSourceResponse, ...]
    events: tuple[LogEventResponse, ...] = ()
    next_token: str | None = None
    execution_log: str | None = None
    execution_log_earlier_lines: int | None = None  # lines before executionLog's, left out
    # said with the run's own log, "" when the run has none (VAMS's truncated whole-run answer)
    execution_error: str | None = None
    # one step's stored log (truncated mode with pipelineExecutionId): VAMS's `resultLog`, with
    # its stored error log beside it as `errorLog` ("" for none)
    result_log: str | None = None
    error_log: str | None = None
    # where the text came from, as VAMS's log viewer labels it: the stored log, or the sources
    # read as they are now
    logs_source: Literal["stored", "live"] = "live"
    warnings: tuple[str, ...] = ()
    attempts: tuple[AttemptLogResponse, ...] = ()

    @classmethod
    def of(cls, result: ExecutionLogs) -> Self:
        # as one page: what spans lines (a key block) is only seen with its neighbours
        messages = redact_lines([line.message for line in result.lines])
        step_log = _step_log(result)
        if step_log is None and result.result_log is not None:
            # no attempt kept lines (a run on Step Functions): the summary row's, as VAMS
            step_log = without_arns(result.result_log)
        return cls(
            workflow_execution_id=result.workflow_execution_id,
            mode=result.mode,
            pipeline_execution_id=result.pipeline_execution_id
            or ("" if result.mode == "full" else None),
            log_sources=tuple(LogSourceResponse.of_report(r) for r in result.log_sources),
            events=tuple(
                LogEventResponse(log_id=line.log_id, timestamp=line.timestamp, message=message)
                for line, message in zip(result.lines, messages, strict=True)
                if message is not None
            ),
            next_token=result.next_token,
            execution_log=redact_optional(result.run_log),
            execution_log_earlier_lines=result.run_log_earlier or None,
            # a Step Functions error names the ARNs it failed on; VAMS shows no ARN
            execution_error=None
            if result.execution_error is None
            else without_arns(result.execution_error),
            result_log=step_log,
            error_log=None if result.error_log is None else without_arns(result.error_log),
            logs_source="live" if result.run_log is None and step_log is None else "stored",
            warnings=tuple(without_arns(redact(w)) for w in result.warnings),
            attempts=tuple(AttemptLogResponse.of(log) for log in result.attempts),
        )

    def dump(self) -> dict[str, Any]:
        # the token is said even when null: a client pages until it is
        said = super().dump() | {"nextToken": self.next_token}
        if self.execution_log is not None or self.result_log is not None:
            # the stored log is the answer, no source was read: VAMS's web client takes any
            # `events` list for a live read and would show it, empty, instead of the log
            del said["events"]
        return said


def _step_log(result: ExecutionLogs) -> str | None:
    """The lines of the one step asked for in truncated mode, its attempts in order (already
    redacted); None when the whole run's log or a source was asked for."""
    if result.run_log is not None or not result.attempts:
        return None
    return "\n".join(line for attempt in result.attempts for line in attempt.lines)


class SweptChildResponse(Response):
    workflow_execution_id: str
    pipeline_execution_id: str
    pipeline_id: str
    resource_type: str
    resource_id: str
    previous_outcome: str
    outcome: str
    tries: int
    detail: str = ""


class SweepResponse(Response):
    runs_checked: int
    remaining: int
    children: tuple[SweptChildResponse, ...] = ()
    warnings: tuple[str, ...] = ()

    @classmethod
    def of(cls, result: SweepAbortsResult) -> Self:
        return cls(
            runs_checked=result.runs_checked,
            remaining=result.remaining,
            children=tuple(
                SweptChildResponse(
                    workflow_execution_id=child.workflow_execution_id,
                    pipeline_execution_id=child.pipeline_execution_id,
                    pipeline_id=child.pipeline_id,
                    resource_type=child.resource_type,
                    resource_id=child.resource_id,
                    previous_outcome=child.previous_outcome.value,
                    outcome=child.outcome.value,
                    tries=child.tries,
                    detail=redact(child.detail),
                )
                for child in result.children
            ),
            warnings=tuple(redact(w) for w in result.warnings),
        )


class RegistrationResponse(Response):
    """Where a registration event went and what came of it (accepted null: delivered later)."""

    bus: str
    source: str
    event_id: str | None = None
    accepted: bool | None = None
    reason: str | None = None
    # what the step's cap left out of an accepted registration
    warnings: tuple[str, ...] = ()

    @classmethod
    def of(cls, published: PublishedRegistration) -> Self:
        return cls(
            bus=published.bus,
            source=published.source,
            event_id=published.event_id,
            accepted=published.accepted,
            reason=redact_optional(published.reason),
            warnings=published.warnings,
        )

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)  # every field, null included


class TablesResponse(Response):
    store: str
    tables: tuple[str, ...]


# -- published workflows (wfx workflows list / show / versions) -------------------------------


class _PageResponse(Response):
    next_token: str | None = Field(default=None, alias="NextToken")

    def dump(self) -> dict[str, Any]:
        # NextToken is said even when there is none: a client pages until it is null
        return self.model_dump(mode="json", by_alias=True, exclude_none=True) | {
            "NextToken": self.next_token
        }


class WorkflowPageResponse(_PageResponse):
    """A page of one workflow's versions, newest first."""

    items: tuple[WorkflowVersionResponse, ...] = Field(alias="Items")

    @classmethod
    def of(cls, page: Page[WorkflowVersion]) -> Self:
        return cls(
            items=tuple(WorkflowVersionResponse.of(v) for v in page.items),
            next_token=page.next_token,
        )


class WorkflowDefinitionResponse(Response):
    """A workflow's stable namespace (seed 003 WORKFLOW_DEFINITION)."""

    workflow_database_id: str
    workflow_id: str
    owner_user_id: str | None = None  # None: published before wfx recorded publishers
    description: str = ""
    created_date: UtcDate
    latest_version: int

    @classmethod
    def of(cls, definition: WorkflowDefinition) -> Self:
        return cls(
            workflow_database_id=definition.database_id,
            workflow_id=definition.workflow_id,
            owner_user_id=definition.owner,
            description=redact(definition.description),
            created_date=definition.created_at,
            latest_version=definition.latest_version,
        )


class WorkflowDefinitionPageResponse(_PageResponse):
    """A page of workflow definitions, by database id, then workflow id."""

    items: tuple[WorkflowDefinitionResponse, ...] = Field(alias="Items")

    @classmethod
    def of(cls, page: Page[WorkflowDefinition]) -> Self:
        return cls(
            items=tuple(WorkflowDefinitionResponse.of(d) for d in page.items),
            next_token=page.next_token,
        )


class WorkflowResponse(WorkflowDefinitionResponse, _PageResponse):
    """A workflow: its definition, one version with its step definitions, a page of its
    versions newest first (Items, NextToken: the same page as the versions list)."""

    version: WorkflowVersionResponse
    items: tuple[WorkflowVersionResponse, ...] = Field(alias="Items")

    @classmethod
    def of_view(cls, view: WorkflowView) -> Self:
        definition = WorkflowDefinitionResponse.of(view.definition)
        return cls(
            **definition.model_dump(),
            version=WorkflowVersionResponse.of(view.version),
            items=tuple(WorkflowVersionResponse.of(v) for v in view.versions.items),
            next_token=view.versions.next_token,
        )


# -- authorization: roles, assignments, templates -------------------------------------------------


class RoleResponse(Response):
    role_name: str
    description: str = ""

    @classmethod
    def of(cls, role: Role) -> Self:
        return cls(role_name=role.name, description=role.description)


class RoleListResponse(Response):
    items: tuple[RoleResponse, ...] = Field(alias="Items")

    @classmethod
    def of(cls, roles: Sequence[Role]) -> Self:
        return cls(items=tuple(RoleResponse.of(role) for role in roles))


class RoleAssignmentResponse(Response):
    user_id: str
    role_name: str
    assigned: bool = True

    @classmethod
    def of(cls, assignment: RoleAssignment, assigned: bool = True) -> Self:
        return cls(user_id=assignment.user_id, role_name=assignment.role, assigned=assigned)


class RoleAssignmentListResponse(Response):
    items: tuple[RoleAssignmentResponse, ...] = Field(alias="Items")

    @classmethod
    def of(cls, assignments: Sequence[RoleAssignment]) -> Self:
        return cls(items=tuple(RoleAssignmentResponse.of(a) for a in assignments))


class CriterionResponse(Response):
    field: str
    operator: str
    value: str | tuple[str, ...]


class ConstraintPermissionResponse(Response):
    action: str
    type: str


class ConstraintResponse(Response):
    """A constraint in VAMS's names (objectType, criteriaAnd, groupPermissions)."""

    constraint_id: str
    role_name: str
    object_type: str
    description: str = ""
    criteria_and: tuple[CriterionResponse, ...] = ()
    criteria_or: tuple[CriterionResponse, ...] = ()
    group_permissions: tuple[ConstraintPermissionResponse, ...] = ()

    @classmethod
    def of(cls, constraint: Constraint) -> Self:
        def criteria(given: Sequence[Criterion]) -> tuple[CriterionResponse, ...]:
            return tuple(
                CriterionResponse(field=c.field, operator=c.operator.value, value=c.value)
                for c in given
            )

        return cls(
            constraint_id=constraint.constraint_id,
            role_name=constraint.role,
            object_type=constraint.object_type,
            description=constraint.description,
            criteria_and=criteria(constraint.criteria_and),
            criteria_or=criteria(constraint.criteria_or),
            group_permissions=tuple(
                ConstraintPermissionResponse(action=p.action.value, type=p.effect.value)
                for p in constraint.permissions
            ),
        )


class TemplateResponse(Response):
    name: str
    description: str = ""
    version: str
    variables: tuple[str, ...] = ()
    constraint_count: int

    @classmethod
    def of(cls, template: PermissionTemplate) -> Self:
        variables = sorted(template.placeholders() - {ROLE_NAME_VARIABLE})
        return cls(
            name=template.name,
            description=template.metadata.description,
            version=template.metadata.version,
            variables=tuple(variables),
            constraint_count=len(template.constraints),
        )


class TemplateListResponse(Response):
    items: tuple[TemplateResponse, ...] = Field(alias="Items")

    @classmethod
    def of(cls, templates: Sequence[PermissionTemplate]) -> Self:
        return cls(items=tuple(TemplateResponse.of(t) for t in templates))


class AppliedTemplateResponse(Response):
    template: str
    role_name: str
    database_id: str | None = None
    role_created: bool
    constraints: tuple[ConstraintResponse, ...]

    @classmethod
    def of(cls, applied: AppliedTemplate) -> Self:
        return cls(
            template=applied.template,
            role_name=applied.role,
            database_id=applied.database_id,
            role_created=applied.role_created,
            constraints=tuple(ConstraintResponse.of(c) for c in applied.constraints),
        )


# -- bounded details: truncatedCollections and the details/metadata page ------------------------


_VAMS_STEP_COLLECTIONS = {
    "inputMetadata": "inputMetadata",
    "outputFiles": "outputs.files",
    "outputMetadata": "outputs.metadata",
    "outputResults": "outputs.results",
}
# the selections are VAMS's inputFiles; the files they resolved to are wfx's own list
_VAMS_RUN_COLLECTIONS = {
    "inputSelections": "inputFiles",
    "inputs": "resolvedInputFiles",
    "pipelineExecutions": "pipelines",
}


def vams_collection_names(paths: Iterable[str]) -> tuple[str, ...]:
    """The names VAMS's details give the collections cut: a step's rows are the run's
    (`outputs.files`), a list kept on a step is `pipelines.NAME`; each name once."""
    names: dict[str, None] = {}
    for path in paths:
        _, _, step_collection = path.partition("].")
        if step_collection:
            name = _VAMS_STEP_COLLECTIONS.get(step_collection, f"pipelines.{step_collection}")
        else:
            name = _VAMS_RUN_COLLECTIONS.get(path, path)
        names[name] = None
    return tuple(names)


class TruncatedCollectionResponse(Response):
    """A collection the details cut: its path, how many it returned, how many there are (or
    "more" when not counted), and the details/metadata token that continues after them."""

    collection: str
    returned: int
    total: int | Literal["more"]
    next_token: str | None = None

    @classmethod
    def of(cls, cut: TruncatedCollection) -> Self:
        return cls(
            collection=cut.collection,
            returned=cut.returned,
            total=cut.total,
            next_token=cut.next_token,
        )


# -- the event log (seed 003 EVENT_LOG) ----------------------------------------------------------


class ExecutionEventResponse(Response):
    """One event of a run's log: its number, its type, when, and what it is about."""

    sequence_number: int
    event_type: str
    occurred_at: UtcDate
    pipeline_execution_id: str | None = None
    attempt: int | None = None
    status: str | None = None
    error: str | None = None
    cause: str | None = None
    trigger: str | None = None
    redrive_count: int | None = None
    sub_executions: int | None = None
    logs: int | None = None
    approval_id: str | None = None
    decided_by: str | None = None

    @classmethod
    def of(cls, event: ExecutionEvent) -> Self:
        return cls(
            sequence_number=event.sequence_number,
            event_type=event.event_type.value,
            occurred_at=event.occurred_at,
            pipeline_execution_id=event.pipeline_execution_id,
            attempt=event.attempt,
            status=event.status,
            # stored redacted; redacted again on the way out, as every error text is
            error=redact_optional(event.error),
            cause=redact_optional(event.cause),
            trigger=event.trigger,
            redrive_count=event.redrive_count,
            sub_executions=event.sub_executions,
            logs=event.logs,
            approval_id=event.approval_id,
            decided_by=event.decided_by,
        )


class ExecutionEventsResponse(Response):
    """One page of a run's events; `NextToken` is the afterSequence of the next page."""

    workflow_execution_id: str
    events: tuple[ExecutionEventResponse, ...] = Field(alias="Items")
    next_token: str | None = Field(default=None, alias="NextToken")

    @classmethod
    def of(cls, workflow_execution_id: str, page: Page[ExecutionEvent]) -> Self:
        return cls(
            workflow_execution_id=workflow_execution_id,
            events=tuple(map(ExecutionEventResponse.of, page.items)),
            next_token=page.next_token,
        )

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True) | {
            "NextToken": self.next_token
        }


# -- approval gates (seed 003 APPROVAL_REQUEST) ---------------------------------------------------


class ApprovalResponse(Response):
    """A gate's request as a caller sees it; the task token a Step Functions gate waits on is a
    credential and is never shown."""

    approval_id: str
    workflow_execution_id: str
    pipeline_execution_id: str
    attempt: int
    pipeline_id: str
    workflow_database_id: str
    workflow_id: str
    approvers: tuple[str, ...]
    message: str
    status: str
    requested_at: UtcDate
    expires_at: UtcDate
    decided_by: str | None = None
    decided_at: UtcDate | None = None
    reason: str | None = None

    @classmethod
    def of(cls, request: ApprovalRequest) -> Self:
        return cls(
            approval_id=request.approval_id,
            workflow_execution_id=request.workflow_execution_id,
            pipeline_execution_id=request.pipeline_execution_id,
            attempt=request.attempt,
            pipeline_id=request.pipeline_id,
            workflow_database_id=request.workflow_database_id,
            workflow_id=request.workflow_id,
            approvers=request.approvers,
            message=redact(request.message),
            status=request.status.value,
            requested_at=request.requested_at,
            expires_at=request.expires_at,
            decided_by=request.decided_by,
            decided_at=request.decided_at,
            reason=redact_optional(request.reason),
        )


class ApprovalPageResponse(Response):
    """A page of requests, newest first; `NextToken` continues it."""

    approvals: tuple[ApprovalResponse, ...] = Field(alias="Items")
    next_token: str | None = Field(default=None, alias="NextToken")

    @classmethod
    def of(cls, page: Page[ApprovalRequest]) -> Self:
        return cls(
            approvals=tuple(map(ApprovalResponse.of, page.items)), next_token=page.next_token
        )

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True) | {
            "NextToken": self.next_token
        }
