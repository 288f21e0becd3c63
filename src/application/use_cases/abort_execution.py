"""AbortExecution: stop a run that is still going, its registered sub-processes first."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from application.ports.executions import RunLifecycleStore
from application.ports.files import LogStore, ObjectStore
from application.ports.logs import RunLogSource
from application.ports.orchestration import Orchestrator
from application.ports.sub_executions import SubProcessController
from application.ports.system import Clock
from application.run_log_sources import LocalRunLog
from application.run_writes import commit_decided, end_run_and_steps
from application.step_summaries import StepSummaries, fitted_run_log
from application.sub_process_stops import stop_sub_processes
from application.use_cases.record_cost import RecordAttemptDurations
from domain.control_characters import FREE_TEXT_KEEPS, refusing_control_characters
from domain.errors import UnreadableRowError
from domain.execution import WorkflowExecution
from domain.redrive import with_derived_redrive_status
from domain.run import ABORT_ERROR, DEFAULT_ABORT_CAUSE, Run
from domain.run_write import RunWrite


class AbortExecutionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    # every reader's terminal and page shows it: refused here, so every entrypoint refuses it
    cause: Annotated[str, AfterValidator(refusing_control_characters(FREE_TEXT_KEEPS))] = (
        DEFAULT_ABORT_CAUSE
    )


class AbortResult(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    execution: WorkflowExecution
    # Sub-processes left running (a type that cannot be stopped, a stop that failed).
    warnings: tuple[str, ...] = ()


class AbortExecution:
    """Abort an open run: the request first (one conditional write; from then on nothing of the
    run starts or succeeds), then its sub-processes, then the orchestrator, then the rows:
    every open step and the run ABORTED.

    A terminal run is returned unchanged and the orchestrator is not called (seed 000). An abort
    of a run being aborted already finishes the job (the first request's cause stands).
    """

    def __init__(
        self,
        store: RunLifecycleStore,
        orchestrator: Orchestrator,
        sub_processes: SubProcessController,
        logs: LogStore,
        objects: ObjectStore,
        clock: Clock,
        run_logs: RunLogSource | None = None,
        durations: RecordAttemptDurations | None = None,
    ) -> None:
        """`run_logs`: where the run log comes from (the local step logs when not given);
        `durations`: what records the attempts the abort closes."""
        self._store, self._orchestrator, self._sub_processes = store, orchestrator, sub_processes
        self._objects, self._clock, self._logs = objects, clock, logs
        self._run_logs = run_logs or LocalRunLog(logs)
        self._durations = durations

    def execute(self, command: AbortExecutionCommand) -> AbortResult:
        result = self._abort(command)
        # answered as a read shows the run: a local run's redriveStatus derived (domain.redrive)
        shown = with_derived_redrive_status(result.execution, self._clock.now(), 0)
        return result.model_copy(update={"execution": shown})

    def _abort(self, command: AbortExecutionCommand) -> AbortResult:
        execution = self._request(command)
        if execution.is_terminal:
            return AbortResult(execution=execution)
        execution_id = execution.workflow_execution_id
        # Read once the request is recorded: from then on no step starts, so these are every
        # step the end must close. The end is decided on them even after the stop: a step the
        # runner moved meanwhile refuses that write (its status guard) and the run is read again.
        try:
            # with the attempts the end closes, the running steps' alone: on SQLite one read,
            # on DynamoDB the steps' Query and one per running step, not one per step
            listed, attempts = self._store.list_steps_and_running_attempts(execution_id)
            steps = tuple(listed)
        except UnreadableRowError as unreadable:
            raise _requested_but_unreadable(unreadable) from unreadable
        run = Run(execution=execution, steps=steps, attempts=tuple(attempts))
        warnings = stop_sub_processes(self._sub_processes, self._store, steps, self._clock.now())
        cause = execution.abort_cause or command.cause
        stopped = self._orchestrator.stop_execution(execution, ABORT_ERROR, cause)
        warnings += stopped.warnings
        if stopped.runner_done:
            # another process ran the run and is done: it ended the run before it exited (told
            # by the request or by its step's signal), unless killed; its main row says. Ended,
            # the answer; else the end is decided on that row (the steps' guards stand)
            current = self._store.get_execution(execution_id)
            if current.is_terminal:
                return AbortResult(execution=current, warnings=warnings)
            run = run.with_main_row(current)
        # read after the stop: what the orchestrator logged until then is in it
        log, log_object_key, tails = fitted_run_log(self._objects, self._run_logs, execution)
        now = self._clock.now()
        # the end leaves what a run's end leaves, the steps' summaries too: the runner that
        # finds its run ended has nothing left to write
        aborted, _ = end_run_and_steps(
            self._store,
            execution_id,
            lambda run: run.abort(now, log, log_object_key),
            first=run,
            durations=self._durations,
            summaries=StepSummaries(self._logs, tails),
            # the runner, stopped, most often ended the run first: its main row says so alone
            main_row_first=True,
        )
        return AbortResult(execution=aborted, warnings=warnings)

    def _request(self, command: AbortExecutionCommand) -> WorkflowExecution:
        """The main row with the abort request recorded, or as it is once terminal."""
        execution_id = command.workflow_execution_id

        def decide(run: Run) -> RunWrite | None:
            if run.execution.is_terminal:
                return None
            change = run.request_abort(self._clock.now(), command.cause)
            # None: requested already, this abort finishes the job
            return None if change is None else RunWrite.of(execution_id, change=change)

        def read() -> Run:
            return Run(execution=self._store.get_execution(execution_id))

        written, run = commit_decided(self._store, read, decide)
        if written is not None and written.change is not None:
            return written.change.after
        assert run is not None  # nothing written: decided on the row it read
        return run.execution


def _requested_but_unreadable(unreadable: UnreadableRowError) -> UnreadableRowError:
    """The refusal says what is already true: reading the steps before the request would cost
    every abort one read more (DynamoDB 5 -> 6 requests), for rows another writer broke."""
    return UnreadableRowError(
        f"{unreadable}; the abort request is recorded (no step of the run starts from now on), "
        "but the run cannot be ended on a row wfx cannot read: mend or delete the row, then "
        "abort again to finish",
        unreadable.table,
        unreadable.key,
        unreadable.attribute,
        unreadable.problem,
    )
