"""LaunchExecution: everything executeWorkflow writes at launch, as one atomic write, then start."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from application.ports.executions import RunLifecycleStore
from application.ports.files import AssetCatalog
from application.ports.orchestration import LaunchClaim, Orchestrator
from application.ports.system import Clock, IdGenerator
from application.ports.workflows import WorkflowCatalog
from application.run_writes import commit_decided, end_run_and_steps
from application.use_cases.record_cost import RecordAttemptDurations
from domain.assets import AssetFile, AssetRef, check_asset_ids, check_key_ids
from domain.control_characters import refusing_control_characters
from domain.derived import derived, replaced
from domain.errors import (
    AssetNotFoundError,
    ExecutionAlreadyExistsError,
    ExecutionNotFoundError,
    IdempotencyConflictError,
    InvalidInputError,
    WorkflowNotFoundError,
)
from domain.execution import (
    ExecutionConfiguration,
    ExecutionInput,
    InputSelection,
    LaunchRecords,
    PipelineExecution,
    StepInputConfiguration,
    StepInputMetadata,
    WorkflowExecution,
    chain_order,
    execution_output_prefix,
    selection_file_key,
    step_auxiliary_prefix,
    table_date,
)
from domain.names import validate_execution_name
from domain.redrive import with_derived_redrive_status
from domain.registration import DEFAULT_EVENT_SOURCE_PREFIX, compose_source
from domain.run import Run, first_start
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus
from domain.triggers import TriggerType, attributed_user, trigger_type_from_request
from domain.workflow import InputFileArity, StepDefinition, WorkflowVersion


class LaunchExecutionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_database_id: str = Field(min_length=1)
    workflow_id: str = Field(min_length=1)
    workflow_version: int | None = Field(default=None, ge=1)
    inputs: tuple[str, ...] = ()
    output: str | None = None
    execution_group_id: str | None = None
    trigger: str = "manual"
    user_id: str = Field(min_length=1)
    client_token: str | None = None
    rerun_of_execution_id: str | None = None  # set by RerunExecution: the run this one reruns

    @field_validator("execution_group_id", "client_token")
    @classmethod
    def _no_control_character(cls, value: str | None) -> str | None:
        # every reader's terminal and page shows these ids, whoever launched the run
        return None if value is None else refusing_control_characters()(value)


class LaunchResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    execution: WorkflowExecution
    created: bool


# json.dumps(..., sort_keys=True, default=str) as one encoder: dumps would build it per call
_CANONICAL_JSON = json.JSONEncoder(sort_keys=True, default=str)


def _request_digest(command: LaunchExecutionCommand) -> str:
    # the command's fields from its model's dict (str, int, None and tuples of str: what
    # model_dump gives, at a fifth of its cost), the token left out
    fields = dict(command.__dict__)
    del fields["client_token"]
    canonical = _CANONICAL_JSON.encode(fields)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _file_label(row: ExecutionInput) -> str:
    return f"{row.database_id}/{row.asset_id}/{row.input_asset_file_key}"


class LaunchExecution:
    """Validate a run request, write all its rows atomically, and hand it to the orchestrator."""

    def __init__(
        self,
        store: RunLifecycleStore,
        workflows: WorkflowCatalog,
        assets: AssetCatalog,
        orchestrator: Orchestrator,
        clock: Clock,
        ids: IdGenerator,
        durations: RecordAttemptDurations | None = None,
        event_source_prefix: str = DEFAULT_EVENT_SOURCE_PREFIX,
        log_group_arn: str = "",
    ) -> None:
        self._store, self._workflows, self._assets = store, workflows, assets
        self._orchestrator, self._clock, self._ids = orchestrator, clock, ids
        self._durations = durations  # told each run's cost context, which it would read back
        # what each step row records as the source its pipeline registers under
        self._event_source_prefix = event_source_prefix
        # the runs' log group (WFX_SFN_LOG_GROUP_ARN), recorded on a run an orchestrator started
        self._log_group_arn = log_group_arn

    def execute(self, command: LaunchExecutionCommand) -> LaunchResult:
        execution, created = self._launch(command)
        # answered as a read shows the run: a local run's redriveStatus derived (domain.redrive)
        shown = with_derived_redrive_status(execution, self._clock.now(), 0)
        return LaunchResult(execution=shown, created=created)

    def _launch(self, command: LaunchExecutionCommand) -> tuple[WorkflowExecution, bool]:
        """The run as launched and started, and whether this launch created it."""
        trigger = trigger_type_from_request(command.trigger)
        selections = [AssetRef.parse(text, f"inputs[{i}]") for i, text in enumerate(command.inputs)]
        for index, selection in enumerate(selections):  # read by the catalog's key
            check_key_ids(selection.database_id, selection.asset_id, f"inputs[{index}]")
        output = _output_asset(command)
        if command.execution_group_id is not None:
            _check_group_id(command.execution_group_id)
        version = self._startable_version(command)

        digest = _request_digest(command)
        if command.client_token is not None:
            # The token plays the Step Functions execution name's idempotency role: same rules.
            validate_execution_name(command.client_token, field="clientToken")
            execution_id = self._ids.derived_id(f"launch:{command.client_token}")
            existing = self._existing(execution_id, digest, command.client_token)
            if existing is not None:
                return self._start_if_unstarted(existing), False
        else:
            execution_id = self._ids.new_id()
        validate_execution_name(execution_id)

        now = self._clock.now()
        execution = self._new_execution(command, version, trigger, execution_id, digest, now)
        inputs, selected = self._input_rows(selections, execution, now)
        records = self._records(execution, version, inputs, selected, selections, output, command)
        write = _launch_write(records, self._orchestrator.launch_claim(), now)
        try:
            self._store.commit(write)
        except ExecutionAlreadyExistsError:
            if command.client_token is None:
                raise
            # A concurrent launch with the same token won the race; answer as it would.
            existing = self._existing(execution_id, digest, command.client_token)
            assert existing is not None
            return existing, False
        if self._durations is not None:
            self._durations.launched(records)
        return self._start(_written_run(write), version), True

    def _startable_version(self, command: LaunchExecutionCommand) -> WorkflowVersion:
        """The version to run, refused before anything is written when its orchestrator
        cannot start it."""
        version = self._version(command)
        problem = self._orchestrator.start_problem(version)
        if problem is not None:
            raise InvalidInputError(problem)
        return version

    def _new_execution(
        self,
        command: LaunchExecutionCommand,
        version: WorkflowVersion,
        trigger: TriggerType,
        execution_id: str,
        digest: str,
        now: datetime,
    ) -> WorkflowExecution:
        # Derived unvalidated (domain.derived) from valid parts: the version's, the command's
        # (its group id checked by _launch), the id checked as a name, the start a table date.
        return derived(
            WorkflowExecution,
            workflow_execution_id=execution_id,
            workflow_database_id=version.database_id,
            workflow_id=version.workflow_id,
            workflow_version=version.version,
            execution_group_id=command.execution_group_id,
            status=ExecutionStatus.RUNNING,
            execution_start_date=table_date(now, "executionStartDate"),
            triggered_by_user_id=attributed_user(trigger, command.user_id),
            trigger_type=trigger,
            orchestrator=self._orchestrator.name,
            client_token=command.client_token,
            request_digest=digest,
            rerun_of_execution_id=command.rerun_of_execution_id,
        )

    def _version(self, command: LaunchExecutionCommand) -> WorkflowVersion:
        db, wf = command.workflow_database_id, command.workflow_id
        if command.workflow_version is None:
            latest = self._workflows.latest_version(db, wf)
            if latest is None:
                raise WorkflowNotFoundError(f"workflow {db}/{wf} is not published")
            return latest
        return self._workflows.get_version(db, wf, command.workflow_version)

    def _start_if_unstarted(self, existing: WorkflowExecution) -> WorkflowExecution:
        """A launch retried with its token after its first try wrote the run but never started
        it (the answer to its write was lost, or the launcher died before the start):
        start it now, or nobody ever would. Only an open run its orchestrator has never heard
        of: one leased at launch to a runner of this process that never ran it is run by that
        runner now; one leased to another runner is refused by its lease, as a start racing
        another launch's start is (the local runner's lease is taken once, Step Functions
        answers a start of the same name and input with the execution it started)."""
        if (
            existing.status is not ExecutionStatus.RUNNING
            or existing.orchestrator != self._orchestrator.name
            or self._orchestrator.describe_execution(existing) is not None
        ):
            return existing
        version = self._workflows.get_version(
            existing.workflow_database_id, existing.workflow_id, existing.workflow_version
        )
        run = self._store.get_run(existing.workflow_execution_id)
        return self._start(run, version)

    def _existing(self, execution_id: str, digest: str, token: str) -> WorkflowExecution | None:
        try:
            existing = self._store.get_execution(execution_id)
        except ExecutionNotFoundError:
            return None
        if existing.request_digest != digest:
            raise IdempotencyConflictError(
                f"clientToken {token!r} was already used by execution {execution_id} "
                "with a different request"
            )
        return existing

    def _input_rows(
        self, selections: Sequence[AssetRef], execution: WorkflowExecution, now: datetime
    ) -> tuple[list[ExecutionInput], list[InputSelection]]:
        """Each file the selections resolve to, at its current version (the first selection
        naming a file keeps it), and one row per selection as VAMS writes them."""
        rows: dict[tuple[str, str, str], ExecutionInput] = {}
        selected: dict[tuple[str, str, str], InputSelection] = {}
        for index, selection in enumerate(selections):
            files = self._selected_files(selection, index)
            row = _selection_row(selection, files, execution, now)
            selected.setdefault((row.database_id, row.asset_id, row.input_asset_file_key), row)
            for asset_file in files:
                rows.setdefault(
                    (asset_file.database_id, asset_file.asset_id, asset_file.file_key),
                    ExecutionInput(
                        workflow_execution_id=execution.workflow_execution_id,
                        workflow_key=execution.workflow_key,
                        database_id=asset_file.database_id,
                        asset_id=asset_file.asset_id,
                        input_asset_file_key=asset_file.file_key,
                        bucket=asset_file.bucket,
                        asset_root_key=asset_file.asset_root_key,
                        version_id=asset_file.version_id,
                        execution_start_date=now,
                        selection_key=row.input_asset_file_key,
                    ),
                )
        return list(rows.values()), list(selected.values())

    def _selected_files(self, selection: AssetRef, index: int) -> list[AssetFile]:
        files = self._assets.list_files(selection.database_id, selection.asset_id)
        if not files:
            raise AssetNotFoundError(
                f"inputs[{index}]: asset {selection.database_id}/{selection.asset_id} not found"
            )
        if selection.file_key is None:
            return files  # a whole-asset selection pins every file at its current version
        key = selection.file_key
        chosen = [
            f
            for f in files
            if f.file_key == key or (key.endswith("/") and f.file_key.startswith(key))
        ]
        if not chosen:
            raise AssetNotFoundError(f"inputs[{index}]: file {selection} not found")
        return chosen

    def _records(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        inputs: list[ExecutionInput],
        selected: list[InputSelection],
        selections: Sequence[AssetRef],
        output: AssetRef | None,
        command: LaunchExecutionCommand,
    ) -> LaunchRecords:
        # The rows are derived unvalidated (domain.derived) from the valid run, version, inputs
        # and command: ids, paths and enums of the fields' types, a step's index from enumerate
        # (>= 0); the metadata rows, whose file path validation normalizes, are validated.
        steps, configurations, metadata = self._step_records(execution, version, inputs, command)
        return derived(
            LaunchRecords,
            execution=execution,
            inputs=tuple(inputs),
            selections=tuple(selected),
            configuration=_run_configuration(execution, version, selections, output, command),
            steps=steps,
            step_configurations=configurations,
            step_metadata=metadata,
        )

    def _step_records(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        inputs: list[ExecutionInput],
        command: LaunchExecutionCommand,
    ) -> tuple[
        tuple[PipelineExecution, ...],
        tuple[StepInputConfiguration, ...],
        tuple[StepInputMetadata, ...],
    ]:
        """Each step's row, chained to the one before, its input configuration and metadata."""
        execution_id = execution.workflow_execution_id
        output_prefix = execution_output_prefix(execution_id)
        input_path = inputs[0].asset_root_key if inputs else ""
        steps: list[PipelineExecution] = []
        configurations: list[StepInputConfiguration] = []
        metadata: list[StepInputMetadata] = []
        previous: str | None = None
        for index, plan in enumerate(_step_plans(version)):
            definition = plan.definition
            own_inputs = _inputs_for(definition, plan.arity, inputs, index)
            pipeline_execution_id = (
                self._ids.derived_id(f"{execution_id}:step:{index}")
                if command.client_token is not None
                else self._ids.new_id()
            )
            # the version's prototypes given this run's values: one dict merge each, where a
            # build read ~20 fields of the version's models (domain.derived.replaced)
            steps.append(
                replaced(
                    plan.step,
                    {
                        "pipeline_execution_id": pipeline_execution_id,
                        "workflow_execution_id": execution_id,
                        "orchestration_bus_event_prefix": compose_source(
                            self._event_source_prefix, execution_id, pipeline_execution_id
                        ),
                        "from_pipeline_execution_id": previous,
                        "input_path": input_path,
                        "output_files_path": output_prefix,
                        "output_preview_path": f"{output_prefix}preview/",
                        "output_metadata_path": f"{output_prefix}metadata/",
                        "auxiliary_path": step_auxiliary_prefix(
                            execution_id, pipeline_execution_id
                        ),
                    },
                )
            )
            configurations.append(
                replaced(
                    plan.configuration,
                    {
                        "pipeline_execution_id": pipeline_execution_id,
                        "workflow_execution_id": execution_id,
                        "input_files": tuple(_file_label(row) for row in own_inputs),
                    },
                )
            )
            metadata.extend(
                self._metadata_rows(definition, own_inputs, pipeline_execution_id, execution_id)
            )
            previous = pipeline_execution_id
        return tuple(steps), tuple(configurations), tuple(metadata)

    def _metadata_rows(
        self,
        definition: StepDefinition,
        own_inputs: list[ExecutionInput],
        pipeline_execution_id: str,
        execution_id: str,
    ) -> list[StepInputMetadata]:
        if not definition.metadata_inputs or not own_inputs:
            return []
        wanted = set(definition.metadata_inputs)
        rows = []
        by_asset: dict[tuple[str, str], list[AssetFile]] = {}
        for row in own_inputs:
            key = (row.database_id, row.asset_id)
            if key not in by_asset:
                by_asset[key] = self._assets.list_files(*key)
            for asset_file in by_asset[key]:
                if asset_file.file_key != row.input_asset_file_key:
                    continue
                narrowed = tuple((k, v) for k, v in asset_file.metadata if k in wanted)
                if narrowed:
                    rows.append(
                        StepInputMetadata(
                            pipeline_execution_id=pipeline_execution_id,
                            workflow_execution_id=execution_id,
                            database_id=row.database_id,
                            asset_id=row.asset_id,
                            file_path=row.input_asset_file_key,
                            metadata=narrowed,
                        )
                    )
        return rows

    def _start(self, run: Run, version: WorkflowVersion) -> WorkflowExecution:
        """Hand the run, as the launch left it, to its orchestrator, and write what that says:
        its reference, or the run FAILED with the steps the launch started. Each is decided on
        `run` and read again only when the write is refused (the run moved on meanwhile)."""
        execution = run.execution
        execution_id = execution.workflow_execution_id
        try:
            reference = self._orchestrator.start_execution(
                execution, version, chain_order(run.steps)
            )
        except Exception as error:
            problem = f"{self._orchestrator.name} could not start the execution: {error}"
            at = self._clock.now()
            end_run_and_steps(
                self._store,
                execution_id,
                lambda read: read.start_failed(at, problem),
                first=run,
                durations=self._durations,
            )
            raise
        if reference:
            written, last = commit_decided(
                self._store,
                lambda: self._store.get_run(execution_id),
                lambda read: self._started_as(read, reference),
                self._started_as(run, reference),
            )
            if written is not None and written.change is not None:
                return written.change.after
            assert last is not None  # nothing written: decided on the run as read
            return last.execution  # it moved on while we started it
        if self._orchestrator.synchronous:
            ended = self._orchestrator.ended_run(execution_id)  # as its last write left it
            return ended if ended is not None else self._store.get_execution(execution_id)
        return execution

    def _started_as(self, run: Run, reference: str) -> RunWrite | None:
        """The orchestrator's reference kept, while the run is still running as launched."""
        if run.execution.status is not ExecutionStatus.RUNNING:
            return None
        change = run.started_as(reference, self._log_group_arn)
        return RunWrite.of(run.workflow_execution_id, change=change)


