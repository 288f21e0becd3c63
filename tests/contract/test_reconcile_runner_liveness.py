"""A read of a leased local run asks whether its runner lives on every read (seed 000 "Status
tracking", issue 28): a dead one ends the run at once, a live one costs no write, and a Step
Functions run keeps the 30-second rule. The orchestrator is a fake answering as the local
runner would; the store is each storage adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.local.log_store import FileLogStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.sub_process_dispatch import DispatchingSubProcessController
from application.ports.executions import ExecutionStore
from application.ports.orchestration import Described, OrchestratorExecution
from application.ports.sub_executions import SubProcessController
from application.use_cases.reconcile_execution import ReconcileExecution
from domain.errors import RUNNER_LOST_ERROR
from domain.execution import PipelineExecution, WorkflowExecution
from domain.logs import RegisteredSubExecution
from domain.run import Run
from domain.statuses import ExecutionStatus, StepStatus
from domain.sub_processes import StopAttempt, StopOutcome
from tests.contract.builders import (
    a_launch,
    at,
    registered_on_step,
    step_id,
    write_change,
    write_launch,
)

NOW = at(60)
INTERVAL = timedelta(seconds=30)
LEASE = timedelta(seconds=30)
_S = timedelta(seconds=1)
OWNER = "laptop:4242:0badcafe"  # as supervisor.lease_owner names a runner
CAUSE = "the local runner (worker, pid 4242) ended before the run did"
GONE = OrchestratorExecution(status=ExecutionStatus.FAILED, error=RUNNER_LOST_ERROR, cause=CAUSE)
RUNNING = OrchestratorExecution(status=ExecutionStatus.RUNNING)


class Clock:
    def now(self) -> datetime:
        return NOW


class Orchestrator:
    """Answers lost_runner as told (`then` runs first: what another writer does meanwhile) and
    records every call; describe_execution says `described` (then runs first too)."""

    def __init__(
        self,
        gone: OrchestratorExecution | None,
        then: Callable[[], object] = lambda: None,
        described: OrchestratorExecution = RUNNING,
    ) -> None:
        self.gone, self.then, self.described = gone, then, described
        self.calls: list[str] = []

    def lost_runner(self, execution: WorkflowExecution) -> OrchestratorExecution | None:
        self.calls.append("lost_runner")
        self.then()
        return self.gone

    def describe_execution(self, execution: WorkflowExecution) -> OrchestratorExecution:
        self.calls.append("describe_execution")
        self.then()
        return self.described

    def describe_each(self, executions: Sequence[WorkflowExecution]) -> list[Described]:
        return [Described.of(self.describe_execution, execution) for execution in executions]


class StopRecorder:
    """A controller of one type that records what it is asked to stop and says it stopped it."""

    def __init__(self) -> None:
        self.stopped: list[str] = []

    def stop(self, sub_execution: RegisteredSubExecution, step: PipelineExecution) -> StopAttempt:
        self.stopped.append(sub_execution.resource_id)
        return StopAttempt(outcome=StopOutcome.STOPPED)

    def confirm(
        self, sub_execution: RegisteredSubExecution, step: PipelineExecution
    ) -> StopAttempt:
        return StopAttempt(outcome=StopOutcome.STOPPED)


def _reconcile(
    store: ExecutionStore,
    orchestrator: Orchestrator,
    home: Path,
    sub_processes: SubProcessController | None = None,
) -> ReconcileExecution:
    asked: Any = orchestrator  # the fake has only what a read asks of it
    return ReconcileExecution(
        store,
        asked,
        FileLogStore(home / "logs"),
        FilesystemObjectStore(home / "objects"),
        Clock(),
        sub_processes or DispatchingSubProcessController({}),
        min_interval_seconds=INTERVAL.total_seconds(),
        lease_seconds=LEASE.total_seconds(),
    )


def _leased_run(store: ExecutionStore) -> WorkflowExecution:
    """exec-1 on the local runner, leased to OWNER 5 s ago (good for 25 s more) and checked
    5 s ago: neither the lease nor the interval would have a read ask anything."""
    records = a_launch("exec-1", steps=2, start=NOW - timedelta(minutes=1))
    execution = records.execution.model_copy(update={"orchestrator": "local"})
    write_launch(store, records.model_copy(update={"execution": execution}))
    leased = write_change(store, Run(execution=execution).take_lease(OWNER, NOW - 5 * _S, LEASE))
    assert leased is not None
    checked = write_change(store, Run(execution=leased).checked(NOW - 5 * _S, None, None))
    assert checked is not None
    return store.get_execution("exec-1")


def _read_leased_run(
    store: ExecutionStore,
    home: Path,
    gone: OrchestratorExecution | None,
    then: Callable[[], object] = lambda: None,
) -> tuple[WorkflowExecution, Orchestrator, WorkflowExecution]:
    """The leased run as written, the orchestrator, and the run as one read answers it."""
    execution = _leased_run(store)
    orchestrator = Orchestrator(gone, then)
    return execution, orchestrator, _reconcile(store, orchestrator, home).execute(execution)


def test_a_live_runner_inside_the_interval_is_asked_and_nothing_is_written(
    execution_store: ExecutionStore, tmp_path: Path
) -> None:
    execution, orchestrator, read = _read_leased_run(execution_store, tmp_path, gone=None)

    assert read is execution
    assert orchestrator.calls == ["lost_runner"]
    assert execution_store.get_execution("exec-1") == execution  # not even a stamp


def test_a_dead_runner_ends_the_run_runner_lost_on_that_read(
    execution_store: ExecutionStore, tmp_path: Path
) -> None:
    _, orchestrator, read = _read_leased_run(execution_store, tmp_path, gone=GONE)

    assert orchestrator.calls == ["lost_runner"]
    stored = execution_store.get_run("exec-1")
    assert read == stored.execution
    assert stored.execution.status is ExecutionStatus.FAILED
    assert stored.execution.execution_error == f"{RUNNER_LOST_ERROR}: {CAUSE}"
    assert stored.execution.execution_cause == CAUSE
    assert stored.execution.execution_stop_date == NOW
    assert stored.execution.runner_lease is None
    assert [step.status for step in stored.steps] == [StepStatus.FAILED, StepStatus.FAILED]


def test_an_end_the_runner_recorded_before_it_exited_stands(
    execution_store: ExecutionStore, tmp_path: Path
) -> None:
    """The runner writes its run's end, then exits: the read saw the run open, then the runner
    gone. The row read after the liveness answer holds the end, and nothing overwrites it."""

    def the_runner_records_its_end() -> None:
        run = Run(execution=execution_store.get_execution("exec-1"))
        end = run.end_as_described(
            ExecutionStatus.SUCCEEDED, NOW - _S, None, "done", None, NOW - _S
        )
        assert end is not None and write_change(execution_store, end.change) is not None

    _, _, read = _read_leased_run(execution_store, tmp_path, GONE, the_runner_records_its_end)

    assert read.status is ExecutionStatus.SUCCEEDED
    assert execution_store.get_execution("exec-1").status is ExecutionStatus.SUCCEEDED


def test_a_lease_another_runner_holds_by_the_time_of_the_write_is_not_ended(
    execution_store: ExecutionStore, tmp_path: Path
) -> None:
    """The runner seen gone is not the lease's holder any more (the run parked at a gate, or
    was handed on): the end, decided on the dead runner's lease, is not written."""

    def another_runner_holds_it() -> None:
        run = Run(execution=execution_store.get_execution("exec-1"))
        # as of a moment past the dead runner's lease: the store's guard lets it be taken
        taken = run.take_lease("laptop:4343:feedf00d", NOW + LEASE, LEASE)
        assert write_change(execution_store, taken) is not None

    _, _, read = _read_leased_run(execution_store, tmp_path, GONE, another_runner_holds_it)

    assert read.status is ExecutionStatus.RUNNING
    stored = execution_store.get_execution("exec-1")
    assert stored.status is ExecutionStatus.RUNNING
    assert stored.runner_lease is not None and stored.runner_lease.owner == "laptop:4343:feedf00d"


