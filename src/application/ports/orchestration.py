"""The ports of what runs a launched execution: the orchestrator, its task callbacks, the state
machine deployer and the runner's reporter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from domain.errors import ConflictError
from domain.statuses import StepStatus

if TYPE_CHECKING:
    from domain.approvals import ApprovalRequest
    from domain.execution import PipelineExecution, WorkflowExecution
    from domain.run import Run
    from domain.statuses import ExecutionStatus
    from domain.workflow import WorkflowVersion


@dataclass(frozen=True)
class Stopped:
    """What an orchestrator's stop found. `warnings`: a warning naming each process it could not
    see end; `runner_done`: another process ran the run and the stop saw it done with it (a
    detached worker exited of itself, a foreground `wfx run` recorded the end or exited): it
    ends the run before it exits unless it was killed, so its end is most often stored and the
    caller reads the main row before deciding an end of its own."""

    warnings: tuple[str, ...] = ()
    runner_done: bool = False


@dataclass(frozen=True)
class OrchestratorExecution:
    """What the orchestrator says about a run (Step Functions DescribeExecution, seed 001)."""

    status: ExecutionStatus
    start_date: datetime | None = None
    stop_date: datetime | None = None
    error: str | None = None
    cause: str | None = None
    redrive_count: int = 0
    redrive_date: datetime | None = None
    redrive_status: str | None = None
    redrive_status_reason: str | None = None
    # The rest of DescribeExecution's answer, read only by DescribeExecution (a runner that
    # knows only a status leaves them unset).
    name: str | None = None
    execution_arn: str | None = None
    state_machine_arn: str | None = None
    state_machine_version_arn: str | None = None
    state_machine_alias_arn: str | None = None
    map_run_arn: str | None = None
    input: str | None = None  # JSON text, as the service returns it
    output: str | None = None
    input_included: bool | None = None  # inputDetails.included
    output_included: bool | None = None  # outputDetails.included
    trace_header: str | None = None


@dataclass(frozen=True)
class Described:
    """One run's `describe_execution`, kept: what it answered, or what it raised."""

    answer: OrchestratorExecution | None = None
    error: Exception | None = None

    @classmethod
    def of(
        cls,
        describe: Callable[[WorkflowExecution], OrchestratorExecution | None],
        execution: WorkflowExecution,
    ) -> Described:
        try:
            return cls(describe(execution))
        except Exception as error:  # kept, to be raised where the answer is taken
            return cls(error=error)

    def get(self) -> OrchestratorExecution | None:
        """The answer, or the error raised again."""
        if self.error is not None:
            raise self.error
        return self.answer


@dataclass(frozen=True)
class StateMachineDescription:
    """A deployed state machine: its ASL definition and where it logs (DescribeStateMachine),
    and its status (ACTIVE, or DELETING while it is being deleted) when the service says."""

    arn: str
    definition: dict[str, Any]
    logging_configuration: dict[str, Any]
    status: str | None = None


@dataclass(frozen=True)
class HistoryPage:
    """One page of a run's event history, in the orchestrator's own event shape."""

    events: tuple[dict[str, Any], ...]
    next_token: str | None = None


@dataclass(frozen=True)
class LaunchClaim:
    """A new run its orchestrator runs in this process: the launch writes the run leased to
    `owner` for `lease`, its first step started, so the runner writes neither again."""

    owner: str
    lease: timedelta


