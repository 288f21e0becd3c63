"""RunnerLease: a local runner's claim on the run it runs, taken and renewed (DESIGN §3a)."""

from __future__ import annotations

from datetime import timedelta

from application.ports.executions import RunLifecycleStore, refused_main_row
from application.ports.system import Clock
from domain.execution import WorkflowExecution
from domain.run import Run, RunIsOverError, first_start
from domain.run_write import RunWrite


class RunnerLease:
    """Take and renew a run's lease. A lease not renewed within `lease_seconds` has lost its
    runner: the next read ends the run FAILED (ReconcileExecution)."""

    def __init__(self, store: RunLifecycleStore, clock: Clock, lease_seconds: float) -> None:
        self._store, self._clock = store, clock
        self._duration = timedelta(seconds=lease_seconds)

    @property
    def duration(self) -> timedelta:
        return self._duration

    def take(
        self, workflow_execution_id: str, owner: str, known: WorkflowExecution | None = None
    ) -> WorkflowExecution | None:
        """The main row as the lease leaves it (decided on the row read, or `known`: the
        runner reads it no more); None when another runner holds a live one, or
        the run has ended. A run being aborted is taken too: its runner ends it.

        `known`: the main row as the caller holds it (the launch that just wrote it), to save a
        read; the write's guard decides all the same.
        """
        execution = known or self._store.get_execution(workflow_execution_id)
        try:
            change = Run(execution=execution).take_lease(owner, self._clock.now(), self._duration)
        except RunIsOverError:
            return None
        # refused: another runner holds a live lease, or the run has ended meanwhile
        written = self._store.commit(RunWrite.of(workflow_execution_id, change=change))
        return change.after if written else None

    def take_and_start(
        self,
        workflow_execution_id: str,
        owner: str,
        known: WorkflowExecution,
        first_step_id: str,
    ) -> tuple[WorkflowExecution | None, int | None]:
        """The lease taken and the first step started with its attempt 1, in one write, on the
        main row the launch has just written: the row as the write left it and the attempt.
        Refused (another runner, an abort requested, a step started already), the lease is
        taken alone, decided on a fresh read, and no step is started: (row or None, None)."""
        now = self._clock.now()
        try:
            change = Run(execution=known).take_lease(owner, now, self._duration)
        except RunIsOverError:
            return None, None
        start = first_start(workflow_execution_id, first_step_id, now)
        answer = self._store.commit(
            RunWrite.of(workflow_execution_id, moves=(start,), change=change)
        )
        if answer:
            assert start.open_attempt is not None
            return change.after, start.open_attempt.attempt
        # the main row as the refusal says it (its guard refused), or read
        return self.take(workflow_execution_id, owner, refused_main_row(answer)), None

    def renew(self, workflow_execution_id: str, owner: str) -> bool:
        execution = self._store.get_execution(workflow_execution_id)
        change = Run(execution=execution).renew_lease(owner, self._clock.now(), self._duration)
        return bool(self._store.commit(RunWrite.of(workflow_execution_id, change=change)))