def test_a_step_functions_run_inside_the_interval_asks_nothing(
    execution_store: ExecutionStore, tmp_path: Path
) -> None:
    records = a_launch("exec-1", steps=2, start=NOW - timedelta(minutes=1))
    execution = records.execution.model_copy(update={"orchestrator": "stepfunctions"})
    write_launch(execution_store, records.model_copy(update={"execution": execution}))
    checked = write_change(execution_store, Run(execution=execution).checked(NOW - _S, None, None))
    assert checked is not None
    orchestrator = Orchestrator(gone=GONE)  # it would say lost, were it asked
    reconcile = _reconcile(execution_store, orchestrator, tmp_path)

    inside = reconcile.execute(execution_store.get_execution("exec-1"))

    assert orchestrator.calls == []
    assert inside.status is ExecutionStatus.RUNNING


@pytest.mark.parametrize("seconds_ago", [31, 3600])
def test_a_step_functions_run_past_the_interval_is_described_once(
    execution_store: ExecutionStore, tmp_path: Path, seconds_ago: int
) -> None:
    records = a_launch("exec-1", steps=2, start=NOW - timedelta(hours=2))
    execution = records.execution.model_copy(update={"orchestrator": "stepfunctions"})
    write_launch(execution_store, records.model_copy(update={"execution": execution}))
    stamp = Run(execution=execution).checked(NOW - seconds_ago * _S, None, None)
    assert write_change(execution_store, stamp) is not None
    orchestrator = Orchestrator(gone=GONE)

    read = _reconcile(execution_store, orchestrator, tmp_path).execute(
        execution_store.get_execution("exec-1")
    )

    assert orchestrator.calls == ["describe_execution"]
    assert read.status is ExecutionStatus.RUNNING and read.last_sfn_sync_check_date == NOW


