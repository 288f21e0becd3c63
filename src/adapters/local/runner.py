"""The embedded runner: runs a launched execution's steps in chain order on this machine."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from adapters.local.output_folder import OutputFolder
from adapters.local.step_execution import (
    StepFailedError,
    StepRun,
    run_command_step,
    run_python_step,
)
from application.ports import (
    ExecutionStore,
    LogStore,
    ObjectStore,
    RunReporter,
    WorkflowCatalog,
)
from domain.assets import asset_object_key
from domain.execution import (
    ExecutionInput,
    PipelineExecution,
    StepInputConfiguration,
    WorkflowExecution,
    chain_order,
    execution_output_prefix,
)
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import ExecutionType, InputFileArity, StepDefinition, WorkflowVersion

MODES = ("inline", "thread", "detached")
_INTERRUPTED = "local runner: interrupted"

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
        self._threads: dict[str, threading.Thread] = {}
        self._processes: dict[str, subprocess.Popen[bytes]] = {}

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
            self.run(execution_id)
        elif self._mode == "thread":
            running = self._threads.get(execution_id)
            if running is not None and running.is_alive():
                return  # one run of an execution at a time
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
            self._spawn_worker(execution_id)

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
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            self._processes.pop(workflow_execution_id, None)
        return True

    def run(self, workflow_execution_id: str) -> ExecutionStatus:
        """Run every step not yet SUCCEEDED, in chain order; the run always ends through the
        reporter, FAILED with the error text when anything goes wrong."""
        try:
            return self._run(workflow_execution_id)
        except Exception as error:
            message = f"local runner: {type(error).__name__}: {error}"
            failed = ExecutionStatus.FAILED
            self._reporter.execution_completed(workflow_execution_id, failed, message)
            return failed
        except BaseException:  # Ctrl-C in inline mode: record the run as failed, then stop
            failed = ExecutionStatus.FAILED
            self._reporter.execution_completed(workflow_execution_id, failed, _INTERRUPTED)
            raise

    def _run(self, execution_id: str) -> ExecutionStatus:
        details = self._store.get_details(execution_id, include_outputs=False)
        execution = details.execution
        if execution.is_terminal:
            return execution.status  # aborted before it started, or started twice
        version = self._catalog.get_version(
            execution.workflow_database_id, execution.workflow_id, execution.workflow_version
        )
        configurations = {d.step.pipeline_execution_id: d.configuration for d in details.steps}
        inputs = {(i.database_id, i.asset_id, i.input_asset_file_key): i for i in details.inputs}
        outputs: OutputFolder | None = None
        for step in chain_order([d.step for d in details.steps]):
            if step.status is StepStatus.SUCCEEDED:
                continue  # a redrive continues from the step that failed
            if outputs is None:
                prefix = execution_output_prefix(execution_id)
                outputs = OutputFolder(self._objects, self._output_dir(execution_id), prefix)
                outputs.pull()
            step_id = step.pipeline_execution_id
            self._reporter.step_started(execution_id, step_id)
            try:
                error = self._run_step(step, version, configurations.get(step_id), inputs, outputs)
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
            run = StepRun(
                workflow_execution_id=step.workflow_execution_id,
                pipeline_execution_id=step.pipeline_execution_id,
                input_files=self._input_files(step, configuration, inputs),
                output_dir=outputs.path,
                log_path=lambda: self._logs.step_log_path(
                    step.workflow_execution_id, step.pipeline_execution_id
                ),
            )
            try:
                if definition.execution_type is ExecutionType.PYTHON:
                    assert definition.handler is not None  # StepDefinition guarantees it
                    run_python_step(definition.handler, run)
                else:
                    assert definition.command is not None
                    run_command_step(definition.command, run)
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


def _definition(version: WorkflowVersion, step: PipelineExecution) -> StepDefinition:
    if not 0 <= step.step_index < len(version.steps):
        raise StepFailedError(
            f"workflow {version.workflow_key} version {version.version} "
            f"has no step {step.step_index}"
        )
    return version.steps[step.step_index]


def _split_label(label: str) -> tuple[str, str, str]:
    parts = label.split("/", 2)
    if len(parts) != 3 or not all(parts):
        raise StepFailedError(f"input file {label!r}: expected databaseId/assetId/fileKey")
    return parts[0], parts[1], parts[2]
