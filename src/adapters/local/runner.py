"""The embedded runner: runs a launched execution's steps in chain order on this machine."""

from __future__ import annotations

import functools
import os
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from adapters.local.output_folder import OutputFolder
from adapters.local.step_execution import (
    StepFailedError,
    StepRun,
    run_command_step,
    run_python_step,
)
from adapters.local.worker_process import (
    is_worker_alive,
    read_pid_file,
    remove_pid_file,
    terminate_worker,
    write_pid_file,
)
from application.ports import (
    ExecutionStore,
    HistoryPage,
    LogStore,
    ObjectStore,
    OrchestratorExecution,
    RunReporter,
    StateMachineDescription,
    WorkflowCatalog,
)
from domain.assets import asset_object_key
from domain.errors import ConflictError, ExecutionNotFoundError
from domain.execution import (
    ExecutionInput,
    PipelineExecution,
    StepInputConfiguration,
    WorkflowExecution,
    chain_order,
    execution_output_prefix,
)
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import (
    ExecutionType,
    InputFileArity,
    RetryPolicy,
    StepDefinition,
    WorkflowVersion,
)

MODES = ("inline", "thread", "detached")
_LOCAL_TYPES = frozenset({ExecutionType.PYTHON, ExecutionType.COMMAND})
_INTERRUPTED = "local runner: interrupted"
WORKER_EXITED = "local worker exited"
# How long a stop waits for a worker to end on SIGTERM before it sends SIGKILL.
_STOP_GRACE_SECONDS = 5.0
_STEP_EVENT_TYPES = {
    StepStatus.SUCCEEDED: "StepSucceeded",
    StepStatus.FAILED: "StepFailed",
    StepStatus.ABORTED: "StepAborted",
    StepStatus.TIMED_OUT: "StepTimedOut",
}

_InputKey = tuple[str, str, str]  # databaseId, assetId, inputAssetFileKey