def _launch_write(records: LaunchRecords, claim: LaunchClaim | None, now: datetime) -> RunWrite:
    """The launch's write: the run alone for a runner elsewhere to claim, or leased to this
    process's runner with its first step started, so the runner writes neither again."""
    if claim is None:
        return RunWrite.launched(records)
    execution = records.execution
    lease = derived(Run, execution=execution).take_lease(claim.owner, now, claim.lease)
    steps = chain_order(records.steps)
    start = (
        first_start(execution.workflow_execution_id, steps[0].pipeline_execution_id, now)
        if steps
        else None
    )
    return RunWrite.launching(records, lease, start)


def _written_run(write: RunWrite) -> Run:
    launched = write.launch
    assert launched is not None  # a launch's write
    if launched.run is not None:
        return launched.run  # the run its lease and start were decided on, as written
    return derived(  # the valid records as written (domain.derived)
        Run,
        execution=launched.records.execution,
        steps=launched.records.steps,
        attempts=launched.attempts,
    )


def _output_asset(command: LaunchExecutionCommand) -> AssetRef | None:
    if not command.output:
        return None
    output = AssetRef.parse(command.output, "output", allow_file=False)
    check_asset_ids(output.database_id, output.asset_id, "output")
    return output


def _run_configuration(
    execution: WorkflowExecution,
    version: WorkflowVersion,
    selections: Sequence[AssetRef],
    output: AssetRef | None,
    command: LaunchExecutionCommand,
) -> ExecutionConfiguration:
    return derived(
        ExecutionConfiguration,
        workflow_execution_id=execution.workflow_execution_id,
        workflow_key=execution.workflow_key,
        workflow_version=version.version,
        execution_start_date=execution.execution_start_date,
        output_database_id=output.database_id if output else None,
        output_asset_id=output.asset_id if output else None,
        input_selections=tuple(str(s) for s in selections),
        execution_group_id=command.execution_group_id,
        specified_pipelines=tuple(
            (step.pipeline_database_id, step.pipeline_id) for step in version.steps
        ),
    )


