"""A look at the stored statuses each time the runner reports progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from application.ports.executions import ExecutionStore
from application.ports.orchestration import RunReporter
from domain.execution import WorkflowExecution, chain_order
from domain.run import Run
from domain.statuses import ExecutionStatus, StepStatus


@dataclass(frozen=True)
class Snapshot:
    """The stored statuses at one moment: `moment` is e.g. `before start of prepare`."""

    moment: str
    execution_status: ExecutionStatus
    steps: tuple[tuple[str, StepStatus], ...]  # (pipelineId, status) in chain order

    def status_of(self, pipeline_id: str) -> StepStatus:
        return dict(self.steps)[pipeline_id]


@dataclass
class ObservingReporter:
    """The container's real RunReporter; around each callback it notes what the store holds."""

    inner: RunReporter
    store: ExecutionStore
    # Whether it notes the stored statuses around each callback (two reads each time): only a
    # scenario tagged @observed reads them, and `snapshots` refuses the others.
    observing: bool = True
    noted: dict[str, list[Snapshot]] = field(default_factory=dict)
    # What a scenario does once a step (by pipelineId) is recorded RUNNING, given the run's id:
    # the inline runner is inside the run then, as a user acting on a running run would be.
    once_started: dict[str, Callable[[str], None]] = field(default_factory=dict)
    # What a scenario does once a step's work is done, before its end is recorded (it still
    # runs then, and takes registrations).
    before_finish: dict[str, Callable[[str], None]] = field(default_factory=dict)

    @property
    def snapshots(self) -> dict[str, list[Snapshot]]:
        assert self.observing, "the run was not observed: tag the scenario @observed"
        return self.noted

    def step_started(
        self, workflow_execution_id: str, pipeline_execution_id: str, attempt: int = 1
    ) -> int:
        name = self._pipeline_id(pipeline_execution_id)
        self._note(workflow_execution_id, f"before start of {name}")
        attempt = self.inner.step_started(workflow_execution_id, pipeline_execution_id, attempt)
        self._note(workflow_execution_id, f"after start of {name}")
        action = self.once_started.pop(name, None)
        if action is not None:
            action(workflow_execution_id)
        return attempt

    def take_lease_and_start(
        self,
        workflow_execution_id: str,
        owner: str,
        known: WorkflowExecution,
        first_pipeline_execution_id: str,
    ) -> tuple[WorkflowExecution | None, int | None]:
        """One write, the lease and the first step's start: observed as the start."""
        name = self._pipeline_id(first_pipeline_execution_id)
        self._note(workflow_execution_id, f"before start of {name}")
        leased, attempt = self.inner.take_lease_and_start(
            workflow_execution_id, owner, known, first_pipeline_execution_id
        )
        if attempt is None:  # not started with the lease: the runner starts it, observed there
            self._unnote(workflow_execution_id, f"before start of {name}")
            return leased, None
        self._note(workflow_execution_id, f"after start of {name}")
        action = self.once_started.pop(name, None)
        if action is not None:
            action(workflow_execution_id)
        return leased, attempt

    def started_at_launch(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        at: datetime | None,
    ) -> None:
        """The launch's write started the first step: observed after it, there is no before."""
        self.inner.started_at_launch(workflow_execution_id, pipeline_execution_id, attempt, at)
        name = self._pipeline_id(pipeline_execution_id)
        self._note(workflow_execution_id, f"after start of {name}")
        action = self.once_started.pop(name, None)
        if action is not None:
            action(workflow_execution_id)

    def step_retrying(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        error: str | None,
        attempt: int,
    ) -> int:
        opened = self.inner.step_retrying(
            workflow_execution_id, pipeline_execution_id, error, attempt
        )
        name = self._pipeline_id(pipeline_execution_id)
        self._note(workflow_execution_id, f"after retry of {name}")
        return opened

    def step_finished(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        status: StepStatus,
        error: str | None,
        attempt: int,
    ) -> StepStatus:
        action = self.before_finish.pop(self._pipeline_id(pipeline_execution_id), None)
        if action is not None:
            action(workflow_execution_id)
        recorded = self.inner.step_finished(
            workflow_execution_id, pipeline_execution_id, status, error, attempt
        )
        name = self._pipeline_id(pipeline_execution_id)
        self._note(workflow_execution_id, f"after finish of {name}")
        return recorded

    def step_handed_on(
        self,
        workflow_execution_id: str,
        pipeline_execution_id: str,
        attempt: int,
        next_pipeline_execution_id: str,
        outputs_stored: bool = True,
    ) -> tuple[StepStatus, int | None]:
        """One write, the step's end and the next one's start: observed as the two moves, each
        moment the scenario asks about before or after the write."""
        finished = self._pipeline_id(pipeline_execution_id)
        action = self.before_finish.pop(finished, None)
        if action is not None:
            action(workflow_execution_id)
        following = self._pipeline_id(next_pipeline_execution_id)
        self._note(workflow_execution_id, f"before start of {following}")
        recorded, next_attempt = self.inner.step_handed_on(
            workflow_execution_id,
            pipeline_execution_id,
            attempt,
            next_pipeline_execution_id,
            outputs_stored,
        )
        self._note(workflow_execution_id, f"after finish of {finished}")
        if next_attempt is None:  # the runner starts the next step itself: observed there
            self._unnote(workflow_execution_id, f"before start of {following}")
            return recorded, None
        self._note(workflow_execution_id, f"after start of {following}")
        started = self.once_started.pop(following, None)
        if started is not None:
            started(workflow_execution_id)
        return recorded, next_attempt

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
        """One write, the step's end and the run's: one moment after it, the completion."""
        action = self.before_finish.pop(self._pipeline_id(pipeline_execution_id), None)
        if action is not None:
            action(workflow_execution_id)
        self._note(workflow_execution_id, "before completion")
        recorded = self.inner.last_step_finished(
            workflow_execution_id,
            pipeline_execution_id,
            attempt,
            known,
            outputs_stored,
            status,
            error,
            main_row_moved,
        )
        self._note(workflow_execution_id, "after completion")
        return recorded

    def execution_completed(
        self, workflow_execution_id: str, status: ExecutionStatus, error: str | None = None
    ) -> ExecutionStatus:
        self._note(workflow_execution_id, "before completion")
        recorded = self.inner.execution_completed(workflow_execution_id, status, error)
        self._note(workflow_execution_id, "after completion")
        return recorded

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # what it does not observe (the lease, reads)

    def _pipeline_id(self, pipeline_execution_id: str) -> str:
        """The step's name, read only when something here needs it (a note or a hook)."""
        if not (self.observing or self.once_started or self.before_finish):
            return ""
        return self.store.get_step(pipeline_execution_id).pipeline_id

    def _unnote(self, workflow_execution_id: str, moment: str) -> None:
        """Take back the last note of `moment` (a move the runner then makes and is noted at)."""
        if self.observing:
            noted = self.noted[workflow_execution_id]
            del noted[max(i for i, s in enumerate(noted) if s.moment == moment)]

    def _note(self, workflow_execution_id: str, moment: str) -> None:
        if not self.observing:
            return
        steps = chain_order(self.store.list_steps(workflow_execution_id))
        self.noted.setdefault(workflow_execution_id, []).append(
            Snapshot(
                moment=moment,
                execution_status=self.store.get_execution(workflow_execution_id).status,
                steps=tuple((step.pipeline_id, step.status) for step in steps),
            )
        )
