"""RunnerLease: a local runner's claim on the run it runs, taken and renewed (DESIGN §3a)."""

from __future__ import annotations

from datetime import timedelta

from application.ports import Clock, RunStore
from domain.execution import WorkflowExecution
from domain.run import Run, RunIsOverError


class RunnerLease:
    """Take and renew a run's lease. A lease not renewed within `lease_seconds` has lost its
    runner: the next read ends the run FAILED (ReconcileExecution)."""

    def __init__(self, store: RunStore, clock: Clock, lease_seconds: float) -> None:
        self._store, self._clock = store, clock
        self._duration = timedelta(seconds=lease_seconds)

    @property
    def duration(self) -> timedelta:
        return self._duration

    def take(
        self, workflow_execution_id: str, owner: str, known: WorkflowExecution | None = None
    ) -> WorkflowExecution | None:
        """The main row as stored once the lease is this owner's (the conditional write's own
        answer: the runner reads it no more); None when another runner holds a live one, or
        the run has ended. A run being aborted is taken too: its runner ends it.

        `known`: the main row as the caller holds it (the launch that just wrote it), to save a
        read; the write's guard decides all the same.
        """
        execution = known or self._store.get_execution(workflow_execution_id)
        try:
            change = Run(execution=execution).take_lease(owner, self._clock.now(), self._duration)
        except RunIsOverError:
            return None
        return self._store.update_execution(change)

    def renew(self, workflow_execution_id: str, owner: str) -> bool:
        execution = self._store.get_execution(workflow_execution_id)
        change = Run(execution=execution).renew_lease(owner, self._clock.now(), self._duration)
        return self._store.update_execution(change) is not None