class _StepPlan(NamedTuple):
    """What a version's step gives each launch's rows of it, read from the version once: its
    step row and input configuration with every field a run gives them still empty."""

    definition: StepDefinition
    arity: InputFileArity
    step: PipelineExecution
    configuration: StepInputConfiguration


# Versions are immutable and the catalog gives the same object for the same row: each launch of
# a version takes its steps' fields from here (~60 model reads a 3-step launch otherwise). Keyed
# by identity, the version kept with its plans; all dropped when full (a process runs few).
_PLANS: dict[int, tuple[WorkflowVersion, tuple[_StepPlan, ...]]] = {}
_PLANS_KEPT = 64


def _step_plans(version: WorkflowVersion) -> tuple[_StepPlan, ...]:
    kept = _PLANS.get(id(version))
    if kept is not None and kept[0] is version:
        return kept[1]
    plans = tuple(_step_plan(version, index) for index in range(len(version.steps)))
    if len(_PLANS) >= _PLANS_KEPT:
        _PLANS.clear()
    _PLANS[id(version)] = (version, plans)
    return plans


def _step_plan(version: WorkflowVersion, index: int) -> _StepPlan:
    # Derived unvalidated (domain.derived) from the valid version: its ids and enums, an index
    # from its steps (>= 0); the run's fields are empty here, each given by _step_records.
    definition = version.steps[index]
    step = derived(
        PipelineExecution,
        pipeline_execution_id="",
        workflow_execution_id="",
        pipeline_database_id=definition.pipeline_database_id,
        pipeline_id=definition.pipeline_id,
        step_index=index,
        step_definition_id=version.step_definition_id(index),
        execution_type=definition.execution_type,
        input_file_arity=definition.input_file_arity,
        wait_for_callback=definition.wait_for_callback,
        pipeline_resource_arn=_resource_arn(definition.function_name),
        orchestration_bus_event_prefix="",
        from_pipeline_execution_id=None,
        end_state=index == len(version.steps) - 1,
        input_path="",
        output_files_path="",
        output_preview_path="",
        output_metadata_path="",
        auxiliary_path="",
    )
    configuration = derived(
        StepInputConfiguration,
        pipeline_execution_id="",
        workflow_execution_id="",
        execution_type=definition.execution_type,
        handler=definition.handler,
        command=definition.command,
        input_file_arity=definition.input_file_arity,
        metadata_inputs=definition.metadata_inputs,
        input_files=(),
    )
    return _StepPlan(definition, definition.input_file_arity, step, configuration)


