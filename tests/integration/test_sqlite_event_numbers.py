"""A SQLite writer numbers a write's events past the last it wrote for the run, with no read, and
the INSERT checks that guess: a run's first events (a launch) go in plainly, numbered from 1, and
a later write whose guess is past the log's last (another process deleted the run and launched it
again under the same id) inserts nothing on the guess and numbers after the log's own last."""

from __future__ import annotations

from adapters.item_budget import OffloadedBodies
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.sqlite.schema import build_schema
from adapters.sqlite.unit_of_work import SqliteUnitOfWork
from adapters.tables import TableNames
from domain.run import first_start, plain_finish
from domain.run_write import RunWrite
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, at, step_id, write_launch

FIRST, SECOND = step_id("e1", 0), step_id("e1", 1)


def numbers(database: SqliteDatabase) -> list[tuple[int, str]]:
    log = SqliteUnitOfWork(database, build_schema(TableNames()), OffloadedBodies(None))
    return [(e.sequence_number, e.event_type.value) for e in log.events_after("e1", 0, 100).items]


def test_a_write_guessing_past_the_log_s_last_number_leaves_no_gap(
    sqlite_file_execution_store: SqliteExecutionStore, sqlite_file_database: SqliteDatabase
) -> None:
    first = sqlite_file_execution_store
    write_launch(first, a_launch("e1"))
    assert first.commit(RunWrite.of("e1", moves=(first_start("e1", FIRST, at(1)),)))
    assert numbers(sqlite_file_database) == [
        (1, "ExecutionLaunched"),
        (2, "StepStarted"),
        (3, "AttemptStarted"),
    ]
    # another process deletes the run and launches it again: its log starts over at 1
    assert sqlite_file_database.path is not None
    other_database = SqliteDatabase(sqlite_file_database.path)
    try:
        other = SqliteExecutionStore(other_database, TableNames())
        assert other.delete_execution("e1")
        write_launch(other, a_launch("e1"))
    finally:
        other_database.close()
    assert numbers(sqlite_file_database) == [(1, "ExecutionLaunched")]

    # this process still guesses 3 was the last: the INSERT finds no 3 and the log's last is read
    assert first.commit(RunWrite.of("e1", moves=(first_start("e1", SECOND, at(2)),)))
    finish = plain_finish("e1", SECOND, StepStatus.SUCCEEDED, None, at(3), 1)
    assert first.commit(RunWrite.of("e1", moves=(finish,)))

    assert numbers(sqlite_file_database) == [
        (1, "ExecutionLaunched"),
        (2, "StepStarted"),
        (3, "AttemptStarted"),
        (4, "AttemptFinished"),
        (5, "StepFinished"),
    ]