def _unleased_run(store: ExecutionStore) -> WorkflowExecution:
    """exec-1 on the local runner, started 5 s ago (a lease's length is not up), no runner has
    taken its lease, never checked: a read asks the orchestrator."""
    records = a_launch("exec-1", steps=2, start=NOW - 5 * _S)
    execution = records.execution.model_copy(update={"orchestrator": "local"})
    write_launch(store, records.model_copy(update={"execution": execution}))
    return store.get_execution("exec-1")


def test_a_run_no_runner_leased_described_lost_ends_runner_lost(
    execution_store: ExecutionStore, tmp_path: Path
) -> None:
    """The describe path of a lost runner (its runner died before taking the lease) ends the
    run as the lease's path does: the same error, cause and steps."""
    orchestrator = Orchestrator(gone=None, described=GONE)

    read = _reconcile(execution_store, orchestrator, tmp_path).execute(
        _unleased_run(execution_store)
    )

    assert orchestrator.calls == ["describe_execution"]  # no lease: nothing for lost_runner
    stored = execution_store.get_run("exec-1")
    assert read == stored.execution
    assert stored.execution.status is ExecutionStatus.FAILED
    assert stored.execution.execution_error == f"{RUNNER_LOST_ERROR}: {CAUSE}"
    assert stored.execution.execution_cause == CAUSE
    assert [step.status for step in stored.steps] == [StepStatus.FAILED, StepStatus.FAILED]


def test_a_lease_taken_after_the_describe_keeps_the_run(
    execution_store: ExecutionStore, tmp_path: Path
) -> None:
    """A runner took the run between the describe and the end's read: it is alive, and the end
    decided on no lease is not written."""

    def a_runner_takes_it() -> None:
        run = Run(execution=execution_store.get_execution("exec-1"))
        assert write_change(execution_store, run.take_lease(OWNER, NOW, LEASE)) is not None

    orchestrator = Orchestrator(gone=None, then=a_runner_takes_it, described=GONE)

    read = _reconcile(execution_store, orchestrator, tmp_path).execute(
        _unleased_run(execution_store)
    )

    assert read.status is ExecutionStatus.RUNNING
    stored = execution_store.get_execution("exec-1")
    assert stored.status is ExecutionStatus.RUNNING
    assert stored.runner_lease is not None and stored.runner_lease.owner == OWNER


SUB = RegisteredSubExecution.of_resource(resource_type="localProcess", resource_id="4343")


def _run_with_a_registered_child(store: ExecutionStore, orchestrator: str) -> WorkflowExecution:
    """exec-1 on `orchestrator`, started 5 s ago and never checked, no lease; its first step
    RUNNING with SUB registered on it."""
    records = a_launch("exec-1", steps=2, start=NOW - 5 * _S)
    execution = records.execution.model_copy(update={"orchestrator": orchestrator})
    first = records.steps[0].model_copy(
        update={"status": StepStatus.RUNNING, "start_date": NOW - 4 * _S}
    )
    steps = (first, *records.steps[1:])
    write_launch(store, records.model_copy(update={"execution": execution, "steps": steps}))
    registered_on_step(store, "exec-1", step_id("exec-1", 0), (SUB,))
    return store.get_execution("exec-1")


@pytest.mark.parametrize(
    ("orchestrator", "described", "stopped"),
    [
        # the runner described lost: the read plays the error handler (seed 000)
        ("local", GONE, ["4343"]),
        # ended in Step Functions' console or by its timeout: recorded as found, nothing stopped
        ("stepfunctions", OrchestratorExecution(status=ExecutionStatus.ABORTED), []),
        ("stepfunctions", OrchestratorExecution(status=ExecutionStatus.TIMED_OUT), []),
    ],
    ids=["runner-lost", "sfn-aborted", "sfn-timed-out"],
)
def test_which_described_ends_stop_what_the_steps_registered(
    execution_store: ExecutionStore,
    tmp_path: Path,
    orchestrator: str,
    described: OrchestratorExecution,
    stopped: list[str],
) -> None:
    """docs/architecture.md "Which ends stop them": a lost runner's end stops the running steps'
    children, whichever path found it; an end Step Functions describes out of band does not."""
    recorder = StopRecorder()
    fake = Orchestrator(gone=None, described=described)
    dispatch = DispatchingSubProcessController({SUB.resource_type: lambda: recorder})
    reconcile = _reconcile(execution_store, fake, tmp_path, dispatch)

    read = reconcile.execute(_run_with_a_registered_child(execution_store, orchestrator))

    assert read.status is described.status
    assert recorder.stopped == stopped
    step = execution_store.get_step(step_id("exec-1", 0))
    assert step.status.value == described.status.value
    assert [stop.resource_id for stop in step.sub_execution_stops] == stopped
