"""Small builders of domain records for the contract suite; fixed dates, readable ids."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.sqlite.approvals import SqliteApprovals
from adapters.sqlite.catalogs import SqliteAssetCatalog, SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema
from adapters.sub_process_dispatch import DispatchingSubProcessController
from adapters.system import SystemClock, UuidGenerator
from adapters.tables import TableNames
from application.ports.executions import ExecutionStore, RunWriter
from application.ports.workflows import WorkflowDefinitions
from application.run_writes import commit_decided
from application.use_cases.approvals import PassApprovalGate
from application.use_cases.complete_execution import CompleteExecution
from application.use_cases.register_pipeline_execution import RegisterPipelineExecution
from domain.assets import AssetFile
from domain.attempts import AttemptTrigger, TaskExecution
from domain.costs import CostBasis, CostKind, CostLedgerEntry, CostSource
from domain.execution import (
    ExecutionConfiguration,
    ExecutionInput,
    InputSelection,
    LaunchRecords,
    OutputFile,
    OutputMetadata,
    OutputResult,
    PipelineExecution,
    StepInputConfiguration,
    StepInputMetadata,
    StepLog,
    StepOutputs,
    WorkflowExecution,
    artifacts_of,
    selection_file_key,
)
from domain.logs import RegisteredLog, RegisteredSubExecution
from domain.registration import merge_logs, merge_sub_executions
from domain.run import RunChange, StepMove
from domain.run_write import RunWrite, StepRow, VersionedStep
from domain.statuses import ExecutionStatus, StepStatus
from domain.sub_processes import SubExecutionStop, merge_stops
from domain.triggers import TriggerType
from domain.workflow import (
    ExecutionType,
    InputFileArity,
    StepDefinition,
    WorkflowDefinition,
    WorkflowVersion,
)

MONDAY = datetime(2024, 3, 4, 9, 30, tzinfo=UTC)


def at(minutes: int) -> datetime:
    """A fixed moment, `minutes` after Monday 09:30 UTC."""
    return MONDAY + timedelta(minutes=minutes)


def an_execution(
    execution_id: str,
    *,
    workflow: str = "db1:wf1",
    group: str | None = None,
    start: datetime = MONDAY,
    status: ExecutionStatus = ExecutionStatus.RUNNING,
) -> WorkflowExecution:
    database_id, workflow_id = workflow.split(":")
    return WorkflowExecution(
        workflow_execution_id=execution_id,
        workflow_database_id=database_id,
        workflow_id=workflow_id,
        workflow_version=1,
        execution_group_id=group,
        status=status,
        execution_start_date=start,
        triggered_by_user_id="alice",
        trigger_type=TriggerType.MANUAL,
    )


def an_attempt(
    sid: str, number: int, *, minutes: int = 1, trigger: AttemptTrigger = AttemptTrigger.START
) -> TaskExecution:
    """Attempt `number` of step `sid` of execution e1, RUNNING since `at(minutes)`."""
    return TaskExecution(
        pipeline_execution_id=sid,
        workflow_execution_id="e1",
        attempt=number,
        status=StepStatus.RUNNING,
        start_date=at(minutes),
        trigger=trigger,
    )


def step_id(execution_id: str, index: int) -> str:
    return f"{execution_id}-step{index}"


def a_step(
    execution_id: str,
    index: int,
    *,
    last: bool = False,
    status: StepStatus = StepStatus.NEW,
) -> PipelineExecution:
    """Step `index` of a chain: it follows step `index - 1`; step 0 is the root."""
    prefix = f"executions/{execution_id}"
    return PipelineExecution(
        pipeline_execution_id=step_id(execution_id, index),
        workflow_execution_id=execution_id,
        pipeline_database_id="db1",
        pipeline_id=f"pipe{index}",
        step_index=index,
        status=status,
        execution_type=ExecutionType.PYTHON,
        input_file_arity=InputFileArity.MANY,
        from_pipeline_execution_id=step_id(execution_id, index - 1) if index else None,
        end_state=last,
        input_path=f"{prefix}/input/",
        output_files_path=f"{prefix}/output/",
        output_preview_path=f"{prefix}/output/preview/",
        output_metadata_path=f"{prefix}/output/metadata/",
        auxiliary_path=f"{prefix}/auxiliary/{step_id(execution_id, index)}/",
    )


def an_input(execution: WorkflowExecution, asset: str, file_key: str) -> ExecutionInput:
    database_id, asset_id = asset.split(":")
    return ExecutionInput(
        workflow_execution_id=execution.workflow_execution_id,
        workflow_key=execution.workflow_key,
        database_id=database_id,
        asset_id=asset_id,
        input_asset_file_key=file_key,
        bucket="bucket-1",
        asset_root_key=f"assets/{database_id}/{asset_id}/",
        version_id=f"v-{file_key}",
        execution_start_date=execution.execution_start_date,
    )


def a_selection(execution: WorkflowExecution, asset: str, file_key: str) -> InputSelection:
    """VAMS's row for a selection of one file (an_input's)."""
    row = an_input(execution, asset, file_key)
    return InputSelection(
        workflow_execution_id=row.workflow_execution_id,
        workflow_database_id=execution.workflow_database_id,
        workflow_id=execution.workflow_id,
        database_id=row.database_id,
        asset_id=row.asset_id,
        input_asset_file_key=selection_file_key(row.asset_root_key, file_key),
        bucket=row.bucket,
        asset_root_key=row.asset_root_key,
        version_id=row.version_id,
        execution_start_date=row.execution_start_date,
    )


def a_launch(
    execution_id: str,
    *,
    workflow: str = "db1:wf1",
    group: str | None = None,
    start: datetime = MONDAY,
    inputs: Sequence[tuple[str, str]] = (("db1:asset1", "scan.obj"),),
    output_asset: str | None = "db1:asset1",
    steps: int = 2,
) -> LaunchRecords:
    """A run that reads `inputs` (asset key, file key) and writes `output_asset` (None: results)."""
    execution = an_execution(execution_id, workflow=workflow, group=group, start=start)
    output_database_id, output_asset_id = output_asset.split(":") if output_asset else (None, None)
    chain = tuple(a_step(execution_id, i, last=i == steps - 1) for i in range(steps))
    return LaunchRecords(
        execution=execution,
        inputs=tuple(an_input(execution, asset, file_key) for asset, file_key in inputs),
        selections=tuple(a_selection(execution, asset, file_key) for asset, file_key in inputs),
        configuration=ExecutionConfiguration(
            workflow_execution_id=execution_id,
            workflow_key=workflow,
            workflow_version=1,
            execution_start_date=start,
            output_database_id=output_database_id,
            output_asset_id=output_asset_id,
            input_selections=tuple(f"{asset}/{file_key}" for asset, file_key in inputs),
            execution_group_id=group,
        ),
        steps=chain,
        step_configurations=tuple(
            StepInputConfiguration(
                pipeline_execution_id=step.pipeline_execution_id,
                workflow_execution_id=execution_id,
                execution_type=ExecutionType.PYTHON,
                handler="wfx_examples.steps:convert",
                input_file_arity=InputFileArity.MANY,
                metadata_inputs=("units",),
                input_files=tuple(file_key for _, file_key in inputs),
            )
            for step in chain
        ),
        step_metadata=tuple(
            StepInputMetadata(
                pipeline_execution_id=step.pipeline_execution_id,
                workflow_execution_id=execution_id,
                database_id=asset.split(":")[0],
                asset_id=asset.split(":")[1],
                file_path=file_key,
                metadata=(("units", "mm"),),
            )
            for step in chain
            for asset, file_key in inputs
        ),
    )


def some_outputs(
    execution_id: str, index: int, *, version: str = "v1", attempt: int = 1
) -> StepOutputs:
    """One row of each output table for one step, and the file's artifact of `attempt`;
    `version` varies the non-key attributes."""
    pipeline_execution_id = step_id(execution_id, index)
    common = {"pipeline_execution_id": pipeline_execution_id, "workflow_execution_id": execution_id}
    files = (
        OutputFile(
            **common,
            file_type="file",
            relative_file_path="mesh.glb",
            version_id=version,
            size=42,
            etag=f"etag-{version}",
            attempt=attempt,
        ),
    )
    return StepOutputs(
        files=files,
        artifacts=artifacts_of(files, at(5)),
        metadata=(
            OutputMetadata(
                **common, target_file_path="mesh.glb", metadata_key="faces", value=version
            ),
        ),
        results=(OutputResult(**common, relative_file_path="report.json", version_id=version),),
        logs=(StepLog(**common, status="SUCCEEDED", message=f"done {version}"),),
    )


def a_version(version: int, *, workflow: str = "db1:wf1") -> WorkflowVersion:
    database_id, workflow_id = workflow.split(":")
    return WorkflowVersion(
        database_id=database_id,
        workflow_id=workflow_id,
        version=version,
        description=f"version {version}",
        steps=(
            StepDefinition(
                pipeline_id="convert",
                pipeline_database_id=database_id,
                execution_type=ExecutionType.PYTHON,
                handler="wfx_examples.steps:convert",
            ),
        ),
        published_at=at(version),
        digest=f"sha256:{version}",
    )


def with_command_steps(version: WorkflowVersion, count: int) -> WorkflowVersion:
    """`version` with `count` command steps, step-0 onwards, each echoing its number."""
    steps = tuple(
        StepDefinition(
            pipeline_id=f"step-{index}",
            pipeline_database_id="db1",
            execution_type=ExecutionType.COMMAND,
            command=("echo", str(index)),
        )
        for index in range(count)
    )
    return version.model_copy(update={"steps": steps})


def publish(
    definitions: WorkflowDefinitions, *versions: WorkflowVersion, owner: str | None = "alice"
) -> None:
    """Publish each version in turn, as PublishWorkflowVersion would: numbers go 1, 2, 3..."""
    for version in versions:
        current = definitions.find_definition(version.database_id, version.workflow_id)
        definition = (
            WorkflowDefinition.first(version, owner)
            if current is None
            else current.published(version)
        )
        assert definitions.publish(definition, version), f"{version.workflow_key} {version.version}"


def an_asset_file(file_key: str, *, asset: str = "db1:asset1", version: str = "v1") -> AssetFile:
    database_id, asset_id = asset.split(":")
    return AssetFile(
        database_id=database_id,
        asset_id=asset_id,
        file_key=file_key,
        version_id=version,
        size=7,
        etag=f"etag-{version}",
        bucket="bucket-1",
        asset_root_key=f"assets/{database_id}/{asset_id}/",
        modified_at=MONDAY,
        metadata=(("units", "mm"),),
    )


def a_registrar(store: ExecutionStore) -> RegisterPipelineExecution:
    """RegisterPipelineExecution on `store` that stops nothing (every child is `unsupported`):
    for tests of registration itself, not of what an abort does with it."""
    return RegisterPipelineExecution(store, DispatchingSubProcessController({}), SystemClock())


def a_duration_entry(execution_id: str, *, attempt: int = 1) -> CostLedgerEntry:
    """The runner's duration estimate of the root step's attempt, unpriced."""
    return CostLedgerEntry(
        entry_id=f"duration-{attempt}",
        workflow_execution_id=execution_id,
        pipeline_execution_id=step_id(execution_id, 0),
        attempt=attempt,
        workflow_database_id="db1",
        workflow_id="wf1",
        kind=CostKind.DURATION,
        quantity=Decimal("1.5"),
        unit="seconds",
        basis=CostBasis.ESTIMATE,
        source=CostSource.RUNNER,
        recorded_at=at(3),
    )


def a_gate_passage(database: SqliteDatabase, store: SqliteExecutionStore) -> PassApprovalGate:
    """PassApprovalGate on one SQLite database: its approvals, versions and event log."""
    approvals = SqliteApprovals(database, build_schema(TableNames()))
    approvals.create_tables()
    catalog = SqliteWorkflowCatalog(database, TableNames())
    return PassApprovalGate(approvals, store, catalog, SystemClock(), UuidGenerator(), store)


def step_row_saved(
    store: ExecutionStore, step: PipelineExecution, expected: frozenset[StepStatus]
) -> bool:
    """`step`'s row written as it is while its stored status is one of `expected` (a redrive's
    reset of a step, or a test putting a step where it needs it)."""
    return bool(
        store.commit(RunWrite.of(step.workflow_execution_id, step_rows=(StepRow(step, expected),)))
    )


def a_completion(store: ExecutionStore, folder: Path) -> CompleteExecution:
    """The local runner's completion over `store`: its objects and logs under `folder`, no
    asset files."""
    objects = FilesystemObjectStore(folder / "objects")
    assets = SqliteAssetCatalog(SqliteDatabase(None), TableNames())
    return CompleteExecution(store, objects, assets, FileLogStore(folder / "logs"), SystemClock())


def summaries_of(store: ExecutionStore, workflow_execution_id: str) -> dict[str, str]:
    """The run's steps' summary logs: the status each says, by step."""
    details = store.get_details(workflow_execution_id)
    return {g.pipeline_execution_id: g.status for s in details.steps for g in s.outputs.logs}


def write_launch(store: RunWriter, records: LaunchRecords) -> None:
    """A new run's rows written as a launch for a runner elsewhere writes them (LaunchExecution):
    one write, refused with ExecutionAlreadyExistsError when the id is taken."""
    store.commit(RunWrite.launched(records))


def write_change(store: RunWriter, change: RunChange) -> WorkflowExecution | None:
    """The main row's `change` as one write of its own: the row as it leaves it, None when the
    guard refused it (a test putting a run where it needs it)."""
    written = store.commit(RunWrite.of(change.after.workflow_execution_id, change=change))
    return change.after if written else None


def step_moved(store: ExecutionStore, move: StepMove) -> bool:
    """`move` committed as a write of its own; False when a guard refused it."""
    return bool(store.commit(RunWrite.of(move.workflow_execution_id, moves=(move,))))


def registered_on_step(
    store: ExecutionStore,
    workflow_execution_id: str,
    pipeline_execution_id: str,
    sub_executions: tuple[RegisteredSubExecution, ...] = (),
    logs: tuple[RegisteredLog, ...] = (),
    registered_at: datetime = MONDAY,
) -> PipelineExecution:
    """These entries merged into the step's registered lists as a registration writes them
    (decided on the row as read, again on a refusal); the step as stored afterwards."""

    def decide(read: VersionedStep) -> RunWrite | None:
        step = read.step
        return RunWrite.registering(
            read,
            merge_sub_executions(step.registered_sub_executions, sub_executions),
            merge_logs(step.registered_logs, logs),
            registered_at,
        )

    return _lists_written(store, workflow_execution_id, pipeline_execution_id, decide)


def stops_recorded_on_step(
    store: ExecutionStore,
    workflow_execution_id: str,
    pipeline_execution_id: str,
    stops: tuple[SubExecutionStop, ...],
) -> PipelineExecution:
    """These stop outcomes merged into the step's records as an abort writes them; the step as
    stored afterwards."""

    def decide(read: VersionedStep) -> RunWrite | None:
        return RunWrite.recording_stops(read, merge_stops(read.step.sub_execution_stops, stops))

    return _lists_written(store, workflow_execution_id, pipeline_execution_id, decide)


def _lists_written(
    store: ExecutionStore,
    workflow_execution_id: str,
    pipeline_execution_id: str,
    decide: Callable[[VersionedStep], RunWrite | None],
) -> PipelineExecution:
    written, last = commit_decided(
        store,
        lambda: store.get_versioned_step(workflow_execution_id, pipeline_execution_id),
        decide,
    )
    if written is not None and written.step_lists is not None:
        return written.step_lists.step
    assert last is not None  # nothing written: decided on the step as read
    return last.step
