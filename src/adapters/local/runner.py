"""The embedded runner: runs a launched execution's steps in chain order on this machine.

`LocalRunner` is the Orchestrator adapter; it hands the steps to the StepInterpreter
(adapters/local/interpreter.py) and the processes to the supervisor (adapters/local/supervisor.py):
its lease, its keeper, its command steps' process groups and their stop.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from adapters.local.interpreter import (
    STORE_FAILED,
    KilledStep,
    PlannedStep,
    RunParkedError,
    StepInterpreter,
    StepTimedOutError,
    StoreUnavailableError,
)
from adapters.local.output_folder import OutputFolder, log_warnings_to
from adapters.local.processes_on_host import describe, stop_group
from adapters.local.runner_liveness import (
    lease_holder_lost,
    names_lease_holder,
    runner_gone_cause,
)
from adapters.local.step_execution import (
    StepFailedError,
    StepKilledError,
    StepRun,
    run_command_step,
    run_python_step,
    unwaitable_children,
)
from adapters.local.step_user import (
    INPUTS_FOLDER,
    OUTPUTS_FOLDER,
    RUNS_FOLDER,
    StepUser,
    stage_inputs,
)
from adapters.local.supervisor import (
    DEFAULT_GRACE_SECONDS,
    DEFAULT_LEASE_SECONDS,
    DEFAULT_WATCH_SECONDS,
    ProcessRecord,
    RunFolder,
    RunKeeper,
    RunStop,
    Standing,
    StopReason,
    child_process,
    lease_owner,
    stop_step_groups,
    this_process,
)
from application.ports.executions import ExecutionStore
from application.ports.files import LogStore, ObjectStore
from application.ports.orchestration import (
    Described,
    HistoryPage,
    LaunchClaim,
    OrchestratorExecution,
    RunReporter,
    StateMachineDescription,
    Stopped,
)
from application.ports.workflows import WorkflowCatalog
from domain.approvals import (
    ApprovalRequest,
    ApprovalStatus,
)
from domain.assets import asset_object_key
from domain.attempt_logs import attempt_marker
from domain.attempts import next_attempt_number
from domain.errors import RUNNER_LOST_ERROR, ConflictError, ExecutionNotFoundError
from domain.execution import (
    ExecutionInput,
    PipelineExecution,
    StepInputConfiguration,
    WorkflowExecution,
    chain_order,
    execution_output_prefix,
)
from domain.run import Run
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import (
    ExecutionType,
    InputFileArity,
    StepDefinition,
    WorkflowVersion,
)

# worker: a detached run's own process, running it in a thread as `thread` does
MODES = ("inline", "thread", "detached", "worker")
_LOCAL_TYPES = frozenset({ExecutionType.PYTHON, ExecutionType.COMMAND, ExecutionType.APPROVAL})
_GUARD = str(Path(__file__).with_name("step_guard.py"))
# A python step run as the step user: in a process of its own (-P: its folder is not on sys.path)
_PYTHON_HOST = (sys.executable, "-P", str(Path(__file__).with_name("python_step_host.py")))
_STEP_EVENT_TYPES = {
    StepStatus.SUCCEEDED: "StepSucceeded",
    StepStatus.FAILED: "StepFailed",
    StepStatus.ABORTED: "StepAborted",
    StepStatus.TIMED_OUT: "StepTimedOut",
}

_CLAIMS_KEPT = 1024

_InputKey = tuple[str, str, str]  # databaseId, assetId, inputAssetFileKey


@dataclass
class _LiveRun:
    """A run this process runs now: its stop, and the command step process running now."""

    stop: RunStop = field(default_factory=RunStop)
    command: subprocess.Popen[bytes] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class LocalRunner:
    """Runs a workflow execution from its stored records and reports each step as it goes.

    `inline` runs it before start_execution returns, `thread` in a background thread of this
    process, `detached` in a new worker process (`[*detached_command, executionId]`) that outlives
    the caller. Whatever the mode, `run()` needs only the execution id, so a worker or a redrive
    can pick a run up in a fresh process. A run is run under a lease its keeper renews; command
    steps run in process groups of their own, behind a guard that stops the group when the
    runner dies; an abort, from any process, stops them with SIGTERM and then SIGKILL.
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
        sleep: Callable[[float], None] | None = None,
        backoff: Callable[[float], None] | None = None,
        registrar: Callable[..., object] | None = None,
        registration_token: Callable[[str, str], str] | None = None,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        watch_seconds: float = DEFAULT_WATCH_SECONDS,
        step_user: StepUser | None = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
        if mode == "detached" and not detached_command:
            raise ValueError("detached_command: the detached mode needs the worker's command")
        self._store, self._catalog = store, catalog
        self._objects, self._logs, self._reporter = objects, logs, reporter
        self._runs = os.path.join(work_dir, RUNS_FOLDER)
        self._outputs = os.path.join(work_dir, OUTPUTS_FOLDER)
        self._mode = mode
        self.synchronous = mode == "inline"
        self._detached_command = tuple(detached_command)
        self._sleep = sleep  # the wait between a step's attempts; tests keep it short
        # the wait before a store call the store failed is tried again (None: time.sleep)
        self._backoff = backoff or time.sleep
        # (executionId, pipelineExecutionId, sub_executions=, logs=) -> outcome: what a python
        # step's `register` keyword calls, bound to the step's ids
        self._registrar = registrar
        # (executionId, pipelineExecutionId) -> the step's registration token, handed to it
        self._registration_token = registration_token
        self._grace, self._lease, self._watch = grace_seconds, lease_seconds, watch_seconds
        self._lease_length = timedelta(seconds=lease_seconds)  # a launch's claim: made once
        self._threads: dict[str, threading.Thread] = {}
        self._versions: dict[tuple[str, str, int], WorkflowVersion] = {}
        self._processes: dict[str, subprocess.Popen[bytes]] = {}
        self._exit_codes: dict[str, int] = {}  # of workers joined, for a later describe
        self._live: dict[str, _LiveRun] = {}
        self._lock = threading.Lock()
        self._keeper = RunKeeper()
        # the lease owners of launches claimed for this runner, until their runs start here
        self._claims: dict[str, None] = {}
        # every step runs as this OS user (adapters/local/step_user.py), none in this process
        self._step_user = step_user

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def grace_seconds(self) -> float:
        return self._grace

    def run_dir(self, workflow_execution_id: str) -> Path:
        """The run's own folder (its command steps' records, input lists, staged inputs, a
        detached worker's log), made by the first of them: never an output."""
        return Path(self._run_dir(workflow_execution_id))

    def _run_dir(self, workflow_execution_id: str) -> str:
        return f"{self._runs}{os.sep}{workflow_execution_id}"

    def output_dir(self, workflow_execution_id: str) -> Path:
        """The folder every step of the run writes to, and reads earlier steps' outputs from."""
        return Path(self._output_dir(workflow_execution_id))

    def _output_dir(self, workflow_execution_id: str) -> str:
        # not inside the run's folder: a run of python steps makes this one folder only
        return f"{self._outputs}{os.sep}{workflow_execution_id}"

    def _folder(self, workflow_execution_id: str) -> RunFolder:
        return RunFolder(self._run_dir(workflow_execution_id))

    def start_problem(self, version: WorkflowVersion) -> str | None:
        unwaitable = unwaitable_children()
        if unwaitable is not None:
            return unwaitable
        for index, step in enumerate(version.steps):
            if step.execution_type not in _LOCAL_TYPES:
                return (
                    f"steps[{index}] ({step.pipeline_id}): a {step.execution_type.value} step "
                    "runs only on Step Functions (--runner stepfunctions)"
                )
        return None

    def ended_run(self, workflow_execution_id: str) -> WorkflowExecution | None:
        return self._reporter.ended(workflow_execution_id) if self.synchronous else None

    def launch_claim(self) -> LaunchClaim | None:
        """A run this runner runs in this process is launched leased to it, its first step
        started; a worker process (detached) claims its run itself, so a run whose worker never
        starts stays unclaimed, and is reconciled as any run without a runner is."""
        if self._mode == "detached":
            return None
        owner = lease_owner()
        with self._lock:
            self._claims[owner] = None
            if len(self._claims) > _CLAIMS_KEPT:  # launches whose start never came (a failure)
                del self._claims[next(iter(self._claims))]
        return LaunchClaim(owner=owner, lease=self._lease_length)

    def _claimed(self, known: WorkflowExecution | None) -> str | None:
        """The owner the launch of `known` leased it to, when that was this runner's claim."""
        lease = known.runner_lease if known is not None else None
        if lease is None:
            return None
        with self._lock:
            return lease.owner if self._claims.pop(lease.owner, False) is None else None

    def start_execution(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        steps: Sequence[PipelineExecution],
    ) -> str | None:
        """The port's start: the launch hands over what it just wrote (the main row, the version,
        the steps), so the runner reads none of it back; a detached worker reads it anew."""
        self._keep_version(version)
        self.start(execution.workflow_execution_id, execution, steps, launched=True)
        return None

    def start(
        self,
        workflow_execution_id: str,
        known: WorkflowExecution | None = None,
        known_steps: Sequence[PipelineExecution] | None = None,
        next_attempts: Mapping[str, int] | None = None,
        launched: bool = False,
    ) -> None:
        """Run it in this runner's mode; `known` and `known_steps` are its main row and steps
        as the caller just wrote them, `next_attempts` the attempt each step takes next where
        the caller knows it (a redrive read the attempts of the steps it reopened); `launched`:
        the caller just launched it, so nothing is stored under its output prefix yet."""
        execution_id = workflow_execution_id
        if self._mode == "inline":
            self.run(execution_id, known, known_steps, next_attempts, launched)
        elif self._mode in ("thread", "worker"):
            running = self._threads.get(execution_id)
            if running is not None and running.is_alive():
                return  # one run of an execution at a time
            # not a daemon: an interpreter that is exiting still finishes and records the run
            thread = threading.Thread(
                target=self.run,
                args=(execution_id, known, known_steps, next_attempts, launched),
                name=f"wfx-run-{execution_id}",
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
                self._exit_codes[workflow_execution_id] = process.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            self._processes.pop(workflow_execution_id, None)
        return True

    # --- the rest of the Orchestrator port ----------------------------------------------------

    def describe_each(self, executions: Sequence[WorkflowExecution]) -> list[Described]:
        """One after another: each is a file read and a /proc look, no round trip."""
        return [Described.of(self.describe_execution, execution) for execution in executions]

    def describe_execution(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        """RUNNING while the run's runner lives on this host; FAILED (wfx.RunnerLost) when it
        ended without recording the end of its run, holding its lease or before any runner
        took one; otherwise None, and the stored row (and its lease) is the truth."""
        execution_id = execution.workflow_execution_id
        thread = self._threads.get(execution_id)
        if thread is not None and thread.is_alive():
            return OrchestratorExecution(status=ExecutionStatus.RUNNING)
        record = self._folder(execution_id).runner()
        if record is None or not record.here:
            return None  # not started here, or elsewhere: its lease tells
        if record.running() and not self._ended_in_this_process(execution_id, record):
            return OrchestratorExecution(status=ExecutionStatus.RUNNING)
        try:  # read after the runner is known gone: what it recorded is all there will be
            stored = self._store.get_execution(execution_id)
        except ExecutionNotFoundError:
            return None
        if stored.is_terminal or not names_lease_holder(record, stored):
            return None  # ended; or parked, handed over, or held by a later runner: its lease tells
        return OrchestratorExecution(
            status=ExecutionStatus.FAILED,
            error=RUNNER_LOST_ERROR,
            cause=self._gone(execution_id, record),
        )

    def lost_runner(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        """As runner_liveness.LocalRunnerLiveness answers it, knowing this process's threads
        and the exit codes of the workers it started."""
        execution_id = execution.workflow_execution_id
        thread = self._threads.get(execution_id)
        if execution.runner_lease is None or (thread is not None and thread.is_alive()):
            return None
        record = self._folder(execution_id).runner()
        return lease_holder_lost(execution, record, self._exit_code(execution_id))

    def _ended_in_this_process(self, execution_id: str, record: ProcessRecord) -> bool:
        """A run of this very process whose thread is gone (it died with an error)."""
        return record.pid == os.getpid() and execution_id not in self._live

    def _gone(self, execution_id: str, record: ProcessRecord) -> str:
        return runner_gone_cause(record, self._exit_code(execution_id))

    def _exit_code(self, execution_id: str) -> int | None:
        """The exit code of the run's worker, when this runner started it and it has ended."""
        process = self._processes.get(execution_id)
        if process is not None and process.poll() is not None:
            return process.returncode
        return self._exit_codes.get(execution_id)

    def stop_execution(self, execution: WorkflowExecution, error: str, cause: str) -> Stopped:
        """Stop the run's processes: its command steps' groups at once (SIGTERM, SIGKILL after
        the grace period); its runner, which sees the abort request, ends the run within a
        watch interval - a detached worker that does not is stopped with its group. The
        stored statuses are the caller's to write; the warnings name what is left alive, and
        `runner_done` says another process's runner ended its part of itself."""
        execution_id = execution.workflow_execution_id
        self._check_ours(execution)
        live = self._live.get(execution_id)
        if live is not None:
            live.stop.request(StopReason.ABORT)
        folder = self._folder(execution_id)
        warnings = stop_step_groups(folder, self._grace)
        record = folder.runner()
        thread = self._threads.get(execution_id)
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._grace + self._watch)
        elif record is not None and record.running() and record.pid != os.getpid():
            return self._wait_for_runner(execution, record, tuple(warnings))
        return Stopped(tuple(warnings))

    def _wait_for_runner(
        self, execution: WorkflowExecution, record: ProcessRecord, warnings: tuple[str, ...]
    ) -> Stopped:
        """Another process runs the run: it sees the abort request within a watch interval and
        ends the run. A detached worker is waited for until it has exited (done), and stopped
        with its group if it does not; a foreground `wfx run` until it has recorded the end or
        exited (done); `warnings` the stop's so far.

        A worker that had not taken the run when the abort was recorded (no lease on the row
        the caller holds) is stopped at once: from the request on it starts no step, and all it
        would do is end the run, which the caller does. It is most likely still starting (a
        fresh interpreter, its store's client: a second and more on a loaded machine)."""
        execution_id = execution.workflow_execution_id
        detached = record.mode == "detached"
        if detached and execution.runner_lease is None:
            # killed before it ran anything: it ended nothing
            return Stopped(warnings + self._stop_worker(execution_id, record, grace_seconds=0.0))
        bound = self._grace + 2 * self._watch
        if detached:
            if record.gone_within(bound):
                self._reap(execution_id)
                return Stopped(warnings, runner_done=True)
            return Stopped(warnings + self._stop_worker(execution_id, record, self._grace))
        deadline = time.monotonic() + bound
        while record.running() and not self._store.get_execution(execution_id).is_terminal:
            if time.monotonic() >= deadline:
                left = (
                    f"the local runner (pid {record.pid}) has not ended its run yet: its step "
                    "is still finishing, and nothing more of the run will start"
                )
                return Stopped((*warnings, left))
            time.sleep(0.02)
        return Stopped(warnings, runner_done=True)

    def _stop_worker(
        self, execution_id: str, record: ProcessRecord, grace_seconds: float
    ) -> tuple[str, ...]:
        left = stop_group(record.pid, grace_seconds)
        self._reap(execution_id)
        return tuple(f"local worker {describe(stat)} still running after SIGKILL" for stat in left)

    def _reap(self, execution_id: str) -> None:
        process = self._processes.get(execution_id)
        if process is not None:
            process.poll()  # our child: its exit status collected, no zombie left

    def _exited(self, record: ProcessRecord) -> bool:
        """Whether the process that ran the run has gone. The run's end is stored before its
        worker exits (it still writes the run log and closes its files), so a redrive just
        after the end waits for that, as it waits for a thread of its own."""
        return record.pid == os.getpid() or record.gone_within(self._grace + self._watch)

    def redrive_execution(
        self, execution: WorkflowExecution, client_token: str, known: Run | None = None
    ) -> datetime:
        """Run the execution again in this runner's mode; `run()` skips the SUCCEEDED steps.
        `known`: the run as the redrive wrote it (leased to this runner when it claimed it),
        its steps, and the attempts of the steps it reopened: the runner reads none of them."""
        execution_id = execution.workflow_execution_id
        self._check_ours(execution)
        thread = self._threads.get(execution_id)
        if thread is not None and thread.is_alive():
            thread.join(self._grace + self._watch)  # let a stopped run end first
        record = self._folder(execution_id).runner()
        still = thread is not None and thread.is_alive()
        if still or (record is not None and not self._exited(record)):
            raise ConflictError(f"execution {execution_id} is still running on the local runner")
        # fencing: nothing of an earlier run of it may still be at work
        stop_step_groups(self._folder(execution_id), self._grace)
        redriven_at = datetime.now(UTC)
        if known is None:
            self.start(execution_id, known=execution)  # the row as the redrive just wrote it
        else:
            # a redriven step keeps its attempts and takes the next number (seed 003)
            next_attempts = {
                step.pipeline_execution_id: next_attempt_number(
                    known.attempts_of(step.pipeline_execution_id)
                )
                for step in known.steps
            }
            self.start(execution_id, known.execution, known.steps, next_attempts)
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

    # --- running ------------------------------------------------------------------------------

    def run(
        self,
        workflow_execution_id: str,
        known: WorkflowExecution | None = None,
        known_steps: Sequence[PipelineExecution] | None = None,
        next_attempts: Mapping[str, int] | None = None,
        launched: bool = False,
    ) -> ExecutionStatus | None:
        """Run every step not yet SUCCEEDED, in chain order, under the run's lease; the run's
        status as recorded, or None when another runner holds it (or it was lost)."""
        execution_id = workflow_execution_id
        claimed = self._claimed(known)
        owner = claimed or lease_owner()
        live = _LiveRun()
        # The run's first store calls meet a passing fault as its reports do: tried again with
        # backoff. One fault here used to end the run (or its launch) FAILED at once; a lease
        # taken by a try whose answer was lost is this owner's, and taken again.
        interpreter = StepInterpreter(
            self._reporter, live.stop, sleep=self._sleep, backoff=self._backoff
        )
        # in chain order once: the start and the plan below both walk it
        ordered = None if known_steps is None else chain_order(list(known_steps))
        try:
            leased, started = self._take_lease(
                execution_id, owner, known, claimed, ordered, interpreter
            )
            if leased is None:
                return None  # another runner has it, or it has ended
        except ExecutionNotFoundError:
            return None
        except StoreUnavailableError as error:
            # Not claimed, so not ours to end (another runner may hold it): a read ends it once
            # a lease's length has passed with no runner (wfx.RunnerLost).
            print(f"wfx: run {execution_id}: {STORE_FAILED}: {error}; not run", file=sys.stderr)
            return None
        self._keep_live(execution_id, owner, live)
        try:
            return self._run(
                leased,
                ordered,
                live,
                interpreter,
                owner,
                started,
                next_attempts or {},
                launched,
            )
        except Exception as error:  # the runner itself failed: the run ends, and says why
            return self._record_runner_failure(execution_id, live, interpreter, error)
        finally:
            self._keeper.release(execution_id)
            with self._lock:
                self._live.pop(execution_id, None)

    def _take_lease(
        self,
        execution_id: str,
        owner: str,
        known: WorkflowExecution | None,
        claimed: str | None,
        ordered: Sequence[PipelineExecution] | None,
        interpreter: StepInterpreter,
    ) -> tuple[WorkflowExecution | None, int | None]:
        """The main row under `owner`'s lease (None when another runner has it, or it has
        ended), and the attempt of the first step when the lease's write started it."""
        if known is not None and claimed is not None:
            # the launch's write took the lease and started the first step
            return known, self._started_at_launch(known, ordered)
        first = _first_to_start(ordered) if known is not None else None
        if known is not None and first is not None:
            # the launch's own run: the lease and the first step's start are one write
            return interpreter.persist(
                lambda: self._reporter.take_lease_and_start(execution_id, owner, known, first)
            )
        leased = interpreter.persist(lambda: self._reporter.take_lease(execution_id, owner, known))
        return leased, None

    def _keep_live(self, execution_id: str, owner: str, live: _LiveRun) -> None:
        """The run is this process's now: it says so in the run's folder, and its keeper renews
        the lease and watches for an abort."""
        with self._lock:
            self._live[execution_id] = live
        mode = "detached" if self._mode == "worker" else self._mode
        self._folder(execution_id).write_runner(this_process(mode))
        self._keeper.keep(
            execution_id,
            watch=lambda: _standing(self._reporter.current(execution_id)),
            renew=lambda: self._reporter.renew_lease(execution_id, owner),
            on_stop=lambda reason: self._stop_live(execution_id, live, reason),
            lease_seconds=self._lease,
            watch_seconds=self._watch,
        )

    @staticmethod
    def _record_runner_failure(
        execution_id: str, live: _LiveRun, interpreter: StepInterpreter, error: Exception
    ) -> ExecutionStatus | None:
        if live.stop.reason is StopReason.LOST:
            return None
        if isinstance(error, StoreUnavailableError):
            message = f"{STORE_FAILED}: {error}"
        else:
            message = f"local runner: {type(error).__name__}: {error}"
        return interpreter.record_failure(execution_id, message)

    def _started_at_launch(
        self, execution: WorkflowExecution, ordered: Sequence[PipelineExecution] | None
    ) -> int | None:
        """The attempt of the first step the launch started, told to the reporter; `ordered`:
        the run's steps in chain order."""
        first = ordered[0] if ordered else None
        if first is None or first.status is not StepStatus.RUNNING:
            return None
        self._reporter.started_at_launch(
            execution.workflow_execution_id, first.pipeline_execution_id, 1, first.start_date
        )
        return 1

    def _stop_live(self, execution_id: str, live: _LiveRun, reason: StopReason) -> None:
        """The keeper saw an abort request or lost the lease: the run stops, its command now."""
        live.stop.request(reason)
        with live.lock:
            command = live.command
        if command is not None and command.poll() is None:
            stop_group(command.pid, self._grace)

    def _version(self, execution: WorkflowExecution) -> WorkflowVersion:
        """A published version's steps never change, so each is read once per runner."""
        key = (execution.workflow_database_id, execution.workflow_id, execution.workflow_version)
        version = self._versions.get(key)
        if version is None:
            version = self._versions[key] = self._catalog.get_version(*key)
        return version

    def _keep_version(self, version: WorkflowVersion) -> None:
        key = (version.database_id, version.workflow_id, version.version)
        self._versions.setdefault(key, version)

    def _run(
        self,
        execution: WorkflowExecution,
        ordered: Sequence[PipelineExecution] | None,
        live: _LiveRun,
        interpreter: StepInterpreter,
        owner: str,
        started: int | None = None,
        next_attempts: Mapping[str, int] | None = None,
        launched: bool = False,
    ) -> ExecutionStatus | None:
        """`execution`: the main row as the lease's write left it, so as fresh as a read;
        `ordered`: its steps as the caller knew them, in chain order; `started`: the attempt of
        the first step, started with the lease; `next_attempts`: the attempt a step takes next,
        by step id, where the caller knew it (1 otherwise); `launched`: a run its launch just
        wrote, with no outputs stored yet."""
        execution_id = execution.workflow_execution_id
        if execution.is_terminal:
            return execution.status  # aborted before it started, or started twice
        version = self._version(execution)
        steps = ordered
        if steps is None:  # a redrive, a resume, a worker: the steps as stored now
            steps = chain_order(interpreter.persist(lambda: self._store.list_steps(execution_id)))
        run_inputs = _RunInputs(self._store, execution_id, interpreter)
        # each step's definition read from the version once a run, not by each attempt, its
        # gate and its retry again (None: the version has no such step, which fails it)
        definitions = {step.pipeline_execution_id: _defined(version, step) for step in steps}
        attempts = next_attempts or {}
        planned = [
            PlannedStep(
                step=step,
                retry=None if definition is None else definition.retry,
                resume_attempt=self._gate_attempt(definition, step, interpreter),
                next_attempt=attempts.get(step.pipeline_execution_id, 1),
            )
            for step in steps
            for definition in (definitions[step.pipeline_execution_id],)
        ]
        outputs: list[OutputFolder] = []

        def action(step: PipelineExecution, attempt: int) -> str | None:
            definition = definitions[step.pipeline_execution_id]  # one of `planned`'s steps
            if definition is not None and definition.approval is not None:
                return self._pass_gate(step, attempt, owner, interpreter)
            if not outputs:
                prefix = execution_output_prefix(execution_id)
                folder = OutputFolder(self._objects, self._output_dir(execution_id), prefix)
                if launched:  # its prefix is new: no listing of the object store
                    folder.create()
                else:
                    folder.pull()
                outputs.append(folder)
            return self._run_step(step, attempt, version, definition, run_inputs, outputs[0], live)

        def outputs_stored() -> bool:
            # before any step ran, a launched run's prefix holds nothing yet either
            return outputs[0].holds_stored if outputs else not launched

        return interpreter.run(
            execution_id, planned, action, started, known=execution, outputs_stored=outputs_stored
        )

    def _gate_attempt(
        self,
        definition: StepDefinition | None,
        step: PipelineExecution,
        interpreter: StepInterpreter,
    ) -> int | None:
        """The attempt of an approval step (`definition`: the step's) the run was parked at
        (RUNNING), taken up again."""
        if step.status is not StepStatus.RUNNING or definition is None:
            return None
        if definition.approval is None:
            return None
        step_id = step.pipeline_execution_id
        run = interpreter.persist(lambda: self._store.get_run(step.workflow_execution_id, step_id))
        running = run.running_attempt(step_id)
        return None if running is None else running.attempt

    def _pass_gate(
        self, step: PipelineExecution, attempt: int, owner: str, interpreter: StepInterpreter
    ) -> str | None:
        """An approval step: its gate's request, and the run parked until it is decided."""
        closed = interpreter.persist(
            lambda: self._reporter.approval_gate(
                step.workflow_execution_id, step.pipeline_execution_id, attempt, owner
            )
        )
        if closed is None:
            raise RunParkedError(step.pipeline_execution_id)
        if closed.status is ApprovalStatus.APPROVED:
            return None
        if closed.status is ApprovalStatus.TIMED_OUT:
            raise StepTimedOutError(closed.step_error())
        return closed.step_error()

    def resume_execution(self, execution: WorkflowExecution, approval: ApprovalRequest) -> None:
        """The run was handed over at its gate: run it again in this runner's mode. The runner
        that parked it may still be on its way out: it is waited for first (it runs nothing)."""
        execution_id = execution.workflow_execution_id
        self._check_ours(execution)
        thread = self._threads.get(execution_id)
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._grace + self._watch)
        process = self._processes.get(execution_id)
        if process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(self._grace + self._watch)
        self.start(execution_id)

    def _run_step(
        self,
        step: PipelineExecution,
        attempt: int,
        version: WorkflowVersion,
        defined: StepDefinition | None,
        run_inputs: _RunInputs,
        outputs: OutputFolder,
        live: _LiveRun,
    ) -> str | None:
        """Run one attempt of a step (`defined`: its definition in `version`, None when the
        version has no such step) and upload what it changed; its error, or None."""
        if attempt > 1:  # every attempt appends to the one step log: say where this one starts
            self._mark_attempt(step, attempt)
        try:
            definition = _definition(version, step, defined)
            python = definition.execution_type is ExecutionType.PYTHON
            in_process = python and self._step_user is None
            run = self._step_run(step, run_inputs, outputs, in_process)
            try:
                if in_process:
                    assert definition.handler is not None  # StepDefinition guarantees it
                    run_python_step(definition.handler, run, definition.handler_path)
                elif python:
                    assert definition.handler is not None
                    host = (definition.handler, definition.handler_path or "")
                    self._run_command((*_PYTHON_HOST, *host), run, step, attempt, live)
                elif definition.execution_type is ExecutionType.COMMAND:
                    assert definition.command is not None
                    self._run_command(definition.command, run, step, attempt, live)
                else:
                    raise StepFailedError(
                        f"{definition.pipeline_id}: a {definition.execution_type.value} step "
                        "runs only on Step Functions (--runner stepfunctions)"
                    )
            finally:
                # what a failed step left behind is kept too; refused links are said in its log
                outputs.push(warn=log_warnings_to(run.log_path))
        except StepKilledError as killed:
            # a signal this runner did not send: another process's abort, most often
            return str(killed) if live.stop.requested else KilledStep(killed)
        except StepFailedError as failed:
            return str(failed)
        except Exception as error:
            return f"{type(error).__name__}: {error}"
        return None

    def _mark_attempt(self, step: PipelineExecution, attempt: int) -> None:
        log_path = self._logs.step_log_path(step.workflow_execution_id, step.pipeline_execution_id)
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(attempt_marker(step.pipeline_execution_id, attempt) + "\n")

    def _step_run(
        self,
        step: PipelineExecution,
        run_inputs: _RunInputs,
        outputs: OutputFolder,
        in_process: bool,
    ) -> StepRun:
        """What the step is given: its inputs (staged for the step user), folders, log and,
        run outside this process, its registration token."""
        ids = run_id, step_id = step.workflow_execution_id, step.pipeline_execution_id
        # a step run in this process holds no token: its `register` issues it when called
        issue = None if in_process else self._registration_token
        token = None if issue is None else issue(*ids)
        input_files = self._input_files(step, run_inputs)
        if self._step_user is not None:
            input_files = self._staged(step, input_files)
        return StepRun(
            workflow_execution_id=run_id,
            pipeline_execution_id=step_id,
            input_files=input_files,
            output_dir=outputs.path,
            run_dir=self._run_dir(run_id),
            log_path=lambda: self._logs.step_log_path(run_id, step_id),
            register=None
            if self._registrar is None
            else _StepRegister(self._registrar, ids, self._registration_token),
            registration_token=token,
        )

    def _staged(self, step: PipelineExecution, input_files: list[str]) -> list[str]:
        """Copies of the inputs the step user may read (the object store is the service's)."""
        folder = self.run_dir(step.workflow_execution_id) / INPUTS_FOLDER
        return stage_inputs(input_files, folder / step.pipeline_execution_id)

    def _run_command(
        self,
        command: Sequence[str],
        run: StepRun,
        step: PipelineExecution,
        attempt: int,
        live: _LiveRun,
    ) -> None:
        """The command behind the step guard, in a session of its own, recorded so that any
        process on this host can stop its group."""
        executable = sys.executable if command[0] == "{python}" else command[0]
        if shutil.which(executable) is None:
            raise StepFailedError(f"executable not found: {executable}")
        folder = self._folder(step.workflow_execution_id)

        def started(process: subprocess.Popen[bytes]) -> None:
            folder.write_step(
                step.pipeline_execution_id, child_process(process.pid, "command", attempt)
            )
            with live.lock:
                live.command = process
            if live.stop.requested:  # the stop came while the command was being started
                stop_group(process.pid, self._grace)

        try:
            run_command_step(
                command,
                run,
                on_start=started,
                guard=self._guard(),
                as_user=self._step_user,
            )
        finally:
            with live.lock:
                live.command = None

    def _guard(self) -> tuple[str, ...]:
        guard: tuple[str, ...] = (sys.executable, "-I", "-S", _GUARD, f"{self._grace:g}")
        if self._step_user is not None:
            guard += ("--as", self._step_user.ids)
        return guard

    def _input_files(self, step: PipelineExecution, run_inputs: _RunInputs) -> list[str]:
        """Local paths of the step's own input files, each at the version the run pinned."""
        if step.input_file_arity is InputFileArity.NONE:
            return []
        configuration = run_inputs.configuration(step.pipeline_execution_id)
        if configuration is None:
            return []
        inputs = run_inputs.inputs()
        paths = []
        for label in configuration.input_files:
            database_id, asset_id, file_key = _split_label(label)
            row = inputs.get((database_id, asset_id, file_key))
            if row is None:
                raise StepFailedError(f"input file {label} is not among the run's inputs")
            if row.bucket != self._objects.bucket:
                # imported under another WFX_OBJECT_STORE or WFX_S3_BUCKET: its version ids
                # mean nothing to this store
                raise StepFailedError(
                    f"input file {label} is in bucket {row.bucket!r}, and this runner's object "
                    f"store is {self._objects.bucket!r}: import the asset again with the "
                    "current WFX_OBJECT_STORE and WFX_S3_BUCKET"
                )
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
            process = subprocess.Popen(
                [*self._detached_command, workflow_execution_id],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C of the launching terminal does not reach it
            )
        self._processes[workflow_execution_id] = process
        self._exit_codes.pop(workflow_execution_id, None)
        # until the worker writes its own (with its lease), the launcher's record names it
        self._folder(workflow_execution_id).write_runner(child_process(process.pid, "detached"))


class _StepRegister:
    """The `register` a python step run in this process is given: the registrar bound to the
    step's ids, with the step's registration token issued when the step registers (most steps
    never do, and issuing it cost as much as running a silent step). Holds no token, so a
    handler printing it shows none in the step log."""

    def __init__(
        self,
        registrar: Callable[..., object],
        ids: tuple[str, str],
        issue: Callable[[str, str], str] | None,
    ) -> None:
        self._registrar, self._ids, self._issue = registrar, ids, issue

    def __call__(self, *args: Any, **kwargs: Any) -> object:
        if self._issue is not None:
            # SecretStr: a registrar's error or log line that shows its arguments shows no token
            kwargs = {"registration_token": SecretStr(self._issue(*self._ids)), **kwargs}
        return self._registrar(*self._ids, *args, **kwargs)


class _RunInputs:
    """A run's input rows and its steps' input configurations, read once, and only when a
    step that takes input files runs: a launch wrote them, and they never change."""

    def __init__(
        self, store: ExecutionStore, workflow_execution_id: str, interpreter: StepInterpreter
    ) -> None:
        self._store, self._execution_id, self._interpreter = (
            store,
            workflow_execution_id,
            interpreter,
        )
        self._configurations: dict[str, StepInputConfiguration | None] | None = None
        self._inputs: dict[_InputKey, ExecutionInput] = {}

    def configuration(self, pipeline_execution_id: str) -> StepInputConfiguration | None:
        if self._configurations is None:
            details = self._interpreter.persist(
                lambda: self._store.get_details(self._execution_id, include_outputs=False)
            )
            self._configurations = {
                d.step.pipeline_execution_id: d.configuration for d in details.steps
            }
            self._inputs = {
                (i.database_id, i.asset_id, i.input_asset_file_key): i for i in details.inputs
            }
        return self._configurations.get(pipeline_execution_id)

    def inputs(self) -> Mapping[_InputKey, ExecutionInput]:
        """The run's inputs; read with the configurations (ask for one first)."""
        return self._inputs


def _first_to_start(ordered: Sequence[PipelineExecution] | None) -> str | None:
    """The step a launched run starts with: the chain's first, when it is still NEW."""
    if not ordered:
        return None
    first = ordered[0]
    return first.pipeline_execution_id if first.status is StepStatus.NEW else None


def _standing(execution: WorkflowExecution) -> Standing:
    if execution.is_terminal:
        return Standing.ENDED
    if execution.abort_requested_date is not None:
        return Standing.STOPPING
    return Standing.RUNNING


def _step_event(kind: str, step: PipelineExecution, at: datetime | None) -> dict[str, Any]:
    return {"type": kind, "pipelineExecutionId": step.pipeline_execution_id, "timestamp": at}


def _defined(version: WorkflowVersion, step: PipelineExecution) -> StepDefinition | None:
    """The step's definition in `version`; None when it has no such step."""
    index, definitions = step.step_index, version.steps
    return definitions[index] if 0 <= index < len(definitions) else None


def _definition(
    version: WorkflowVersion, step: PipelineExecution, defined: StepDefinition | None
) -> StepDefinition:
    """`defined`, the step's definition; the step fails when its version has none."""
    if defined is None:
        raise StepFailedError(
            f"workflow {version.workflow_key} version {version.version} "
            f"has no step {step.step_index}"
        )
    return defined


def _split_label(label: str) -> tuple[str, str, str]:
    parts = label.split("/", 2)
    if len(parts) != 3 or not all(parts):
        raise StepFailedError(f"input file {label!r}: expected databaseId/assetId/fileKey")
    return parts[0], parts[1], parts[2]
