"""RecordAttemptDurations is one per process and the runner's threads share it: its kept run
contexts must stay whole while many runs' steps finish at once, past the limit it keeps."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from application.ports.costs import CostLedger, CostScope
from application.ports.executions import ExecutionStore
from application.use_cases.record_cost import (
    RecordAttemptDurations,
    RecordAttemptDurationsCommand,
)
from domain.attempts import TaskExecution
from domain.authorization import AssetKey
from domain.costs import DEFAULT_RATE_CARD, CostLedgerEntry
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus, StepStatus
from domain.triggers import TriggerType

START = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
THREADS = 8
RUNS_PER_THREAD = 120  # 960 runs in all, well past the 256 contexts kept


class _Clock:
    def now(self) -> datetime:
        return START + timedelta(minutes=5)


class _Store:
    """The three reads the recorder makes, answered for any run id `run-N`."""

    def __init__(self) -> None:
        self.context_reads = 0
        self._lock = threading.Lock()

    def list_attempts(self, pipeline_execution_ids: Iterable[str]) -> list[TaskExecution]:
        (step_id,) = pipeline_execution_ids
        return [
            TaskExecution(
                pipeline_execution_id=step_id,
                workflow_execution_id=step_id.removesuffix("-step-0"),
                attempt=1,
                status=StepStatus.SUCCEEDED,
                start_date=START,
                stop_date=START + timedelta(seconds=3),
            )
        ]

    def run_assets(
        self, workflow_execution_id: str
    ) -> tuple[tuple[AssetKey, ...], AssetKey | None]:
        with self._lock:
            self.context_reads += 1
        return (), None

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution:
        return WorkflowExecution(
            workflow_execution_id=workflow_execution_id,
            workflow_database_id="db1",
            workflow_id="wf1",
            workflow_version=1,
            status=ExecutionStatus.RUNNING,
            execution_start_date=START,
            triggered_by_user_id="alice",
            trigger_type=TriggerType.MANUAL,
        )


class _Ledger:
    def __init__(self) -> None:
        self.entries: list[CostLedgerEntry] = []

    def append(self, entries: Sequence[CostLedgerEntry]) -> None:
        self.entries.extend(entries)  # list.extend is atomic under the GIL

    def list_entries(self, scope: CostScope, key: str | None) -> list[CostLedgerEntry]:
        raise AssertionError("a first append of a step's duration reads no entries")


@pytest.fixture
def fast_thread_switches() -> Iterator[None]:
    # switch threads as often as the interpreter allows, so interleavings the default 5 ms
    # interval would rarely show happen on every run
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def recorder(store: _Store, ledger: _Ledger) -> RecordAttemptDurations:
    return RecordAttemptDurations(
        cast(CostLedger, ledger), cast(ExecutionStore, store), DEFAULT_RATE_CARD, _Clock()
    )


@pytest.mark.usefixtures("fast_thread_switches")
def test_threads_recording_many_runs_at_once_past_the_kept_limit_all_succeed() -> None:
    store, ledger = _Store(), _Ledger()
    durations = recorder(store, ledger)
    start = threading.Barrier(THREADS)
    failures: list[BaseException] = []

    def record(thread: int) -> None:
        start.wait()
        try:
            for n in range(RUNS_PER_THREAD):
                # neighbouring threads share half their runs: a context read twice at once
                run = f"run-{(thread * RUNS_PER_THREAD + n) // 2}"
                durations.execute(
                    RecordAttemptDurationsCommand(
                        workflow_execution_id=run, pipeline_execution_id=f"{run}-step-0"
                    )
                )
        except BaseException as exc:  # a thread's failure is the test's
            failures.append(exc)

    threads = [threading.Thread(target=record, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    # one entry per run's attempt: a run recorded twice is appended twice only when the two
    # threads raced (this ledger turns no duplicate down), else the second knows it was done
    assert len({e.entry_id for e in ledger.entries}) == THREADS * RUNS_PER_THREAD // 2
    assert len(ledger.entries) <= THREADS * RUNS_PER_THREAD
    assert {e.workflow_execution_id for e in ledger.entries} == {
        f"run-{n}" for n in range(THREADS * RUNS_PER_THREAD // 2)
    }
    kept: Any = durations._contexts  # the bound is what this test is about
    assert len(kept) == RecordAttemptDurations._KEPT_CONTEXTS


def test_a_kept_run_is_not_read_again_and_the_least_recent_run_goes_first() -> None:
    store, ledger = _Store(), _Ledger()
    durations = recorder(store, ledger)
    limit = RecordAttemptDurations._KEPT_CONTEXTS

    def record(run: str) -> None:
        durations.execute(
            RecordAttemptDurationsCommand(
                workflow_execution_id=run, pipeline_execution_id=f"{run}-step-0"
            )
        )

    for n in range(limit):
        record(f"run-{n}")
    record("run-0")  # still stepping: kept, and now the most recent
    record(f"run-{limit}")  # one past the limit: run-1 goes, run-0 stays
    reads = store.context_reads
    record("run-0")
    assert store.context_reads == reads
    record("run-1")
    assert store.context_reads == reads + 1


def test_an_attempt_this_process_recorded_is_not_appended_again_nor_the_ledger_read() -> None:
    store, ledger = _Store(), _Ledger()
    durations = recorder(store, ledger)
    command = RecordAttemptDurationsCommand(
        workflow_execution_id="run-1", pipeline_execution_id="run-1-step-0"
    )
    assert len(durations.execute(command)) == 1

    assert durations.execute(command) == ()  # _Ledger.list_entries would fail the test
    assert len(ledger.entries) == 1