class RunnerLiveness(Protocol):
    """Whether the runner holding a run's lease is known gone, without a remote call."""

    def lost_runner(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        """FAILED `wfx.RunnerLost` when the runner holding the run's lease (as `execution`
        has it) is known to have ended, without a remote call: the local runner's record of a
        process of this host, and /proc. None when it lives, ran elsewhere, or only a call to a
        service could tell (Step Functions: the read asks describe_execution, at most once per
        interval). Asked on every read of a leased open run, so it is a file read at most."""
        ...


class Orchestrator(RunnerLiveness, Protocol):
    """Runs a launched execution; the execution id is the orchestrator's execution name.

    Every method but start takes the stored main row, whose `execution_arn` (when the
    orchestrator gave one) locates the run.
    """

    @property
    def name(self) -> str: ...

    @property
    def synchronous(self) -> bool:
        """True when start_execution returns only once the run has ended (local, inline)."""
        ...

    def start_problem(self, version: WorkflowVersion) -> str | None:
        """Why this orchestrator cannot run the version (asked before a launch writes), or None."""
        ...

    def ended_run(self, workflow_execution_id: str) -> WorkflowExecution | None:
        """The main row of the run start_execution has just run to its end (synchronous), as
        its last write left it; None when it is not known so (the caller reads it)."""
        ...

    def launch_claim(self) -> LaunchClaim | None:
        """The claim a launch writes with the run start_execution then runs in this process;
        None when its runner is elsewhere (Step Functions, a worker process) and claims it."""
        ...

    def start_execution(
        self,
        execution: WorkflowExecution,
        version: WorkflowVersion,
        steps: Sequence[PipelineExecution],
    ) -> str | None:
        """Start the run and return the orchestrator's reference to it (an ARN), if any."""
        ...

    def describe_execution(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        """The orchestrator's view of the run; None when it has never heard of it."""
        ...

    def describe_each(self, executions: Sequence[WorkflowExecution]) -> list[Described]:
        """Each run's `describe_execution`, in order, each answer or error kept: an orchestrator
        whose describes are round trips makes them at once."""
        ...

    def stop_execution(self, execution: WorkflowExecution, error: str, cause: str) -> Stopped:
        """Stop the run; what the stop found (Stopped)."""
        ...

    def resume_execution(self, execution: WorkflowExecution, approval: ApprovalRequest) -> None:
        """A gate of the run has closed (decided or timed out): let the run go on. The local
        runner starts a runner on the run handed over to it; Step Functions gives the waiting
        task its token's answer (success when approved, a failure naming why otherwise)."""
        ...

    def redrive_execution(
        self, execution: WorkflowExecution, client_token: str, known: Run | None = None
    ) -> datetime:
        """Continue a failed run from its failed step with the same input; the redrive date.
        `known`: the run as the redrive's write left it (its steps, and the attempts of those it
        reopened), so a runner of this process reads none of it back."""
        ...

    def history_page(
        self, execution: WorkflowExecution, next_token: str | None = None, max_results: int = 1000
    ) -> HistoryPage: ...

    def describe_state_machine(self, state_machine_arn: str) -> StateMachineDescription | None:
        """The state machine's definition and logging; None when there is no such machine.
        Raises OrchestratorReadError when the orchestrator cannot say (access denied, no
        answer)."""
        ...


class TaskCallbacks(Protocol):
    """Answers the orchestrator's task waiting on a closed gate's callback token (Step
    Functions' SendTaskSuccess when approved, SendTaskFailure naming the gate's error otherwise);
    a token the orchestrator no longer knows (its task timed out, its run ended) is let be."""

    def answer(self, approval: ApprovalRequest) -> None: ...


class OrchestratorReadError(RuntimeError):
    """The orchestrator did not answer a read; the message names the call and the error code
    only (an AWS message names the caller's role, which a stored row need not repeat)."""


class StateMachineTakenError(ConflictError):
    """A state machine of the name asked for runs something else: its definition's `Comment`
    is not the one of the definition to deploy (another workflow or version)."""


class StateMachineDeployer(Protocol):
    """Creates or updates the state machine that runs a workflow version on Step Functions."""

    def deploy(
        self, name: str, definition: dict[str, Any], role_arn: str, log_group_arn: str
    ) -> str:
        """Create the state machine, or update its definition; its ARN. StateMachineTakenError,
        nothing changed, when the machine of that name is another definition's."""
        ...


class RunReporter(Protocol):
    """What a runner calls as a run progresses: the interim tracking and end-state callbacks,
    and its lease. Refusals are domain errors (RunIsStoppingError, RunIsOverError,
    AttemptFencedError); anything else is the store failing, worth trying again."""

    def step_started(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int = 1
    ) -> int:
        """The step is RUNNING: the number of the attempt the runner now runs. `attempt`: the
        number the runner expects it to take (a redriven step's next, from its attempts); a
        wrong guess costs a read, never a wrong number."""
        ...

    def step_retrying(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        error: str | None,
        attempt: int,
    ) -> int:
        """Attempt `attempt` failed and the step runs again: the next attempt's number."""
        ...

    def step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        status: StepStatus,
        error: str | None,
        attempt: int,
    ) -> StepStatus:
        """Attempt `attempt` ended with `status`: the step's status as recorded (ABORTED on a
        run being aborted, whatever was reported)."""
        ...

    def step_handed_on(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        next_pipeline_execution_id: str,
        outputs_stored: bool = True,
    ) -> tuple[StepStatus, int | None]:
        """Attempt `attempt` succeeded and the next step starts, in one write: the step's status
        as recorded, and the next step's attempt (None when it did not start: the step was not
        recorded SUCCEEDED, or had ended already - the runner then starts the next itself).
        `outputs_stored` False: the runner knows nothing is stored under the run's output
        prefix (its launch made it, no step uploaded to it), so nothing is listed."""
        ...

    def execution_completed(
        self, workflow_execution_id: str, status: ExecutionStatus, error: str | None = None
    ) -> ExecutionStatus:
        """The run ended: its status as recorded."""
        ...

    def last_step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        known: Run | None = None,
        outputs_stored: bool = True,
        status: StepStatus = StepStatus.SUCCEEDED,
        error: str | None = None,
        main_row_moved: bool = False,
    ) -> tuple[StepStatus, ExecutionStatus]:
        """The run's last step to run ended, attempt `attempt` with `status` (the chain's last
        SUCCEEDED, or any step FAILED, TIMED_OUT or ABORTED, `error` saying why), and the run
        ends with it, in one write: the step's status and the run's as recorded (ABORTED both
        on a run being aborted; the run's end as it was when another writer ended it first).
        `known`: the main row as the runner's lease left it and the steps as it started them,
        to decide on without a read (the write's guards catch anything moved since);
        `outputs_stored`: as for step_handed_on; `main_row_moved`: the runner knows the main row
        moved since `known` (an abort it saw requested, a step killed by a signal it did not
        send): it is read first, alone."""
        ...

    def approval_gate(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int, owner: str
    ) -> ApprovalRequest | None:
        """An approval step's attempt reaches its gate: None when the run is now parked there
        (the runner leaves it); the closed request when it was decided or timed out already."""
        ...

    def current(self, workflow_execution_id: str) -> WorkflowExecution:
        """The main row as stored now (its status and abort request)."""
        ...

    def take_lease(
        self, workflow_execution_id: str, owner: str, known: WorkflowExecution | None = None
    ) -> WorkflowExecution | None:
        """Claim the run for this runner: the main row as the claim left it, or None when
        another runner holds a live lease or the run has ended. `known`: the main row as the
        runner was handed it, to save a read."""
        ...

    def take_lease_and_start(
        self,
        workflow_execution_id: str,
        owner: str,
        known: WorkflowExecution,
        first_pipeline_execution_id: str,
    ) -> tuple[WorkflowExecution | None, int | None]:
        """take_lease and the first step's start, in one write where the run is as the launch
        left it: the row, and the first step's attempt (None when it was not started)."""
        ...

    def ended(self, workflow_execution_id: str) -> WorkflowExecution | None:
        """The run's main row as this reporter's write of its end left it, once (None: not
        ended here): what a synchronous start answers with no read."""
        ...

    def started_at_launch(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        at: datetime | None,
    ) -> None:
        """The launch's own write leased the run to this runner and started its first step's
        attempt `attempt` at `at` (LaunchClaim): the runner runs that attempt now."""
        ...

    def renew_lease(self, workflow_execution_id: str, owner: str) -> bool:
        """Renew the lease: False once it is not this runner's (the run ended, or was lost)."""
        ...
