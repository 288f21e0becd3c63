"""AbortExecution on every store decides the run's end on the steps it read before stopping the
orchestrator; a runner that ends its own step while being stopped must not be overwritten: the
abort's write is refused, the run read again, and what the runner recorded stays."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from application.ports.files import StepLogTap
from application.use_cases.abort_execution import AbortExecution, AbortExecutionCommand
from domain.execution import WorkflowExecution
from domain.run import first_start
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import a_launch, at, step_id, write_launch

FIRST, SECOND = step_id("e1", 0), step_id("e1", 1)


class _Clock:
    def now(self) -> datetime:
        return at(5)


class _RunnerEndingItsStep:
    """An orchestrator whose runner, told to stop, ends its running step itself (at minute 2)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def stop_execution(
        self, execution: WorkflowExecution, error: str, cause: str
    ) -> tuple[str, ...]:
        run = self._store.get_run(execution.workflow_execution_id)
        move = run.finish_step(FIRST, StepStatus.FAILED, "killed", at(2))
        assert move is not None
        assert self._store.commit(RunWrite.of(execution.workflow_execution_id, moves=(move,)))
        return ()


class _NoLog:
    def run_log_pieces(
        self, execution: WorkflowExecution, tap: StepLogTap | None = None
    ) -> Iterable[str]:
        return ()


def test_a_step_the_runner_ended_during_the_stop_keeps_its_end(
    execution_store: Any, tmp_path: Path
) -> None:
    write_launch(execution_store, a_launch("e1"))
    assert execution_store.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))
    abort = AbortExecution(
        execution_store,
        _RunnerEndingItsStep(execution_store),  # type: ignore[arg-type]  # only stop is asked
        sub_processes=object(),  # type: ignore[arg-type]  # no step registered any
        logs=FileLogStore(tmp_path / "logs"),  # the summaries' tails: none written
        objects=FilesystemObjectStore(tmp_path / "objects"),
        clock=_Clock(),
        run_logs=_NoLog(),
    )

    result = abort.execute(AbortExecutionCommand(workflow_execution_id="e1"))

    run = execution_store.get_run("e1")
    assert result.execution.status is ExecutionStatus.ABORTED
    assert run.execution.status is ExecutionStatus.ABORTED
    first, second = run.step(FIRST), run.step(SECOND)
    # ended by its runner (ABORTED on a run being aborted), at the runner's time, not the abort's
    assert (first.status, first.stop_date) == (StepStatus.ABORTED, at(2))
    assert second.status is StepStatus.ABORTED
    assert [(a.status, a.stop_date) for a in run.attempts_of(FIRST)] == [
        (StepStatus.ABORTED, at(2))
    ]
    # what a run's end leaves: the steps' summaries, as the end left each step
    details = execution_store.get_details("e1")
    summaries = {g.pipeline_execution_id: g.status for s in details.steps for g in s.outputs.logs}
    assert summaries == {FIRST: "ABORTED", SECOND: "ABORTED"}
