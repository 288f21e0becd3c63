"""CompleteExecution: the end-state callback (seed 000 processWorkflowExecutionOutput)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from application.output_folder import relative_path, unrecorded_outputs, writing_attempt
from application.ports.executions import ExecutionStore, refused_main_row
from application.ports.files import AssetCatalog, LogStore, ObjectStore, StoredObject
from application.ports.logs import RunLogSource
from application.ports.system import Clock
from application.run_log import StepTails
from application.run_log_sources import LocalRunLog
from application.run_writes import (
    MOVES_WITH_THE_SUMMARIES,
    commit_decided,
    end_run_and_steps,
    record_end_durations,
    with_closed_attempt_durations,
)
from application.step_summaries import SUMMARIES_IN_THE_END_WRITE, StepSummaries, fitted_run_log
from application.use_cases.record_cost import RecordAttemptDurations
from domain.assets import AssetFile, asset_object_key, asset_root_key
from domain.derived import derived
from domain.execution import (
    ExecutionConfiguration,
    OutputMetadata,
    OutputResult,
    PipelineExecution,
    StepOutputs,
    WorkflowExecution,
    artifacts_of,
    chain_order,
)
from domain.run import Run, RunEnd, RunIsOverError, RunIsStoppingError
from domain.run_write import RunWrite
from domain.statuses import (
    ExecutionStatus,
    StepStatus,
    TerminalExecutionStatus,
    TerminalStepStatus,
)

_METADATA_FOLDER = "metadata/"


class CompleteExecutionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    status: TerminalExecutionStatus
    error: str | None = None


class FinishLastStepCommand(BaseModel):
    """The run's last step to run ended: the last one succeeded, or one ended otherwise (the
    run ends with it, FAILED, TIMED_OUT or ABORTED). The step and the run end in one write."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str
    pipeline_execution_id: str
    attempt: int = Field(ge=1)
    status: TerminalStepStatus = StepStatus.SUCCEEDED
    error: str | None = None
    # the run as its runner knows it (domain.run.as_its_runner_knows): decided on with no read
    known: Run | None = None
    # False: the runner knows nothing is stored under the run's output prefix (none to list)
    outputs_stored: bool = True
    # the main row `known` has moved since, as the runner knows (it saw an abort requested, or
    # its step killed by a signal it did not send): read first, alone
    main_row_moved: bool = False


