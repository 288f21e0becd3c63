"""VAMS 2.6's details document (`GET /workflows/executions/{id}/details`, `wfx executions show
--json`): the run's fields flat at the top, `pipelines[]`, `inputFiles[]`, the input metadata
split by scope, `outputs.files / metadata / results` with each results file's text inlined, and
`truncatedCollections` by VAMS's names, in VAMS's `{"message": ...}` envelope.

VAMS's keys keep VAMS's types: text it has no value for is "" (a date not yet set, a step's
name), a map it has none for is {}. What wfx knows beyond VAMS stays under keys VAMS does not
use (`orchestrator`, `redriveCount`, a step's `attempts`, `truncatedCollectionPages`,
`approvals`, `resolvedInputFiles` ...). Nothing VAMS withholds is sent (entrypoints.withheld):
no ARN, bucket, prefix or role field.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Self

from pydantic import Field

from domain.authorization import AssetKey
from domain.execution import (
    ExecutionDetails,
    ExecutionInput,
    OutputFile,
    OutputMetadata,
    PipelineExecution,
    StepDetails,
    StepInputMetadata,
    UnreadableRow,
)
from domain.redaction import redact, redact_optional
from domain.result_text import ResultText
from domain.stages import StageState, SubExecutionState
from domain.workflow import ExecutionType
from entrypoints.responses import (
    ApprovalResponse,
    ArtifactResponse,
    AttemptResponse,
    AvailableLogResponse,
    ExecutionConfigurationResponse,
    RegisteredLogResponse,
    RegisteredSubExecutionResponse,
    StepInputConfigurationResponse,
    StepLogResponse,
    SubExecutionStopResponse,
    SubExecutionWarningResponse,
    TruncatedCollectionResponse,
    metadata_value,
    shown_input,
    shown_input_metadata,
    shown_output_metadata,
    shown_step,
    vams_collection_names,
)
from entrypoints.vams_execution_list import ExecutionRow
from entrypoints.vams_responses import VamsResponse
from entrypoints.withheld import resource_name, without_arns


def _date(moment: datetime | None) -> str:
    # VAMS's table dates, as its details echo them; "" for one not (yet) set
    return "" if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _optional_date(moment: datetime | None) -> str | None:
    return None if moment is None else _date(moment)


# -- a step: VAMS's pipeline entry ---------------------------------------------------------------


class VamsStage(VamsResponse):
    """One state of a registered sub-state-machine (VAMS's SubExecutionStage); wfx's entry
    count, Parallel branch and nested states beside VAMS's keys."""

    stage_name: str
    state_type: str
    status: str
    start_date: str | None = None
    stop_date: str | None = None
    error: str | None = None
    attempts: int | None = None
    entries: int
    branch: int | None = None
    stages: tuple[VamsStage, ...] = ()

    @classmethod
    def of(cls, stage: StageState) -> Self:
        return cls(
            stage_name=stage.name,
            state_type=stage.state_type,
            status=stage.status.value,
            start_date=_optional_date(stage.start_date),
            stop_date=_optional_date(stage.stop_date),
            error=redact_optional(stage.error) or None,
            # VAMS counts a stage's schedulings: its retries and the first one
            attempts=stage.retries + 1 if stage.entries else None,
            entries=stage.entries,
            branch=stage.branch,
            stages=tuple(VamsStage.of(child) for child in stage.children),
        )


class VamsSubExecution(VamsResponse):
    """A sub-process a step registered, by name (VAMS's SubExecution); `note` is wfx's word on
    why it has no status or stages."""

    resource_type: str
    resource_name: str
    label: str = ""
    status: str
    start_date: str | None = None
    stop_date: str | None = None
    stage_source: str
    stages: tuple[VamsStage, ...] = ()
    note: str | None = None

    @classmethod
    def of(cls, sub: SubExecutionState) -> Self:
        return cls(
            resource_type=sub.resource_type,
            resource_name=resource_name(sub.resource_id),
            label=sub.label,
            status=sub.status,
            start_date=_optional_date(sub.start_date),
            stop_date=_optional_date(sub.stop_date),
            stage_source="definition" if sub.stages else "none",
            stages=tuple(VamsStage.of(stage) for stage in sub.stages),
            note=without_arns(sub.note) if sub.note else None,
        )


class VamsPipeline(VamsResponse):
    """One step (VAMS's pipeline entry). wfx renders no configuration template: the template
    keys are empty and `effectiveSystemConfig` holds what the step ran under."""

    pipeline_id: str
    pipeline_database_id: str
    pipeline_execution_id: str
    name: str
    description: str = ""
    pipeline_type: str = ""
    pipeline_execution_type: str
    end_state_pipeline: bool
    execution_status: str
    execution_start_date: str
    execution_stop_date: str
    rendered_config: str = ""
    rendered_config_truncated: bool = False
    template_id: str = ""
    template_tags: tuple[Any, ...] = ()
    custom_template_override_used: bool = False
    config_format: str = ""
    effective_system_config: dict[str, Any]
    template_overrides: dict[str, Any]
    available_logs: tuple[AvailableLogResponse, ...] = ()
    sub_executions: tuple[VamsSubExecution, ...] | None = None
    sub_execution_warnings: tuple[str, ...] | None = None
    # wfx's own
    step_index: int
    step_definition_id: str | None = None
    # seed 000's own name for the chain link, snake_case as it stands there
    from_pipeline_execution_id: str | None = Field(default=None, alias="from_pipeline_execution_id")
    error_message: str | None = None
    input_configuration: StepInputConfigurationResponse | None = None
    attempts: tuple[AttemptResponse, ...] = ()
    # every attempt's output files; outputs.files keeps each path's latest
    artifacts: tuple[ArtifactResponse, ...] = ()
    logs: tuple[StepLogResponse, ...] = ()
    registered_sub_executions: tuple[RegisteredSubExecutionResponse, ...] = ()
    registered_logs: tuple[RegisteredLogResponse, ...] = ()
    sub_execution_stops: tuple[SubExecutionStopResponse, ...] | None = None

    @classmethod
    def of(
        cls, entry: StepDetails, warnings: tuple[str, ...] | None, with_sub_executions: bool
    ) -> Self:
        step, configuration = entry.step, entry.configuration
        return cls(
            **shown_step(step),
            # VAMS's pipeline name, else its id: a wfx step definition has no name but its id
            name=step.pipeline_id,
            pipeline_execution_type=_pipeline_execution_type(step),
            execution_status=step.status.value,
            execution_start_date=_date(step.start_date),
            execution_stop_date=_date(step.stop_date),
            effective_system_config={}
            if configuration is None
            else {
                "inputFileArity": configuration.input_file_arity.value,
                "metadataInputs": {name: True for name in configuration.metadata_inputs},
            },
            template_overrides={},
            available_logs=tuple(AvailableLogResponse.of(log) for log in entry.available_logs),
            sub_executions=tuple(VamsSubExecution.of(s) for s in entry.sub_executions)
            if with_sub_executions
            else None,
            sub_execution_warnings=warnings,
            input_configuration=None
            if configuration is None
            else StepInputConfigurationResponse.of(configuration),
            attempts=tuple(AttemptResponse.of(a) for a in entry.attempts),
            artifacts=tuple(ArtifactResponse.of(r) for r in entry.outputs.artifacts),
            logs=tuple(StepLogResponse.of(r) for r in entry.outputs.logs),
        )


def _pipeline_execution_type(step: PipelineExecution) -> str:
    # VAMS's name for a Lambda step; wfx's other types keep their names
    return "Lambda" if step.execution_type is ExecutionType.LAMBDA else step.execution_type.value


# -- the run's collections ----------------------------------------------------------------------


class VamsInputFile(VamsResponse):
    """A file the run read, or (in `inputFiles`) a selection the launch made."""

    database_id: str
    asset_id: str
    input_asset_file_key: str
    version_id: str

    @classmethod
    def of(cls, row: ExecutionInput) -> Self:
        return cls(**shown_input(row))


class VamsInputMetadata(VamsResponse):
    """A metadata row a step read (VAMS's scrubbed input metadata row), tagged with its step."""

    database_id: str
    asset_id: str
    file_path: str
    scope: str
    metadata: dict[str, str]
    attributes: dict[str, str]
    pipeline_id: str
    pipeline_execution_id: str

    @classmethod
    def of(cls, row: StepInputMetadata, step: PipelineExecution) -> Self:
        return cls(
            **shown_input_metadata(row),
            scope=row.scope,
            attributes={key: metadata_value(key, value) for key, value in row.attributes},
            pipeline_id=step.pipeline_id,
            pipeline_execution_id=step.pipeline_execution_id,
        )


class VamsOutputFile(VamsResponse):
    """An output file by its path in the run's output folder; `assetId`/`databaseId` name the
    output asset when the run has one (VAMS's enrichment)."""

    relative_file_path: str
    file_type: str
    file_size: int
    content_type: str | None = None  # as stored, when the row has one
    s3_version_id: str | None = None
    database_id: str | None = None
    asset_id: str | None = None
    pipeline_id: str
    pipeline_execution_id: str
    etag: str
    attempt: int | None = None

    @classmethod
    def of(cls, row: OutputFile, step: PipelineExecution, target: AssetKey | None) -> Self:
        return cls(
            relative_file_path=row.relative_file_path,
            file_type=row.file_type,
            file_size=row.size,
            content_type=row.content_type or None,
            s3_version_id=row.version_id or None,
            database_id=target.database_id if target else None,
            asset_id=target.asset_id if target else None,
            pipeline_id=step.pipeline_id,
            pipeline_execution_id=step.pipeline_execution_id,
            etag=row.etag,
            attempt=row.attempt,
        )


class VamsOutputMetadata(VamsResponse):
    target_file_path: str
    metadata_key: str
    metadata_value: str
    pipeline_id: str
    pipeline_execution_id: str

    @classmethod
    def of(cls, row: OutputMetadata, step: PipelineExecution) -> Self:
        return cls(
            **shown_output_metadata(row),
            pipeline_id=step.pipeline_id,
            pipeline_execution_id=step.pipeline_execution_id,
        )


class VamsOutputResult(VamsResponse):
    """A results file with its text inlined, cut at VAMS's bound (`resultsContentTruncated`);
    `assetVersionId` is the version wfx imported into the output asset."""

    relative_file_path: str
    results_content: str
    results_content_truncated: bool
    pipeline_id: str
    pipeline_execution_id: str
    asset_version_id: str | None = None

    @classmethod
    def of(cls, text: ResultText, asset_version_id: str | None, step: PipelineExecution) -> Self:
        return cls(
            relative_file_path=text.relative_file_path,
            results_content=text.content,
            results_content_truncated=text.truncated,
            pipeline_id=step.pipeline_id,
            pipeline_execution_id=step.pipeline_execution_id,
            asset_version_id=asset_version_id,
        )


class VamsOutputs(VamsResponse):
    files: tuple[VamsOutputFile, ...] = ()
    metadata: tuple[VamsOutputMetadata, ...] = ()
    results: tuple[VamsOutputResult, ...] = ()


class VamsInputConfiguration(VamsResponse):
    pipeline_id: str
    input_configuration_truncated: bool = False


# -- the document ---------------------------------------------------------------------------------


class UnreadableRowResponse(VamsResponse):
    """A row of the run left out of the details: another writer stored it in a shape wfx
    cannot read (mend or delete it)."""

    table: str
    key: str
    attribute: str | None = None
    problem: str

    @classmethod
    def of(cls, row: UnreadableRow) -> Self:
        # the problem quotes the value stored, which may be anything another writer put there
        return cls(
            table=row.table, key=row.key, attribute=row.attribute, problem=redact(row.problem)
        )


class VamsExecutionDetails(VamsResponse):
    """The details themselves (what `message` holds)."""

    workflow_execution_id: str
    workflow_id: str
    workflow_database_id: str
    workflow_name: str = ""
    workflow_description: str = ""
    workflow_system_config: dict[str, Any]
    execution_status: str
    execution_start_date: str
    execution_stop_date: str
    trigger_type: str
    triggered_by_user_id: str
    execution_error: str
    execution_group_id: str | None = None
    output_location_type: str
    output_database_id: str
    output_asset_id: str
    output_file_base_execution_path_extension: str = "/"
    metadata_source_database_id: str = ""
    metadata_source_databases: tuple[str, ...] = ()
    metadata_source_assets: tuple[dict[str, str], ...] = ()
    pipelines: tuple[VamsPipeline, ...] = ()
    input_files: tuple[VamsInputFile, ...] = ()
    input_metadata: tuple[VamsInputMetadata, ...] = ()
    input_database_metadata: tuple[VamsInputMetadata, ...] = ()
    input_configurations: tuple[VamsInputConfiguration, ...] = ()
    outputs: VamsOutputs
    truncated_collections: tuple[str, ...] = ()
    # wfx's own: the run's other fields, its configuration, how to page what was cut, its gates
    workflow_version: int
    orchestrator: str
    execution_cause: str | None = None
    start_date_estimated: bool | None = None
    last_sfn_sync_check_date: str | None = None
    redrive_count: int = 0
    redrive_date: str | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    client_token: str | None = None
    rerun_of_execution_id: str | None = None
    abort_requested_date: str | None = None
    abort_cause: str | None = None
    finishing_date: str | None = None
    runner_lease_owner: str | None = None
    configuration: ExecutionConfigurationResponse | None = None
    available_log_warnings: tuple[str, ...] | None = None
    sub_execution_warnings: tuple[SubExecutionWarningResponse, ...] | None = None
    truncated_collection_pages: tuple[TruncatedCollectionResponse, ...] = ()
    approvals: tuple[ApprovalResponse, ...] | None = None
    # each file the selections resolved to, at the version read (what a redrive reads again);
    # left out for a run VAMS launched, which recorded none
    resolved_input_files: tuple[VamsInputFile, ...] | None = None
    # rows of the run wfx cannot read, left out of the rest; absent when there is none
    unreadable_rows: tuple[UnreadableRowResponse, ...] | None = None

    @classmethod
    def of(cls, details: ExecutionDetails, with_sub_executions: bool = False) -> Self:
        configuration = details.configuration
        target = None if configuration is None else configuration.output_asset
        # the run's fields as the list row says them; the details leave out a group not set
        run = ExecutionRow.of(details.execution, target).model_dump(mode="json")
        run["execution_group_id"] = details.execution.execution_group_id
        metadata = [
            VamsInputMetadata.of(row, entry.step)
            for entry in details.steps
            for row in entry.input_metadata
        ]
        return cls(
            **run,
            # read from the definition as VAMS reads its workflow's: a wfx workflow is named by
            # its id; "" when the definition is not found (VAMS's client then shows the id)
            workflow_name=details.workflow.workflow_id if details.workflow else "",
            workflow_description=details.workflow.description if details.workflow else "",
            workflow_system_config={},
            pipelines=_pipelines(details, with_sub_executions),
            # the launch's selection rows as stored: VAMS's inputFiles
            input_files=tuple(VamsInputFile.of(row) for row in details.selections),
            resolved_input_files=tuple(
                VamsInputFile.of(row) for row in details.inputs if row.selection_key
            )
            or None,
            input_metadata=tuple(m for m in metadata if m.scope != "database"),
            input_database_metadata=tuple(m for m in metadata if m.scope == "database"),
            input_configurations=tuple(
                VamsInputConfiguration(pipeline_id=entry.step.pipeline_id)
                for entry in details.steps
                if entry.configuration is not None
            ),
            outputs=_outputs(details, target),
            truncated_collections=_vams_truncated(details),
            configuration=None
            if configuration is None
            else ExecutionConfigurationResponse.of(configuration),
            # present only when a log destination could not be looked up (never a failure)
            available_log_warnings=tuple(without_arns(redact(w)) for w in details.log_warnings)
            or None,
            sub_execution_warnings=tuple(
                SubExecutionWarningResponse.of(w) for w in details.sub_execution_warnings
            )
            if with_sub_executions
            else None,
            truncated_collection_pages=tuple(
                TruncatedCollectionResponse.of(cut) for cut in details.truncated_collections
            ),
            approvals=None
            if details.approvals is None
            else tuple(ApprovalResponse.of(request) for request in details.approvals),
            unreadable_rows=tuple(UnreadableRowResponse.of(r) for r in details.unreadable_rows)
            or None,
        )


def _pipelines(details: ExecutionDetails, with_sub_executions: bool) -> tuple[VamsPipeline, ...]:
    """Each step, with the messages of its sub-executions' warnings when those are asked for."""
    warnings: dict[str, list[str]] = {}
    for warning in details.sub_execution_warnings:
        shown = SubExecutionWarningResponse.of(warning)
        warnings.setdefault(warning.pipeline_execution_id, []).append(shown.message)
    return tuple(
        VamsPipeline.of(
            entry,
            tuple(warnings.get(entry.step.pipeline_execution_id, ())) or None
            if with_sub_executions
            else None,
            with_sub_executions,
        )
        for entry in details.steps
    )


def _outputs(details: ExecutionDetails, target: AssetKey | None) -> VamsOutputs:
    """Every step's output files, metadata and results, in step order."""
    return VamsOutputs(
        files=tuple(
            VamsOutputFile.of(row, entry.step, target)
            for entry in details.steps
            for row in entry.outputs.files
        ),
        metadata=tuple(
            VamsOutputMetadata.of(row, entry.step)
            for entry in details.steps
            for row in entry.outputs.metadata
        ),
        results=tuple(result for entry in details.steps for result in _results(entry)),
    )


def _results(entry: StepDetails) -> list[VamsOutputResult]:
    # a results row without its text read (no object store) shows the text VAMS stored on it,
    # else an empty one
    texts = {text.relative_file_path: text for text in entry.result_texts}
    return [
        VamsOutputResult.of(
            texts.get(row.relative_file_path)
            or row.stored_text
            or ResultText(relative_file_path=row.relative_file_path, content="", truncated=False),
            row.asset_version_id,
            entry.step,
        )
        for row in entry.outputs.results
    ]


def _vams_truncated(details: ExecutionDetails) -> tuple[str, ...]:
    names = set(vams_collection_names(cut.collection for cut in details.truncated_collections))
    if "inputMetadata" in names:
        # one read holds both scopes: rows not read could be of either (VAMS flags both)
        names.add("inputDatabaseMetadata")
    return tuple(sorted(names))


class VamsDetailsAnswer(VamsResponse):
    """VAMS's envelope of the details."""

    message: VamsExecutionDetails

    @classmethod
    def of(cls, details: ExecutionDetails, with_sub_executions: bool = False) -> Self:
        return cls(message=VamsExecutionDetails.of(details, with_sub_executions))
