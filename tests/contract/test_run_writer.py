"""RunWriter contract on every store: a run's transition - main row, step moves with their
attempts and cost entries, an approval request, and the events - written all or nothing; a
refused guard writes nothing, events are numbered gap-free after the run's last."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from adapters.item_budget import OffloadedBodies
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema, create_tables
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.tables import ResourceKeys, TableNames
from application.ports.costs import CostLedger, CostScope
from application.ports.executions import ExecutionEvents, Refused, refused_main_row
from application.run_writes import MOVES_PER_WRITE, end_run, end_run_and_steps
from domain.approvals import ApprovalGate, ApprovalRequest
from domain.errors import ExecutionAlreadyExistsError, ExecutionNotFoundError
from domain.events import move_events
from domain.run import Run, RunChange, RunEnd, RunGuard, first_start, plain_finish
from domain.run_write import RunWrite, StepRow
from domain.statuses import ExecutionStatus, StepStatus
from tests.contract.builders import a_duration_entry, a_launch, at, step_id, write_launch

STORES = ["sqlite_file", "sqlite_memory", "dynamodb"]
FIRST, SECOND = step_id("e1", 0), step_id("e1", 1)
LEASE = timedelta(minutes=5)


@pytest.fixture(params=STORES)
def backend(request: pytest.FixtureRequest) -> tuple[Any, ExecutionEvents, CostLedger]:
    """A store (the writer, and the reads to check it by), its event log and its cost ledger."""
    backend = request.param
    store = request.getfixturevalue(f"{backend}_execution_store")
    ledger = request.getfixturevalue(f"{backend}_cost_ledger")
    if backend == "dynamodb":
        from adapters.dynamodb.unit_of_work import DynamoDbUnitOfWork

        client = request.getfixturevalue("moto_dynamodb_client")
        names = request.getfixturevalue("dynamodb_table_names")
        return store, DynamoDbUnitOfWork(client, names, OffloadedBodies(None)), ledger
    database: SqliteDatabase = request.getfixturevalue(f"{backend}_database")
    log = SqliteUnitOfWork(database, build_schema(TableNames()), OffloadedBodies(None))
    return store, log, ledger


def events(log: ExecutionEvents) -> list[tuple[int, str, str | None]]:
    return [
        (e.sequence_number, e.event_type.value, e.pipeline_execution_id)
        for e in log.events_after("e1", 0, 100).items
    ]


def statuses(run: Run) -> dict[str, str]:
    return {step.pipeline_execution_id: step.status.value for step in run.steps} | {
        "run": run.execution.status.value
    }


def a_request(minute: int = 2) -> ApprovalRequest:
    gate = ApprovalGate(approvers=("alice",), timeout_seconds=60)
    return ApprovalRequest.open(
        "ap-1",
        gate,
        workflow_execution_id="e1",
        pipeline_execution_id=FIRST,
        attempt=1,
        pipeline_id="pipe0",
        workflow_database_id="db1",
        workflow_id="wf1",
        at=at(minute),
    )


def refused(store: Any, answer: bool | Refused) -> bool:
    """`answer` (RunWriter.commit's) is a refusal, and a main row it says is the row as stored
    (a store may say none: the caller reads it then)."""
    said = refused_main_row(answer)
    return not answer and (said is None or said == store.get_execution("e1"))


def started(store: Any) -> None:
    write_launch(store, a_launch("e1"))
    assert store.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))


def test_a_step_s_finish_and_the_next_one_s_start_are_one_write(backend: Any) -> None:
    store, log, ledger = backend
    started(store)
    finish = replace(
        plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(2), 1),
        cost_entries=(a_duration_entry("e1"),),
    )
    write = RunWrite.of("e1", moves=(finish, first_start("e1", SECOND, at(2))))
    assert store.commit(write) is True
    run = store.get_run("e1")
    assert statuses(run) == {FIRST: "SUCCEEDED", SECOND: "RUNNING", "run": "RUNNING"}
    assert [(a.pipeline_execution_id, a.status.value) for a in run.attempts] == [
        (FIRST, "SUCCEEDED"),
        (SECOND, "RUNNING"),
    ]
    assert [e.entry_id for e in ledger.list_entries(CostScope.EXECUTION, "e1")] == ["duration-1"]
    assert events(log) == [
        (1, "ExecutionLaunched", None),
        (2, "StepStarted", FIRST),
        (3, "AttemptStarted", FIRST),
        (4, "AttemptFinished", FIRST),
        (5, "StepFinished", FIRST),
        (6, "StepStarted", SECOND),
        (7, "AttemptStarted", SECOND),
    ]


def test_a_launch_its_lease_and_its_first_start_are_one_write(backend: Any) -> None:
    store, log, _ = backend
    records = a_launch("e1")
    lease = Run(execution=records.execution).take_lease("runner-1", at(1), LEASE)
    write = RunWrite.launching(records, lease, first_start("e1", FIRST, at(1)))
    assert store.commit(write) is True
    run = store.get_run("e1")
    assert statuses(run) == {FIRST: "RUNNING", SECOND: "NEW", "run": "RUNNING"}
    assert run.execution.runner_lease == lease.after.runner_lease
    assert [(a.pipeline_execution_id, a.attempt, a.status.value) for a in run.attempts] == [
        (FIRST, 1, "RUNNING")
    ]
    with pytest.raises(ExecutionAlreadyExistsError):  # an id taken: nothing written again
        store.commit(write)
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(2), 1)
    assert store.commit(RunWrite.of("e1", moves=(finish, first_start("e1", SECOND, at(2)))))
    assert events(log) == [
        (1, "ExecutionLaunched", None),
        (2, "StepStarted", FIRST),
        (3, "AttemptStarted", FIRST),
        (4, "AttemptFinished", FIRST),
        (5, "StepFinished", FIRST),
        (6, "StepStarted", SECOND),
        (7, "AttemptStarted", SECOND),
    ]


def test_the_last_finish_and_the_run_s_completion_are_one_write(backend: Any) -> None:
    store, log, _ = backend
    write_launch(store, a_launch("e1", steps=1))
    assert store.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))
    run = store.get_run("e1")
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(2), 1)
    end = run.complete(ExecutionStatus.SUCCEEDED, at(2), None, "", None)
    assert end is not None
    assert store.commit(RunWrite.of("e1", moves=(finish,), change=end.change)) is True
    assert statuses(store.get_run("e1")) == {FIRST: "SUCCEEDED", "run": "SUCCEEDED"}
    assert [kind for _, kind, _ in events(log)][-3:] == [
        "AttemptFinished",
        "StepFinished",
        "ExecutionCompleted",
    ]


def test_a_refused_step_guard_writes_nothing_of_the_write(backend: Any) -> None:
    store, log, ledger = backend
    started(store)
    before = store.get_run("e1")
    finish = replace(
        plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(2), 1),
        cost_entries=(a_duration_entry("e1"),),
    )
    # the second step is expected RUNNING but is NEW: the whole write is refused
    not_running = replace(
        first_start("e1", SECOND, at(2)), expected=frozenset({StepStatus.RUNNING})
    )
    assert refused(store, store.commit(RunWrite.of("e1", moves=(finish, not_running))))
    assert store.get_run("e1") == before
    assert ledger.list_entries(CostScope.EXECUTION, "e1") == []
    assert len(events(log)) == 3


def _run_end_decided_before_an_abort_request(store: Any) -> RunEnd:
    """A one-step run's SUCCEEDED end, decided on the run as it was before an abort request
    that is now stored."""
    write_launch(store, a_launch("e1", steps=1))
    assert store.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))
    run: Run = store.get_run("e1")
    request_abort = run.request_abort(at(2), "stop")
    assert request_abort is not None and store.commit(RunWrite.of("e1", change=request_abort))
    end = run.complete(ExecutionStatus.SUCCEEDED, at(3), None, "", None)
    assert end is not None
    return end


def test_a_refused_main_row_guard_writes_none_of_the_steps(backend: Any) -> None:
    store, log, _ = backend
    # decided on the run before the abort request: its guard (no abort requested) refuses it
    end = _run_end_decided_before_an_abort_request(store)
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(3), 1)
    answer = store.commit(
        RunWrite.of("e1", moves=(replace(finish, while_open=False),), change=end.change)
    )
    # the main row's own guard refused it: every store says the row as stored
    assert refused(store, answer) and refused_main_row(answer) == store.get_execution("e1")
    after = store.get_run("e1")
    assert statuses(after) == {FIRST: "RUNNING", "run": "RUNNING"}
    assert [kind for _, kind, _ in events(log)][-1] == "AbortRequested"


def test_a_refusal_by_the_main_row_s_guard_says_the_row_as_stored(backend: Any) -> None:
    """Refused by its guard on the main row, the store says the row as it found it (DynamoDB's
    old image returned with the refusal; SQLite the row read in refusing): a caller deciding
    again on the main row needs no read."""
    store, log, _ = backend
    started(store)
    run = store.get_run("e1")
    assert store.commit(RunWrite.of("e1", change=run.take_lease("runner-1", at(2), LEASE)))
    # decided on the row before that lease: another runner's, refused (a plain update, no event)
    answer = store.commit(RunWrite.of("e1", change=run.take_lease("runner-2", at(2), LEASE)))
    stored = store.get_execution("e1")
    assert not answer and refused_main_row(answer) == stored
    assert stored.runner_lease is not None and stored.runner_lease.owner == "runner-1"
    assert end_run(store, "e1", lambda run: run.abort(at(3), "", None)).is_terminal
    written = events(log)
    # a transition with its event, decided on the row before the run ended
    abort = run.request_abort(at(4), "stop")
    assert abort is not None
    answer = store.commit(RunWrite.of("e1", change=abort))
    stored = store.get_execution("e1")
    assert not answer and refused_main_row(answer) == stored
    assert stored.status is ExecutionStatus.ABORTED and stored.abort_requested_date is None
    assert events(log) == written


def test_a_step_that_holds_while_the_run_is_open_is_refused_on_a_stopping_run(
    backend: Any,
) -> None:
    store, log, _ = backend
    started(store)
    abort = store.get_run("e1").request_abort(at(2), "stop")
    assert abort is not None and store.commit(RunWrite.of("e1", change=abort))
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(3), 1)
    assert refused(store, store.commit(RunWrite.of("e1", moves=(finish,))))
    assert statuses(store.get_run("e1"))[FIRST] == "RUNNING"
    assert len(events(log)) == 4


def test_a_completion_on_a_stopping_run_is_refused_whole_saying_the_row_as_stored(
    backend: Any,
) -> None:
    """The last step's end (held while the run is open) and the run's end (held while no abort
    is requested) on a run whose abort was requested after they were decided: nothing of it."""
    store, log, ledger = backend
    end = _run_end_decided_before_an_abort_request(store)
    finish = replace(
        plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(3), 1),
        cost_entries=(a_duration_entry("e1"),),
    )
    assert finish.while_open
    answer = store.commit(RunWrite.of("e1", moves=(finish,), change=end.change))
    # refused by the main row's guard, which decides the step's too: the row as stored is said
    assert refused(store, answer) and refused_main_row(answer) == store.get_execution("e1")
    assert statuses(store.get_run("e1")) == {FIRST: "RUNNING", "run": "RUNNING"}
    assert [a.status.value for a in store.get_run("e1").attempts] == ["RUNNING"]
    assert ledger.list_entries(CostScope.EXECUTION, "e1") == []
    assert [kind for _, kind, _ in events(log)][-1] == "AbortRequested"


def test_a_change_that_holds_on_an_ended_run_still_refuses_a_step_held_while_open(
    backend: Any,
) -> None:
    """A change guarded by an ended status (and no abort requested) does not hold for a move
    that needs the run open: the write is refused whole."""
    store, log, _ = backend
    started(store)
    execution = store.get_execution("e1")
    ended = execution.complete(ExecutionStatus.FAILED, at=at(2), log="", error="lost")
    assert store.commit(RunWrite.of("e1", change=RunChange(execution, ended, RunGuard())))
    stamped = RunChange(
        ended,
        ended._evolve(last_sfn_sync_check_date=at(4)),
        RunGuard(statuses=frozenset({ExecutionStatus.FAILED}), not_stopping=True),
    )
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(3), 1)
    assert finish.while_open
    written = events(log)
    assert refused(store, store.commit(RunWrite.of("e1", moves=(finish,), change=stamped)))
    assert statuses(store.get_run("e1"))[FIRST] == "RUNNING"
    assert store.get_execution("e1") == ended
    assert events(log) == written


def test_a_repeated_cost_entry_refuses_the_write(backend: Any) -> None:
    store, log, ledger = backend
    write_launch(store, a_launch("e1"))
    ledger.append([a_duration_entry("e1")])
    start = replace(first_start("e1", FIRST, at(1)), cost_entries=(a_duration_entry("e1"),))
    assert refused(store, store.commit(RunWrite.of("e1", moves=(start,))))
    assert statuses(store.get_run("e1"))[FIRST] == "NEW"
    assert events(log) == [(1, "ExecutionLaunched", None)]


def test_an_approval_opens_once_closes_once_and_parks_only_while_pending(backend: Any) -> None:
    store, log, _ = backend
    started(store)
    request = a_request()
    assert store.commit(RunWrite.opening(request)) is True
    assert refused(store, store.commit(RunWrite.opening(request)))  # the id is taken
    run = store.get_run("e1")
    lease = run.take_lease("runner-1", at(2), LEASE)
    assert store.commit(RunWrite.of("e1", change=lease))
    run = store.get_run("e1")
    decided = request.timed_out(at(3))
    assert store.commit(RunWrite.closing(decided)) is True
    assert refused(store, store.commit(RunWrite.closing(decided)))  # closed already
    # the gate is closed: parking the run at it is refused, its lease stays the runner's
    parking = RunWrite.parking(request, run.park("runner-1", request, at(4)))
    assert refused(store, store.commit(parking))
    lease_after = store.get_execution("e1").runner_lease
    assert lease_after is not None and lease_after.owner == "runner-1"
    assert [kind for _, kind, _ in events(log)][3:] == ["ApprovalRequested", "ApprovalDecided"]


def test_a_run_parks_at_a_pending_gate_with_its_lease(backend: Any) -> None:
    store, log, _ = backend
    started(store)
    request = a_request()
    assert store.commit(RunWrite.opening(request))
    run = store.get_run("e1")
    assert store.commit(RunWrite.of("e1", change=run.take_lease("runner-1", at(2), LEASE)))
    run = store.get_run("e1")
    assert store.commit(RunWrite.parking(request, run.park("runner-1", request, at(3)))) is True
    assert store.get_run("e1").parked_at() == "ap-1"
    assert len(events(log)) == 4  # a lease parked is no transition: no event


def test_events_stay_gap_free_across_writes_and_refusals(backend: Any) -> None:
    store, log, _ = backend
    started(store)
    refused_start = RunWrite.of("e1", moves=(first_start("e1", FIRST, at(2)),))  # started
    assert refused(store, store.commit(refused_start))
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(2), 1)
    assert store.commit(RunWrite.of("e1", moves=(finish,)))
    numbers = [number for number, _, _ in events(log)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 5


def test_a_write_numbers_its_events_past_another_writer_s(backend: Any) -> None:
    """The store numbers a write past the last event it wrote itself, with no read; another
    process's events in between are found by the write's own guard, and numbered past."""
    store, log, _ = backend
    started(store)
    elsewhere = move_events(first_start("e1", SECOND, at(2)))[:1]
    log.append_events("e1", elsewhere)  # another process's writer, on the same run
    finish = plain_finish("e1", FIRST, StepStatus.SUCCEEDED, None, at(3), 1)
    assert store.commit(RunWrite.of("e1", moves=(finish,)))
    numbers = [number for number, _, _ in events(log)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) == 6


def test_a_write_to_a_run_with_no_main_row_is_not_found(backend: Any) -> None:
    store, _, _ = backend
    with pytest.raises(ExecutionNotFoundError):
        store.commit(RunWrite.opening(a_request()))


def test_a_write_naming_another_run_is_refused_before_any_store() -> None:
    with pytest.raises(ValueError, match="another run"):
        RunWrite.of("e2", moves=(first_start("e1", FIRST, at(1)),))


def test_a_launch_leasing_another_main_row_than_its_own_is_refused_before_any_store() -> None:
    records = a_launch("e1")
    own = Run(execution=records.execution).take_lease("runner-1", at(1), LEASE)
    assert RunWrite.launching(records, own, None).launch is not None
    # an equal row is the same row; another is refused, whatever object it is
    equal = records.execution.model_copy()
    assert RunWrite.launching(records, replace(own, before=equal), None).launch is not None
    other = records.execution.model_copy(update={"workflow_version": 2})
    with pytest.raises(ValueError, match="leases another main row"):
        RunWrite.launching(records, replace(own, before=other), None)


def test_an_end_of_more_open_steps_than_one_write_holds_ends_them_all_and_the_run_last(
    backend: tuple[Any, ExecutionEvents, CostLedger],
) -> None:
    store, log, _ = backend
    write_launch(store, a_launch("e1", steps=40))
    assert store.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))

    ended = end_run(store, "e1", lambda run: run.abort(at(2), "", None))

    run = store.get_run("e1")
    assert ended == run.execution and ended.status is ExecutionStatus.ABORTED
    assert set(statuses(run).values()) == {"ABORTED"}
    [attempt] = store.list_attempts([FIRST])
    assert (attempt.status, attempt.stop_date) == (StepStatus.ABORTED, at(2))
    # every step's move and the run's end, each once, the run's last
    written = events(log)
    assert [n for n, _, _ in written] == list(range(1, len(written) + 1))
    assert written[-1][1:] == ("ExecutionAborted", None)
    assert len({step for _, kind, step in written if kind == "StepFinished"}) == 40


class CountingStore:
    """The store, its reads of the run and its writes counted."""

    def __init__(self, store: Any) -> None:
        self.store, self.reads, self.writes = store, 0, 0

    def get_run(self, workflow_execution_id: str) -> Run:
        self.reads += 1
        return self.store.get_run(workflow_execution_id)  # type: ignore[no-any-return]

    def commit(self, write: RunWrite) -> bool:
        self.writes += 1
        return self.store.commit(write)  # type: ignore[no-any-return]


@pytest.mark.parametrize("open_steps", [40, 120])
def test_an_end_in_parts_is_decided_once_on_one_read_and_written_a_part_at_a_time(
    backend: tuple[Any, ExecutionEvents, CostLedger], open_steps: int
) -> None:
    """The end is decided once, its parts written from that decision: deciding again on the
    run each part left made ending an orphaned run quadratic in its steps (each decision goes
    over every open step; docs/performance.md has the figures)."""
    store, _, _ = backend
    write_launch(store, a_launch("e1", steps=open_steps))
    counted: Any = CountingStore(store)  # the two calls of the port end_run_and_steps makes
    decisions = []

    def decide(run: Run) -> RunEnd | None:
        decisions.append(len(run.steps))
        return run.lose_runner(at(10), LEASE, "", None)  # no runner took it: every step ends

    ended, steps = end_run_and_steps(counted, "e1", decide)

    assert decisions == [open_steps] and counted.reads == 1
    assert counted.writes == -(-open_steps // MOVES_PER_WRITE)  # a part is a write
    run = store.get_run("e1")
    assert ended == run.execution and ended.status is ExecutionStatus.FAILED
    assert (ended.execution_error or "").startswith("wfx.RunnerLost")
    assert steps == run.steps and {step.status for step in steps} == {StepStatus.FAILED}


def test_a_redrive_resets_its_steps_with_the_run_or_not_at_all(backend: Any) -> None:
    store, log, _ = backend
    write_launch(store, a_launch("e1", steps=2))
    assert store.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))
    end_run(store, "e1", lambda run: run.fail(at(2), "broke", "", None))
    failed = store.get_run("e1")
    change, reset = failed.redrive(at(3))
    rows = tuple(StepRow(step, frozenset({StepStatus.FAILED})) for step in reset)
    # decided as if the steps were still RUNNING: refused, nothing of it written
    stale = tuple(StepRow(step, frozenset({StepStatus.RUNNING})) for step in reset)
    assert refused(store, store.commit(RunWrite.of("e1", change=change, step_rows=stale)))
    assert store.get_run("e1") == failed

    assert store.commit(RunWrite.of("e1", change=change, step_rows=rows))

    after = store.get_run("e1")
    assert statuses(after) == {FIRST: "NEW", SECOND: "NEW", "run": "PENDING_REDRIVE"}
    assert after.step(FIRST).start_date is None and after.step(FIRST).error is None
    assert [kind for _, kind, _ in events(log)][-1] == "ExecutionRedriven"


NEWER_TABLES = (
    ResourceKeys.TASK_EXECUTIONS,
    ResourceKeys.COST_LEDGER,
    ResourceKeys.APPROVAL_REQUESTS,
    ResourceKeys.ARTIFACTS,
    ResourceKeys.RESOLVED_INPUT_FILES,
    ResourceKeys.EXECUTION_EVENTS,
)


def test_a_database_made_before_the_newer_tables_gets_them_with_a_run_s_first_write(
    sqlite_file_database: SqliteDatabase,
) -> None:
    schema = build_schema(TableNames())
    create_tables(sqlite_file_database, schema)
    with sqlite_file_database.write() as connection:
        for key in NEWER_TABLES:
            connection.execute(f'DROP TABLE "{schema.tables[key].name}"')
    store = SqliteExecutionStore(sqlite_file_database, TableNames())  # as a command opens it

    records = a_launch("e1")
    lease = Run(execution=records.execution).take_lease("runner-1", at(1), LEASE)
    assert store.commit(RunWrite.launching(records, lease, first_start("e1", FIRST, at(1))))

    run = store.get_run("e1")
    assert [(a.pipeline_execution_id, a.status.value) for a in run.attempts] == [(FIRST, "RUNNING")]
    log = SqliteUnitOfWork(sqlite_file_database, schema, OffloadedBodies(None))
    assert events(log)[:2] == [(1, "ExecutionLaunched", None), (2, "StepStarted", FIRST)]
