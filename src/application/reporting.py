"""The RunReporter a runner calls, backed by the same use cases the Step Functions callbacks use."""

from __future__ import annotations

import threading
from datetime import datetime

from application.ports.executions import RunStore
from application.use_cases.approvals import PassApprovalGate, PassApprovalGateCommand
from application.use_cases.complete_execution import (
    CompleteExecution,
    CompleteExecutionCommand,
    FinishLastStepCommand,
)
from application.use_cases.hand_on_step import HandOnStep, HandOnStepCommand
from application.use_cases.retry_step import RetryStep, RetryStepCommand
from application.use_cases.runner_lease import RunnerLease
from application.use_cases.step_tracking import (
    FinishStep,
    FinishStepCommand,
    StartStep,
    StartStepCommand,
)
from domain.approvals import ApprovalRequest
from domain.derived import derived
from domain.execution import WorkflowExecution
from domain.run import Run, RunIsOverError, as_its_runner_knows
from domain.statuses import ExecutionStatus, StepStatus, require_terminal


class UseCaseRunReporter:
    """Routes runner progress to StartStep, RetryStep, FinishStep, HandOnStep,
    CompleteExecution, PassApprovalGate and the runner's lease.

    It keeps when each attempt it opened started, until that attempt finishes: the finish then
    writes the attempt's duration with no read. The runner's threads share it."""

    _KEPT_STARTS = 4096  # attempts open at once in one process, and more

    def __init__(
        self,
        start_step: StartStep,
        finish_step: FinishStep,
        complete_execution: CompleteExecution,
        retry_step: RetryStep,
        lease: RunnerLease,
        store: RunStore,
        gate: PassApprovalGate,
        hand_on: HandOnStep,
    ) -> None:
        self._start, self._finish, self._complete = start_step, finish_step, complete_execution
        self._retry, self._lease, self._store = retry_step, lease, store
        self._gate, self._hand_on = gate, hand_on
        self._starts: dict[tuple[str, str, int], datetime] = {}
        # each run's main row as its end's write left it, until its launch asks (ended)
        self._ended: dict[str, WorkflowExecution] = {}
        self._starts_lock = threading.Lock()

    def _start_of(self, key: tuple[str, str, int]) -> datetime | None:
        """The attempt's start as this reporter kept it (None: not kept), kept no longer."""
        with self._starts_lock:
            return self._starts.pop(key, None)

    def _started(self, key: tuple[str, str, int], at: datetime | None) -> None:
        if at is None:
            return
        with self._starts_lock:
            self._starts[key] = at
            if len(self._starts) > self._KEPT_STARTS:  # attempts never finished here (a crash)
                del self._starts[next(iter(self._starts))]

    def step_started(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int = 1
    ) -> int:
        started = self._start.execute(
            StartStepCommand(
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
                attempt=attempt,
            )
        )
        if started.attempt is None:
            raise RunIsOverError(
                f"step {pipeline_execution_id} of execution {workflow_execution_id} is "
                f"{started.step.status.value}: it is not started again"
            )
        key = (workflow_execution_id, pipeline_execution_id, started.attempt)
        self._started(key, started.attempt_started)
        return started.attempt

    def step_retrying(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        error: str | None,
        attempt: int,
    ) -> int:
        opened = self._retry.execute(
            RetryStepCommand(
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
                error=error,
            )
        )
        if opened is None:
            raise RunIsOverError(
                f"step {pipeline_execution_id} of execution {workflow_execution_id} is no "
                "longer running: it is not run again"
            )
        self._start_of((workflow_execution_id, pipeline_execution_id, attempt))
        self._started(
            (workflow_execution_id, pipeline_execution_id, opened.attempt), opened.start_date
        )
        return opened.attempt

    def step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        status: StepStatus,
        error: str | None,
        attempt: int,
    ) -> StepStatus:
        started = self._start_of((workflow_execution_id, pipeline_execution_id, attempt))
        finished = self._finish.execute(
            FinishStepCommand(
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
                status=status,
                error=error,
                attempt=attempt,
                attempt_started=started,
            )
        )
        return finished.status

    def step_handed_on(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        next_pipeline_execution_id: str,
        outputs_stored: bool = True,
    ) -> tuple[StepStatus, int | None]:
        started = self._start_of((workflow_execution_id, pipeline_execution_id, attempt))
        # derived (domain.derived): the run's ids as its runner wrote or read them, the attempt
        # this reporter answered, its start as kept here
        handed = self._hand_on.execute(
            derived(
                HandOnStepCommand,
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
                attempt=attempt,
                attempt_started=started,
                next_pipeline_execution_id=next_pipeline_execution_id,
                outputs_stored=outputs_stored,
            )
        )
        if handed.next_attempt is not None:
            key = (workflow_execution_id, next_pipeline_execution_id, handed.next_attempt)
            self._started(key, handed.next_started)
        return handed.status, handed.next_attempt

    def execution_completed(
        self, workflow_execution_id: str, status: ExecutionStatus, error: str | None = None
    ) -> ExecutionStatus:
        completed = self._complete.execute(
            CompleteExecutionCommand(
                workflow_execution_id=workflow_execution_id, status=status, error=error
            )
        )
        self._ended_as(completed)
        return completed.status

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
        """Decided with no read on the run as its runner knows it when this reporter kept that
        attempt's start, else on a read."""
        run_id, step_id = workflow_execution_id, pipeline_execution_id
        started = self._start_of((run_id, step_id, attempt))
        if known is not None and started is not None:
            known = as_its_runner_knows(known.execution, known.steps, step_id, attempt, started)
        # derived (domain.derived) as step_handed_on's, `known` the valid run as the runner
        # holds it; the one rule its values do not follow by themselves checked here
        finished = self._complete.finish_last_step(
            derived(
                FinishLastStepCommand,
                workflow_execution_id=run_id,
                pipeline_execution_id=step_id,
                attempt=attempt,
                status=require_terminal(status),
                error=error,
                known=known if started is not None else None,
                outputs_stored=outputs_stored,
                main_row_moved=main_row_moved,
            )
        )
        self._ended_as(finished.execution)
        return finished.step_status, finished.execution.status

    def _ended_as(self, execution: WorkflowExecution) -> None:
        with self._starts_lock:
            self._ended[execution.workflow_execution_id] = execution
            if len(self._ended) > self._KEPT_STARTS:  # runs whose launch never asked
                del self._ended[next(iter(self._ended))]

    def ended(self, workflow_execution_id: str) -> WorkflowExecution | None:
        with self._starts_lock:
            return self._ended.pop(workflow_execution_id, None)

    def approval_gate(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int, owner: str
    ) -> ApprovalRequest | None:
        outcome = self._gate.execute(
            PassApprovalGateCommand(
                workflow_execution_id=workflow_execution_id,
                pipeline_execution_id=pipeline_execution_id,
                attempt=attempt,
                owner=owner,
            )
        )
        return None if outcome.parked else outcome.request

    def current(self, workflow_execution_id: str) -> WorkflowExecution:
        return self._store.get_execution(workflow_execution_id)

    def take_lease(
        self, workflow_execution_id: str, owner: str, known: WorkflowExecution | None = None
    ) -> WorkflowExecution | None:
        return self._lease.take(workflow_execution_id, owner, known)

    def take_lease_and_start(
        self,
        workflow_execution_id: str,
        owner: str,
        known: WorkflowExecution,
        first_pipeline_execution_id: str,
    ) -> tuple[WorkflowExecution | None, int | None]:
        leased, attempt = self._lease.take_and_start(
            workflow_execution_id, owner, known, first_pipeline_execution_id
        )
        if leased is not None and attempt is not None and leased.runner_lease is not None:
            # one write, one moment: the attempt started as the lease was taken
            key = (workflow_execution_id, first_pipeline_execution_id, attempt)
            self._started(key, leased.runner_lease.renewed_date)
        return leased, attempt

    def started_at_launch(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        at: datetime | None,
    ) -> None:
        self._started((workflow_execution_id, pipeline_execution_id, attempt), at)

    def renew_lease(self, workflow_execution_id: str, owner: str) -> bool:
        return self._lease.renew(workflow_execution_id, owner)