class LocalRunner:
    """Runs a workflow execution from its stored records and reports each step as it goes.

    `inline` runs it before start_execution returns, `thread` in a background thread of this
    process, `detached` in a new worker process (`[*detached_command, executionId]`) that outlives
    the caller. Whatever the mode, `run()` needs only the execution id, so a worker or a redrive
    can pick a run up in a fresh process.
    """

    name = "local"

    def __init__(
        self,
        store: ExecutionStore,
        catalog: WorkflowCatalog,
        objects: ObjectStore,
        logs: LogStore,
        reporter: RunReporter,
        work_dir: Path,
        mode: str = "inline",
        detached_command: Sequence[str] = (),
        sleep: Callable[[float], None] = time.sleep,
        registrar: Callable[..., object] | None = None,
        registration_token: Callable[[str, str], str] | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
        if mode == "detached" and not detached_command:
            raise ValueError("detached_command: the detached mode needs the worker's command")
        self._store, self._catalog = store, catalog
        self._objects, self._logs, self._reporter = objects, logs, reporter
        self._work_dir = Path(work_dir)
        self._runs = os.path.join(work_dir, "runs")
        self._mode = mode
        self.synchronous = mode == "inline"
        self._detached_command = tuple(detached_command)
        self._sleep = sleep  # the wait between a step's attempts; tests keep it short
        # (executionId, pipelineExecutionId, sub_executions=, logs=) -> outcome: what a python
        # step's `register` keyword calls, bound to the step's ids
        self._registrar = registrar
        # (executionId, pipelineExecutionId) -> the step's registration token, handed to it
        self._registration_token = registration_token
        self._threads: dict[str, threading.Thread] = {}
        self._versions: dict[tuple[str, str, int], WorkflowVersion] = {}
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self._exit_codes: dict[str, int] = {}  # of workers joined, for a later describe
        self._lock = threading.Lock()
        self._stopped: set[str] = set()  # runs asked to stop, until they are started again
        self._commands: dict[str, subprocess.Popen[bytes]] = {}  # the command step running now

    @property
    def mode(self) -> str:
        return self._mode

    def run_dir(self, workflow_execution_id: str) -> Path:
        return self._work_dir / "runs" / workflow_execution_id

    def output_dir(self, workflow_execution_id: str) -> Path:
        """The folder every step of the run writes to, and reads earlier steps' outputs from."""
        return Path(self._output_dir(workflow_execution_id))

    def _output_dir(self, workflow_execution_id: str) -> str:
        return f"{self._runs}{os.sep}{workflow_execution_id}{os.sep}output"

    def start_problem(self, version: WorkflowVersion) -> str | None:
        for index, step in enumerate(version.steps):
            if step.execution_type not in _LOCAL_TYPES:
                return (
                    f"steps[{index}] ({step.pipeline_id}): a {step.execution_type.value} step "
                    "runs only on Step Functions (--runner stepfunctions)"
                )
        return None

    def start_execution(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        steps: Sequence[PipelineExecution],
    ) -> str | None:
        """The port's start: the runner needs only the id, and reads the rest from the store."""
        self.start(execution.workflow_execution_id)
        return None

    def start(self, workflow_execution_id: str) -> None:
        execution_id = workflow_execution_id
        if self._mode == "inline":
            self._forget_stop_and_worker(execution_id)
            self.run(execution_id)
        elif self._mode == "thread":
            running = self._threads.get(execution_id)
            if running is not None and running.is_alive():
                return  # one run of an execution at a time
            self._forget_stop_and_worker(execution_id)
            # not a daemon: an interpreter that is exiting still finishes and records the run
            thread = threading.Thread(
                target=self.run, args=(execution_id,), name=f"wfx-run-{execution_id}"
            )
            self._threads[execution_id] = thread
            thread.start()
        else:
            worker = self._processes.get(execution_id)
            if worker is not None and worker.poll() is None:
                return
            with self._lock:
                self._stopped.discard(execution_id)
            self._spawn_worker(execution_id)

    def _forget_stop_and_worker(self, execution_id: str) -> None:
        with self._lock:
            self._stopped.discard(execution_id)
        # this run is not a worker's: an old worker's pid file would describe it wrongly
        remove_pid_file(self.run_dir(execution_id))

    def join(self, workflow_execution_id: str, timeout: float | None = None) -> bool:
        """Wait for a run started by this runner in thread or detached mode; True once it ended."""
        thread = self._threads.get(workflow_execution_id)
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                return False
            self._threads.pop(workflow_execution_id, None)
        process = self._processes.get(workflow_execution_id)
        if process is not None:
            try:
                self._exit_codes[workflow_execution_id] = process.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            self._processes.pop(workflow_execution_id, None)
        return True

    # --- the rest of the Orchestrator port ----------------------------------------------------

    def describe_execution(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        """RUNNING while this run's thread or worker lives; FAILED when a worker ended without
        recording the end of its run; otherwise None, and the stored row is the truth."""
        execution_id = execution.workflow_execution_id
        thread = self._threads.get(execution_id)
        if thread is not None and thread.is_alive():
            return OrchestratorExecution(status=ExecutionStatus.RUNNING)
        alive, exit_code = self._worker_state(execution_id)
        if alive is None:
            return None
        if alive:
            return OrchestratorExecution(status=ExecutionStatus.RUNNING)
        try:  # read after the worker is known dead: what it recorded is all there will be
            stored = self._store.get_execution(execution_id)
        except ExecutionNotFoundError:
            return None
        if stored.is_terminal:
            return None
        cause = f"exit code {exit_code}" if exit_code is not None else "exit code unknown"
        return OrchestratorExecution(
            status=ExecutionStatus.FAILED, error=WORKER_EXITED, cause=cause
        )

    def _worker_state(self, execution_id: str) -> tuple[bool | None, int | None]:
        """(alive, exit code) of the run's worker; alive is None when the run has no worker."""
        process = self._processes.get(execution_id)
        if process is not None:
            code = process.poll()
            return code is None, code
        if execution_id in self._exit_codes:
            return False, self._exit_codes[execution_id]
        pid = read_pid_file(self.run_dir(execution_id))
        if pid is None:
            return None, None
        # a worker started by another process: alive or not, but its exit code is not ours
        return is_worker_alive(pid, execution_id), None

    def stop_execution(self, execution: WorkflowExecution, error: str, cause: str) -> None:
        """Stop the run: a thread run before its next step, a worker with its process group, and
        a command step running now at once. The stored statuses are the caller's to write."""
        execution_id = execution.workflow_execution_id
        self._check_ours(execution)
        with self._lock:
            self._stopped.add(execution_id)
            command = self._commands.get(execution_id)
        if command is not None and command.poll() is None:
            command.terminate()
        process = self._processes.get(execution_id)
        pid = process.pid if process is not None else read_pid_file(self.run_dir(execution_id))
        if pid is not None:
            terminate_worker(pid, execution_id, process, _STOP_GRACE_SECONDS)

    def redrive_execution(self, execution: WorkflowExecution, client_token: str) -> datetime:
        """Run the execution again in this runner's mode; `run()` skips the SUCCEEDED steps."""
        execution_id = execution.workflow_execution_id
        self._check_ours(execution)
        if self._stop_requested(execution_id):
            self.join(execution_id, timeout=_STOP_GRACE_SECONDS)  # let the stopped run end first
        alive, _ = self._worker_state(execution_id)
        thread = self._threads.get(execution_id)
        if alive or (thread is not None and thread.is_alive()):
            raise ConflictError(f"execution {execution_id} is still running on the local runner")
        redriven_at = datetime.now(UTC)
        self.start(execution_id)
        return redriven_at

    def history_page(
        self, execution: WorkflowExecution, next_token: str | None = None, max_results: int = 1000
    ) -> HistoryPage:
        """The steps' starts and ends, from the step rows, in chain order: one page."""
        events: list[dict[str, Any]] = []
        steps = chain_order(self._store.list_steps(execution.workflow_execution_id))
        for step in steps:
            if step.start_date is not None:
                events.append(_step_event("StepStarted", step, step.start_date))
            finished = _STEP_EVENT_TYPES.get(step.status)
            if finished is not None:
                event = _step_event(finished, step, step.stop_date)
                if step.error:
                    event["error"] = step.error
                events.append(event)
        return HistoryPage(events=tuple(events))

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineDescription | None:
        """The local runner deploys no state machines."""
        return None

    def _check_ours(self, execution: WorkflowExecution) -> None:
        """A run another orchestrator started is not stopped or redriven here: doing nothing
        would let the caller record a stop that never happened."""
        if execution.orchestrator != self.name:
            raise ConflictError(
                f"execution {execution.workflow_execution_id} runs on the "
                f"{execution.orchestrator} runner, not on {self.name}: "
                f"set WFX_RUNNER={execution.orchestrator}"
            )

    def _stop_requested(self, execution_id: str) -> bool:
        with self._lock:
            return execution_id in self._stopped

    def _command_started(self, execution_id: str, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._commands[execution_id] = process
            stopped = execution_id in self._stopped
        if stopped:  # the stop came while the command was being started
            process.terminate()

    def _command_ended(self, execution_id: str) -> None:
        with self._lock:
            self._commands.pop(execution_id, None)

    def run(self, workflow_execution_id: str) -> ExecutionStatus:
        """Run every step not yet SUCCEEDED, in chain order; the run always ends through the
        reporter, FAILED with the error text when anything goes wrong."""
        try:
            return self._run(workflow_execution_id)
        except Exception as error:
            if self._stop_requested(workflow_execution_id):
                return ExecutionStatus.ABORTED  # the stopper records the run's end
            message = f"local runner: {type(error).__name__}: {error}"
            failed = ExecutionStatus.FAILED
            self._reporter.execution_completed(workflow_execution_id, failed, message)
            return failed
        except BaseException:  # Ctrl-C in inline mode: record the run as failed, then stop
            failed = ExecutionStatus.FAILED
            self._reporter.execution_completed(workflow_execution_id, failed, _INTERRUPTED)
            raise

    def _version(self, execution: WorkflowExecution) -> WorkflowVersion:
        """A published version's steps never change, so each is read once per runner."""
        key = (execution.workflow_database_id, execution.workflow_id, execution.workflow_version)
        version = self._versions.get(key)
        if version is None:
            version = self._versions[key] = self._catalog.get_version(*key)
        return version

    def _run(self, execution_id: str) -> ExecutionStatus:
        details = self._store.get_details(execution_id, include_outputs=False)
        execution = details.execution
        if execution.is_terminal:
            return execution.status  # aborted before it started, or started twice
        version = self._version(execution)
        configurations = {d.step.pipeline_execution_id: d.configuration for d in details.steps}
        inputs = {(i.database_id, i.asset_id, i.input_asset_file_key): i for i in details.inputs}
        outputs: OutputFolder | None = None
        for step in chain_order([d.step for d in details.steps]):
            if step.status is StepStatus.SUCCEEDED:
                continue  # a redrive continues from the step that failed
            if self._stop_requested(execution_id):
                return ExecutionStatus.ABORTED  # the stopper records the run's end
            if outputs is None:
                prefix = execution_output_prefix(execution_id)
                outputs = OutputFolder(self._objects, self._output_dir(execution_id), prefix)
                outputs.pull()
            step_id = step.pipeline_execution_id
            self._reporter.step_started(execution_id, step_id)
            policy = _retry_policy(version, step)
            attempt = 1
            try:
                while True:
                    configuration = configurations.get(step_id)
                    error = self._run_step(step, version, configuration, inputs, outputs)
                    if self._stop_requested(execution_id):
                        return ExecutionStatus.ABORTED  # a killed step's end is not a failure
                    if error is None or policy is None or attempt >= policy.max_attempts:
                        break
                    # seed 003: the failed attempt is kept, the step runs again as a new one
                    attempt += 1
                    self._reporter.step_retrying(execution_id, step_id, error)
                    self._sleep(policy.delay_before(attempt))
                    if self._stop_requested(execution_id):
                        return ExecutionStatus.ABORTED
            except BaseException:  # Ctrl-C: the step ends too, not only the run
                failed = StepStatus.FAILED
                self._reporter.step_finished(execution_id, step_id, failed, _INTERRUPTED)
                raise
            status = StepStatus.SUCCEEDED if error is None else StepStatus.FAILED
            self._reporter.step_finished(execution_id, step_id, status, error)
            if error is not None:
                self._reporter.execution_completed(execution_id, ExecutionStatus.FAILED, error)
                return ExecutionStatus.FAILED
        self._reporter.execution_completed(execution_id, ExecutionStatus.SUCCEEDED)
        return ExecutionStatus.SUCCEEDED

    def _run_step(
        self,
        step: PipelineExecution,
        version: WorkflowVersion,
        configuration: StepInputConfiguration | None,
        inputs: Mapping[_InputKey, ExecutionInput],
        outputs: OutputFolder,
    ) -> str | None:
        """Run one step and upload what it changed; the step's error, or None on success."""
        try:
            definition = _definition(version, step)
            ids = (step.workflow_execution_id, step.pipeline_execution_id)
            token = None if self._registration_token is None else self._registration_token(*ids)
            # SecretStr: a handler printing its `register` shows no token in the step log
            credential = {} if token is None else {"registration_token": SecretStr(token)}
            run = StepRun(
                workflow_execution_id=step.workflow_execution_id,
                pipeline_execution_id=step.pipeline_execution_id,
                input_files=self._input_files(step, configuration, inputs),
                output_dir=outputs.path,
                log_path=lambda: self._logs.step_log_path(
                    step.workflow_execution_id, step.pipeline_execution_id
                ),
                register=None
                if self._registrar is None
                else functools.partial(self._registrar, *ids, **credential),
                registration_token=token,
            )
            try:
                if definition.execution_type is ExecutionType.PYTHON:
                    assert definition.handler is not None  # StepDefinition guarantees it
                    run_python_step(definition.handler, run)
                elif definition.execution_type is ExecutionType.COMMAND:
                    assert definition.command is not None
                    execution_id = step.workflow_execution_id
                    try:
                        run_command_step(
                            definition.command,
                            run,
                            on_start=lambda process: self._command_started(execution_id, process),
                        )
                    finally:
                        self._command_ended(execution_id)
                else:
                    raise StepFailedError(
                        f"{definition.pipeline_id}: a {definition.execution_type.value} step "
                        "runs only on Step Functions (--runner stepfunctions)"
                    )
            finally:
                outputs.push()  # what a failed step left behind is kept too
        except StepFailedError as failed:
            return str(failed)
        except Exception as error:
            return f"{type(error).__name__}: {error}"
        return None

    def _input_files(
        self,
        step: PipelineExecution,
        configuration: StepInputConfiguration | None,
        inputs: Mapping[_InputKey, ExecutionInput],
    ) -> list[str]:
        """Local paths of the step's own input files, each at the version the run pinned."""
        if step.input_file_arity is InputFileArity.NONE or configuration is None:
            return []
        paths = []
        for label in configuration.input_files:
            database_id, asset_id, file_key = _split_label(label)
            row = inputs.get((database_id, asset_id, file_key))
            if row is None:
                raise StepFailedError(f"input file {label} is not among the run's inputs")
            key = asset_object_key(database_id, asset_id, file_key)
            version_id = row.version_id or self._latest_version(key, label)
            paths.append(str(self._objects.local_path(key, version_id)))
        if step.input_file_arity is InputFileArity.ONE and len(paths) > 1:
            raise StepFailedError(f"inputFileArity one: the step was given {len(paths)} files")
        return paths

    def _latest_version(self, key: str, label: str) -> str:
        # a folder or whole-asset selection pins no single version: read the current one
        for stored in self._objects.list_latest(key):
            if stored.key == key:
                return stored.version_id
        raise StepFailedError(f"input file {label} is not in the object store")

    def _spawn_worker(self, workflow_execution_id: str) -> None:
        run_dir = self.run_dir(workflow_execution_id)
        run_dir.mkdir(parents=True, exist_ok=True)
        with open(run_dir / "runner.log", "ab") as log:
            self._processes[workflow_execution_id] = subprocess.Popen(
                [*self._detached_command, workflow_execution_id],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C of the launching terminal does not reach it
            )
        self._exit_codes.pop(workflow_execution_id, None)
        write_pid_file(run_dir, self._processes[workflow_execution_id].pid)


def _step_event(kind: str, step: PipelineExecution, at: datetime | None) -> dict[str, Any]:
    return {"type": kind, "pipelineExecutionId": step.pipeline_execution_id, "timestamp": at}


def _definition(version: WorkflowVersion, step: PipelineExecution) -> StepDefinition:
    if not 0 <= step.step_index < len(version.steps):
        raise StepFailedError(
            f"workflow {version.workflow_key} version {version.version} "
            f"has no step {step.step_index}"
        )
    return version.steps[step.step_index]


def _retry_policy(version: WorkflowVersion, step: PipelineExecution) -> RetryPolicy | None:
    if not 0 <= step.step_index < len(version.steps):
        return None  # the step itself fails with the reason
    return version.steps[step.step_index].retry


def _split_label(label: str) -> tuple[str, str, str]:
    parts = label.split("/", 2)
    if len(parts) != 3 or not all(parts):
        raise StepFailedError(f"input file {label!r}: expected databaseId/assetId/fileKey")
    return parts[0], parts[1], parts[2]
