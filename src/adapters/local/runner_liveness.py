"""Whether the local runner holding a run's lease is gone: its record in the run's folder and
/proc, no store read (seed 000 "Status tracking"; Orchestrator.lost_runner).

Every read of a leased open run asks it, so it imports only the process records: a `wfx
executions list` that runs nothing builds no LocalRunner for it (docs/performance.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from adapters.local.step_user import RUNS_FOLDER
from adapters.local.supervisor import ProcessRecord, RunFolder
from application.ports.orchestration import OrchestratorExecution
from domain.errors import RUNNER_LOST_ERROR
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus

_RUNNER_NAMES = {"thread": "wfx in the foreground", "detached": "worker", "inline": "wfx"}


def runner_gone_cause(record: ProcessRecord, exit_code: int | None = None) -> str:
    """What a lost runner's run says of it: which runner, and its exit code when known."""
    ended = f" with exit code {exit_code}" if exit_code is not None else ""
    what = _RUNNER_NAMES.get(record.mode, record.mode)
    return f"the local runner ({what}, pid {record.pid}) ended{ended} before the run did"


def names_lease_holder(record: ProcessRecord, execution: WorkflowExecution) -> bool:
    """Whether `record` is of the process holding the run's lease (its owner is `host:pid:...`,
    supervisor.lease_owner), or the run has no lease. A run parked at a gate, handed over from
    one, or taken by a later runner (a redrive's) is held by none of its earlier runners."""
    lease = execution.runner_lease
    return lease is None or lease.owner.split(":")[:2] == [record.host, str(record.pid)]


def lease_holder_lost(
    execution: WorkflowExecution, record: ProcessRecord | None, exit_code: int | None = None
) -> OrchestratorExecution | None:
    """FAILED (wfx.RunnerLost) when `record` is of the process holding the run's lease, on this
    host, and that process is gone. The lease must name it (its owner is `host:pid:...`,
    supervisor.lease_owner): a record left by an earlier runner of the run (before a redrive,
    or a gate's handover) says nothing of the runner holding it now, which may not have
    written its own yet. A runner of this very process is running: its record says so."""
    if execution.runner_lease is None or record is None or not record.here or record.running():
        return None
    if not names_lease_holder(record, execution):
        return None
    return OrchestratorExecution(
        status=ExecutionStatus.FAILED,
        error=RUNNER_LOST_ERROR,
        cause=runner_gone_cause(record, exit_code),
    )


class LocalRunnerLiveness:
    """Orchestrator.lost_runner without a LocalRunner, for a process that has built none (it
    runs no local run: a read). A LocalRunner answers the same, naming the exit code of a
    worker it started."""

    def __init__(self, work_dir: str | os.PathLike[str]) -> None:
        self._runs = os.path.join(work_dir, RUNS_FOLDER)

    def lost_runner(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        if execution.runner_lease is None:
            return None  # nothing to read: no runner holds it
        folder = RunFolder(Path(self._runs, execution.workflow_execution_id))
        return lease_holder_lost(execution, folder.runner())
