"""AbortExecution on every store decides the run's end on the steps it read before stopping the
orchestrator; a runner that ends its own step while being stopped must not be overwritten: the
abort's write is refused, the run read again, and what the runner recorded stays."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from application.ports.files import StepLogTap
from application.ports.orchestration import Stopped
from application.use_cases.abort_execution import AbortExecution, AbortExecutionCommand
from domain.execution import WorkflowExecution
from domain.run import first_start
from domain.run_write import RunWrite
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import a_launch, at, step_id, summaries_of, write_launch

FIRST, SECOND = step_id("e1", 0), step_id("e1", 1)


class _Clock:
    def now(self) -> datetime:
        return at(5)


class _RunnerEndingItsStep:
    """An orchestrator whose runner, told to stop, ends its running step itself (at minute 2),
    and with it the run ABORTED in one write when `with_the_run` (a worker the abort waits for:
    the stop says so when `says_done`); the store too, counting the runs read and the writes."""

    def __init__(self, store: Any, with_the_run: bool = False, says_done: bool = False) -> None:
        self._store, self._with_the_run, self._says_done = store, with_the_run, says_done
        self.runs_read = self.commits = 0

    def stop_execution(self, execution: WorkflowExecution, error: str, cause: str) -> Stopped:
        run = self._store.get_run(execution.workflow_execution_id)
        move = run.finish_step(FIRST, StepStatus.FAILED, "killed", at(2))
        assert move is not None
        end = run.moved(move).complete(ExecutionStatus.ABORTED, at(2), None, "", None)
        assert end is not None
        moves, change = ((move, *end.steps), end.change) if self._with_the_run else ((move,), None)
        assert self._store.commit(
            RunWrite.of(execution.workflow_execution_id, moves=moves, change=change)
        )
        return Stopped(runner_done=self._says_done)

    def get_run(self, *args: Any) -> Any:  # the store's, counted
        self.runs_read += 1
        return self._store.get_run(*args)

    def commit(self, write: RunWrite) -> Any:  # the store's, counted
        self.commits += 1
        return self._store.commit(write)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


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
    assert summaries_of(execution_store, "e1") == {FIRST: "ABORTED", SECOND: "ABORTED"}


@pytest.mark.parametrize("says_done", [False, True], ids=["refused-end", "runner-done"])
def test_a_run_the_runner_ended_during_the_stop_is_answered_from_its_main_row(
    execution_store: Any, tmp_path: Path, says_done: bool
) -> None:
    """The abort's end, refused, takes the main row its refusal says, or reads it alone: ended
    by the runner, that row is the answer, with no read of the run and nothing written. When
    the stop says another process's runner is done, the main row is read before any end is
    written: ended, the answer, and no end is tried (the request its one write)."""
    write_launch(execution_store, a_launch("e1"))
    assert execution_store.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))
    runner = _RunnerEndingItsStep(execution_store, with_the_run=True, says_done=says_done)
    abort = AbortExecution(
        runner,  # type: ignore[arg-type]  # the store, counting the runs read
        runner,  # type: ignore[arg-type]  # only stop is asked
        sub_processes=object(),  # type: ignore[arg-type]  # no step registered any
        logs=FileLogStore(tmp_path / "logs"),
        objects=FilesystemObjectStore(tmp_path / "objects"),
        clock=_Clock(),
        run_logs=_NoLog(),
    )

    result = abort.execute(AbortExecutionCommand(workflow_execution_id="e1"))

    stored = execution_store.get_execution("e1")
    assert result.execution.status is stored.status is ExecutionStatus.ABORTED
    assert result.execution.execution_stop_date == stored.execution_stop_date  # the runner's
    assert runner.runs_read == 0
    assert runner.commits == (1 if says_done else 2)  # the request; its end, refused
    run = execution_store.get_run("e1")
    # as the runner wrote it, at its time
    assert [(s.status, s.stop_date) for s in run.steps] == [
        (StepStatus.ABORTED, at(2)),
        (StepStatus.ABORTED, at(2)),
    ]