class LastStepFinished(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    step_status: StepStatus
    execution: WorkflowExecution


class CompleteExecution:
    """Record the run's outputs, metadata, results and summary logs, then its terminal status.

    The stop date and status are written here, so a normal run needs no polling to finish; the
    executionLog is written on every terminal completion and executionError only on a failure.
    """

    def __init__(
        self,
        store: ExecutionStore,
        objects: ObjectStore,
        assets: AssetCatalog,
        logs: LogStore,
        clock: Clock,
        run_logs: RunLogSource | None = None,
        durations: RecordAttemptDurations | None = None,
    ) -> None:
        """`run_logs`: where the run log comes from (the local step logs when not given);
        `durations`: what records the attempts the end closes (their runner could not)."""
        self._store, self._objects, self._assets = store, objects, assets
        self._logs, self._clock = logs, clock
        self._run_logs = run_logs or LocalRunLog(logs)
        self._durations = durations

    def execute(self, command: CompleteExecutionCommand) -> WorkflowExecution:
        def decide(run: Run, at: datetime, log: str, key: str | None) -> RunEnd | None:
            return run.complete(command.status, at, command.error, log, key)

        return self.end(command.workflow_execution_id, command.status, decide)

    def end(
        self,
        workflow_execution_id: str,
        status: ExecutionStatus,
        decide: Callable[[Run, datetime, str, str | None], RunEnd | None],
    ) -> WorkflowExecution:
        """Record the end-state outputs for `status`, then end the run as `decide` says (given
        the run, the moment, the fitted log and its object key) with the steps' summary logs.
        A terminal run is returned untouched but for those summaries, written again."""
        run = self._store.get_run(workflow_execution_id)
        execution = run.execution
        if execution.is_terminal:
            # A completion tried again after its run ended (the summaries' write, the last, was
            # refused or its answer lost) would otherwise never write them: the same rows again.
            self._write_summaries(run.steps)
            return execution
        steps = chain_order(run.steps)
        end_step = next((step for step in steps if step.end_state), None)
        now = self._clock.now()
        if end_step is not None:
            self._add_end_state_outputs(run, end_step, status, now)
        log, log_object_key, tails = fitted_run_log(self._objects, self._run_logs, execution)
        decided: list[RunEnd | None] = []  # the last decision: None, ended by another writer

        def deciding(current: Run) -> RunEnd | None:
            decided[:] = [decide(current, now, log, log_object_key)]
            return decided[0]

        ended, final_steps = end_run_and_steps(
            self._store,
            workflow_execution_id,
            deciding,
            first=run,
            durations=self._durations,
            summaries=StepSummaries(self._logs, tails),
        )
        if decided[0] is None:  # ended meanwhile by a writer that may have left none (a sync)
            self._write_summaries(final_steps, tails)
        return ended

    def finish_last_step(self, command: FinishLastStepCommand) -> LastStepFinished:
        """The local runner's last transition: the step's end, the run's end (as the step's:
        SUCCEEDED, FAILED, TIMED_OUT, ABORTED) and the steps' summary logs as one write, decided
        on one read of the run (again on a fresh read whenever another writer moved first). On
        a run being aborted the step and the run end ABORTED; a step or run ended already is
        left as it is (the summaries written again). AttemptFencedError, nothing written, for
        an attempt that is no longer the step's running one."""
        run_id, step_id = command.workflow_execution_id, command.pipeline_execution_id
        known = command.known
        run = self._run_to_decide_on(command)
        if isinstance(run, LastStepFinished):
            return run  # ended by an abort's write, which left nothing to write
        now = self._clock.now()
        status, error = command.status, command.error
        # the fence first: a result refused records none of its outputs either (its move is
        # the first decision's, made on this same run)
        fenced_on, fenced = run, run.finish_step(step_id, status, error, now, command.attempt)
        if command.outputs_stored and not run.execution.is_terminal:
            self._add_ending_outputs(run, run.step(step_id), ExecutionStatus(status), now)
        log, log_object_key, tails = fitted_run_log(self._objects, self._run_logs, run.execution)
        decisions = 0
        final_steps: list[PipelineExecution] = []  # the steps as the decided write leaves them

        def decide(current: Run) -> RunWrite | None:
            nonlocal decisions
            decisions += 1
            if current is fenced_on:
                move = fenced
            else:
                move = current.finish_step(step_id, status, error, now, command.attempt)
            after = current if move is None else current.moved(move)
            # ended now or before (finish_step leaves no step open): the run ends as it did
            recorded = ExecutionStatus(after.step(step_id).status)
            reason = None if recorded is ExecutionStatus.SUCCEEDED else error
            end = after.complete(recorded, now, reason, log, log_object_key)
            moves = ((move,) if move else ()) + (end.steps if end else ())
            if not moves and end is None:
                return None
            if end is not None and end.steps:  # a success closes none: the run as it is
                after = after.moved_all(end.steps)
            if self._durations is not None and decisions == 1:  # later: recorded after
                moves = with_closed_attempt_durations(self._durations, current, moves)
            fits = end is not None and len(after.steps) <= SUMMARIES_IN_THE_END_WRITE
            summaries = StepSummaries(self._logs, tails)(after.steps) if fits else ()
            final_steps[:] = after.steps
            return RunWrite.of(
                run_id, moves=moves, change=end.change if end else None, step_logs=summaries
            )

        first = decide(run)
        if first is None and known is not None:  # known wrong: as the store has it
            run = self._store.get_run(run_id)
            first = decide(run)
        if first is None:  # a repeat, or ended by another writer first
            return self._left_as_it_is(run, step_id, tails)
        committed = self._committed(run_id, known, first, decide)
        if isinstance(committed, LastStepFinished):
            return committed
        written, last = committed
        if written is None:
            assert last is not None
            return self._left_as_it_is(last, step_id, tails)
        return self._finished_as_written(
            written, written is first, final_steps, run_id, step_id, tails
        )

    def _left_as_it_is(self, run: Run, step_id: str, tails: StepTails | None) -> LastStepFinished:
        """Nothing of ours to write: the run as it is (as a first try, or another writer's end
        such as a lost runner's, left it); ended, the steps' summaries are written again."""
        if run.execution.is_terminal:
            self._write_summaries(run.steps, tails)
        return LastStepFinished(step_status=run.step(step_id).status, execution=run.execution)

    def _run_to_decide_on(self, command: FinishLastStepCommand) -> Run | LastStepFinished:
        """The run as its runner knows it, with its main row read first when the runner knows
        that moved; read whole when the runner knows nothing of it."""
        run_id, known = command.workflow_execution_id, command.known
        if known is None:
            return self._store.get_run(run_id)
        if command.main_row_moved:
            return self._as_its_main_row_says(run_id, known)
        return known

    def _committed(
        self,
        run_id: str,
        known: Run | None,
        first: RunWrite,
        decide: Callable[[Run], RunWrite | None],
    ) -> tuple[RunWrite | None, Run | None] | LastStepFinished:
        """`first` committed, or what is decided on a read each time another writer moved
        first (commit_decided). A write decided on the run as its runner knows it is decided
        again on the main row alone, which may say nothing is left to write (the answer)."""

        def read() -> Run:
            return self._store.get_run(run_id)

        if known is None:
            return commit_decided(self._store, read, decide, first)
        answer = self._store.commit(first)
        if answer:
            return first, None
        # another writer moved the run first (an abort, most often): its main row says how,
        # as the refusal said it (DynamoDB's old image) or read
        seen = self._as_its_main_row_says(run_id, known, refused_main_row(answer))
        if isinstance(seen, LastStepFinished):
            return seen
        return commit_decided(self._store, read, decide, decide(seen))

    def _as_its_main_row_says(
        self, run_id: str, known: Run, stored: WorkflowExecution | None = None
    ) -> Run | LastStepFinished:
        """The main row alone (`stored`, or read), as the runner's end needs it when another
        writer moved it since the runner knew it: ended ABORTED, the end's write left nothing
        to write (the answer); open, the run to decide on, that row with the steps as known
        (their guards stand); ended otherwise, the run read whole."""
        execution = self._store.get_execution(run_id) if stored is None else stored
        if _aborted_with_its_summaries(execution, known):
            return LastStepFinished(step_status=StepStatus.ABORTED, execution=execution)
        if execution.is_terminal:
            return self._store.get_run(run_id)
        return known.with_main_row(execution)

    def _finished_as_written(
        self,
        written: RunWrite,
        carried: bool,
        final_steps: list[PipelineExecution],
        run_id: str,
        step_id: str,
        tails: StepTails,
    ) -> LastStepFinished:
        """What follows the last step's write: its durations, the summaries a chain too long
        for it left out, and the step and the run as it left them."""
        self._record_durations(written, carried)
        if written.change is not None and not written.step_logs:
            self._write_summaries(tuple(final_steps), tails)
        finished = next(s for s in final_steps if s.pipeline_execution_id == step_id)
        execution = written.change.after if written.change else self._store.get_execution(run_id)
        # the step as the write left it, the main row as written or read (domain.derived)
        return derived(LastStepFinished, step_status=finished.status, execution=execution)

    def _add_ending_outputs(
        self, run: Run, ending: PipelineExecution, status: ExecutionStatus, now: datetime
    ) -> None:
        """The files the run's output folder holds that no row records yet: the ending step's
        when it did not succeed and is still open (as a step's finish records them), else the
        end-state step's (as the run's end does, its metadata and results on a success)."""
        if status is not ExecutionStatus.SUCCEEDED and not ending.is_terminal:
            self._add_end_state_outputs(run, ending, status, now)
            return
        end_step = next((step for step in run.steps if step.end_state), None)
        if end_step is not None:
            self._add_end_state_outputs(run, end_step, status, now)

    def _add_end_state_outputs(
        self, run: Run, end_step: PipelineExecution, status: ExecutionStatus, now: datetime
    ) -> None:
        # A run being aborted is not SUCCEEDED, whatever its runner says: no results then.
        outputs_for = ExecutionStatus.ABORTED if run.execution.is_stopping else status
        attempt = writing_attempt(run, end_step.pipeline_execution_id)
        outputs = self._end_state_outputs(run, end_step, outputs_for, attempt, now)
        self._store.add_step_outputs(outputs)

    def _begin_finishing(self, run: Run, at: datetime) -> bool:
        """The run marked finishing before its results go into the output asset: from then on
        no abort is requested, so a run that ends ABORTED never keeps them. False when an abort
        was requested first, or the run ended meanwhile: no results then."""
        run_id = run.workflow_execution_id

        def decide(current: Run) -> RunWrite | None:
            change = current.begin_finishing(at)  # None: marked already, by a first try
            return None if change is None else RunWrite.of(run_id, change=change)

        def read() -> Run:
            return Run(execution=self._store.get_execution(run_id))

        try:
            # refused (an abort requested first, most often): decided again on the main row as
            # the refusal says it, or read
            commit_decided(self._store, read, decide, decide(run), said=_as_run)
        except (RunIsStoppingError, RunIsOverError):
            return False
        return True

    def _record_durations(self, written: RunWrite, carried: bool) -> None:
        if self._durations is None:
            return
        if carried:
            for move in written.moves:
                self._durations.appended(move.cost_entries)
        else:
            record_end_durations(self._durations, written.moves)

    def _write_summaries(
        self, steps: tuple[PipelineExecution, ...], tails: StepTails | None = None
    ) -> None:
        """The summaries describe each step as the run left it."""
        self._store.add_step_outputs(StepOutputs(logs=StepSummaries(self._logs, tails)(steps)))

    def _end_state_outputs(
        self,
        run: Run,
        end_step: PipelineExecution,
        status: ExecutionStatus,
        attempt: int,
        at: datetime,
    ) -> StepOutputs:
        prefix = end_step.output_files_path
        latest = self._objects.list_latest(prefix)
        if not latest:
            return StepOutputs()
        files = unrecorded_outputs(self._store, self._objects, end_step, attempt, latest)
        artifacts = artifacts_of(files, at)
        if status is not ExecutionStatus.SUCCEEDED:
            return StepOutputs(files=tuple(files), artifacts=artifacts)
        result_objects = [
            obj for obj in latest if not relative_path(obj, prefix).startswith(_METADATA_FOLDER)
        ]
        target = None
        if result_objects:
            target = _output_target(self._store.get_configuration(end_step.workflow_execution_id))
            if target is not None and not self._begin_finishing(run, at):
                return StepOutputs(files=tuple(files), artifacts=artifacts)  # as ABORTED
        metadata = [
            row
            for obj in latest
            if relative_path(obj, prefix).startswith(_METADATA_FOLDER)
            for row in self._metadata_rows(obj, end_step, prefix)
        ]
        results = self._results(result_objects, end_step, target)
        return StepOutputs(
            files=tuple(files),
            metadata=tuple(metadata),
            results=tuple(results),
            artifacts=artifacts,
        )

    def _metadata_rows(
        self, obj: StoredObject, step: PipelineExecution, prefix: str
    ) -> list[OutputMetadata]:
        relative = relative_path(obj, prefix)[len(_METADATA_FOLDER) :]
        if not relative.endswith(".json"):
            return []
        try:
            document = json.loads(self._objects.local_path(obj.key, obj.version_id).read_text())
            pairs = [
                (str(key), value if isinstance(value, str) else json.dumps(value))
                for key, value in (document.items() if isinstance(document, dict) else ())
            ]
            for key, value in pairs:
                # `"\ud800"` is valid JSON but no text: no store, page or answer can hold it
                (key + value).encode("utf-8")
        except (OSError, ValueError, RecursionError):
            # a malformed metadata file (nested deeper than Python reads, holding a lone
            # surrogate, too) is kept as an output file, not as metadata
            return []
        return [
            OutputMetadata(
                pipeline_execution_id=step.pipeline_execution_id,
                workflow_execution_id=step.workflow_execution_id,
                target_file_path=relative[: -len(".json")],
                metadata_key=key,
                value=value,
                source_file_key=obj.key,
            )
            for key, value in pairs
        ]

    def _results(
        self, objects: list[StoredObject], step: PipelineExecution, target: tuple[str, str] | None
    ) -> list[OutputResult]:
        prefix = step.output_files_path
        imported: dict[str, AssetFile] = {}
        if target is not None:
            imported = self._import(objects, prefix, *target)
        return [
            OutputResult(
                pipeline_execution_id=step.pipeline_execution_id,
                workflow_execution_id=step.workflow_execution_id,
                relative_file_path=relative_path(obj, prefix),
                version_id=obj.version_id,
                output_database_id=target[0] if target else None,
                output_asset_id=target[1] if target else None,
                asset_version_id=imported[obj.key].version_id if obj.key in imported else None,
            )
            for obj in objects
        ]

    def _import(
        self, objects: list[StoredObject], prefix: str, database_id: str, asset_id: str
    ) -> dict[str, AssetFile]:
        """Write the run's result files into the output asset as new versions of its files."""
        imported: dict[str, AssetFile] = {}
        for obj in objects:
            file_key = relative_path(obj, prefix)
            # as the write begins: of two writers of one file the later one's row stays
            # (AssetCatalog.put_files), a user's import beside this one too
            now = self._clock.now()
            stored = self._objects.put_file(
                asset_object_key(database_id, asset_id, file_key),
                self._objects.local_path(obj.key, obj.version_id),
            )
            imported[obj.key] = AssetFile(
                database_id=database_id,
                asset_id=asset_id,
                file_key=file_key,
                version_id=stored.version_id,
                size=stored.size,
                etag=stored.etag,
                bucket=self._objects.bucket,
                asset_root_key=asset_root_key(database_id, asset_id),
                modified_at=now,
            )
        self._assets.put_files(list(imported.values()))
        return imported


def _aborted_with_its_summaries(execution: WorkflowExecution, known: Run) -> bool:
    """The run ended ABORTED by another writer while its runner ran this step: its end closed
    the step ABORTED and wrote the steps' summaries in its one write (an abort's, a completion's
    or a runner's end; a local run's orchestrator never reports one), so nothing is left to write.
    A longer chain's may have been written after that end: written again then."""
    return (
        execution.status is ExecutionStatus.ABORTED and len(known.steps) <= MOVES_WITH_THE_SUMMARIES
    )


def _output_target(configuration: ExecutionConfiguration | None) -> tuple[str, str] | None:
    if (
        configuration is None
        or not configuration.output_database_id
        or not configuration.output_asset_id
    ):
        return None
    return configuration.output_database_id, configuration.output_asset_id


def _as_run(execution: WorkflowExecution) -> Run:
    """The run to decide on from its main row alone."""
    return Run(execution=execution)