def _selection_row(
    selection: AssetRef,
    files: Sequence[AssetFile],
    execution: WorkflowExecution,
    now: datetime,
) -> InputSelection:
    """VAMS's row for one selection: a single file keeps its version; a folder or a whole asset
    has none."""
    first = files[0]  # a selection resolves to one file at least, of one asset
    single = selection.file_key is not None and not selection.file_key.endswith("/")
    return InputSelection(
        workflow_execution_id=execution.workflow_execution_id,
        workflow_database_id=execution.workflow_database_id,
        workflow_id=execution.workflow_id,
        database_id=selection.database_id,
        asset_id=selection.asset_id,
        input_asset_file_key=selection_file_key(first.asset_root_key, selection.file_key),
        bucket=first.bucket,
        asset_root_key=first.asset_root_key,
        version_id=first.version_id if single else "",
        execution_start_date=now,
    )


def _check_group_id(group_id: str) -> None:
    if not group_id or group_id != group_id.strip():
        raise InvalidInputError("executionGroupId: must be non-empty with no surrounding spaces")
    if len(group_id) > 256:
        raise InvalidInputError("executionGroupId: must be at most 256 characters")


def _inputs_for(
    definition: StepDefinition, arity: InputFileArity, inputs: list[ExecutionInput], index: int
) -> list[ExecutionInput]:
    if arity is InputFileArity.NONE:
        return []
    if arity is InputFileArity.ONE and len(inputs) != 1:
        raise InvalidInputError(
            f"{_step_named(definition, index)}: inputFileArity one needs exactly one input "
            f"file, the run selected {len(inputs)}"
        )
    if arity is InputFileArity.MANY and not inputs:
        raise InvalidInputError(
            f"{_step_named(definition, index)}: inputFileArity many needs at least one input file"
        )
    return inputs


def _step_named(definition: StepDefinition, index: int) -> str:
    return f"steps[{index}] ({definition.pipeline_id})"


def _resource_arn(function_name: str | None) -> str:
    """A Lambda step's function as VAMS's pipelineResourceArn: only when it is named by ARN."""
    return function_name if function_name and function_name.startswith("arn:") else ""
