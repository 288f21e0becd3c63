"""ExecutionStore contract, seed 003 ARTIFACT: every attempt's output files are kept.

The seed's output-file row of a path is the step's latest (a later attempt replaces it, naming
itself); the artifact of each attempt is written once, beside it, and stays.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.local.object_store import FilesystemObjectStore
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.execution_store import SqliteExecutionStore
from adapters.system import SystemClock
from adapters.tables import ResourceKeys, TableNames
from application.ports.executions import ExecutionStore, RowCollection
from application.use_cases.retry_step import RetryStep, RetryStepCommand
from application.use_cases.step_tracking import (
    FinishStep,
    FinishStepCommand,
    StartStep,
    StartStepCommand,
)
from domain.execution import (
    Artifact,
    OutputFile,
    StepOutputs,
    artifacts_of,
    execution_output_prefix,
)
from domain.statuses import StepStatus
from tests.contract.builders import a_launch, at, step_id, step_row_saved, write_launch

RUN = "e1"
ROOT = step_id(RUN, 0)


def a_file(path: str, version: str, attempt: int, *, step: str = ROOT) -> OutputFile:
    return OutputFile(
        pipeline_execution_id=step,
        workflow_execution_id=RUN,
        file_type="file",
        relative_file_path=path,
        version_id=version,
        size=len(version),
        etag=f"etag-{version}",
        attempt=attempt,
    )


def written(*files: OutputFile, minutes: int = 5) -> StepOutputs:
    return StepOutputs(files=files, artifacts=artifacts_of(files, at(minutes)))


def artifacts(store: ExecutionStore, step: str = ROOT) -> list[tuple[int, str, str]]:
    (entry,) = [d for d in store.get_details(RUN).steps if d.step.pipeline_execution_id == step]
    return [(a.attempt, a.relative_file_path, a.version_id) for a in entry.outputs.artifacts]


@pytest.fixture
def store(execution_store: ExecutionStore) -> ExecutionStore:
    write_launch(execution_store, a_launch(RUN, steps=2))
    return execution_store


def test_a_later_attempt_takes_the_seed_row_and_both_attempts_artifacts_stay(
    store: ExecutionStore,
) -> None:
    store.add_step_outputs(written(a_file("a.txt", "v1", 1), a_file("b.txt", "b1", 1)))

    store.add_step_outputs(written(a_file("a.txt", "v2", 2), minutes=9))

    by_path = {f.relative_file_path: f for f in store.list_output_files([ROOT])}
    assert (by_path["a.txt"].attempt, by_path["a.txt"].version_id) == (2, "v2")
    assert (by_path["b.txt"].attempt, by_path["b.txt"].version_id) == (1, "b1")
    assert artifacts(store) == [(1, "a.txt", "v1"), (1, "b.txt", "b1"), (2, "a.txt", "v2")]
    (second,) = [a for a in store.get_details(RUN).steps[0].outputs.artifacts if a.attempt == 2]
    assert second == Artifact(
        pipeline_execution_id=ROOT,
        workflow_execution_id=RUN,
        attempt=2,
        file_type="file",
        relative_file_path="a.txt",
        version_id="v2",
        size=2,
        etag="etag-v2",
        recorded_at=at(9),
    )


def test_an_artifact_is_never_replaced_and_a_repeated_write_is_no_error(
    store: ExecutionStore,
) -> None:
    first = written(a_file("a.txt", "v1", 1))
    store.add_step_outputs(first)

    store.add_step_outputs(first)  # a callback delivered twice
    store.add_step_outputs(written(a_file("a.txt", "other", 1), a_file("c.txt", "c1", 1)))

    assert artifacts(store) == [(1, "a.txt", "v1"), (1, "c.txt", "c1")]
    # the seed row is the step's latest all the same
    assert {f.version_id for f in store.list_output_files([ROOT])} == {"other", "c1"}


def test_a_steps_artifacts_page_by_attempt_as_numbers_sort(store: ExecutionStore) -> None:
    for attempt in (10, 2, 9, 1):
        store.add_step_outputs(written(a_file("a.txt", f"v{attempt}", attempt)))

    first = store.list_rows(RowCollection.ARTIFACTS, ROOT, None, 3)
    rest = store.list_rows(RowCollection.ARTIFACTS, ROOT, first[-1].row_key, 3)

    rows = [row for row in (*first, *rest) if isinstance(row, Artifact)]
    assert [row.version_id for row in rows] == ["v1", "v2", "v9", "v10"]
    assert [row.row_key.split(":")[0] for row in rows] == ["000001", "000002", "000009", "000010"]
    assert store.list_rows(RowCollection.ARTIFACTS, step_id(RUN, 1), None, 3) == []


def test_many_files_in_one_write_each_keep_an_artifact(store: ExecutionStore) -> None:
    # more than one DynamoDB transaction holds: the write goes in several
    files = [a_file(f"part-{n:03d}.bin", f"v{n}", 1) for n in range(130)]

    store.add_step_outputs(written(*files))

    assert len(store.list_output_files([ROOT])) == 130
    assert len(store.list_rows(RowCollection.ARTIFACTS, ROOT, None, 1000)) == 130


def test_a_row_recorded_before_attempts_were_named_reads_back_without_one(
    store: ExecutionStore,
) -> None:
    store.add_step_outputs(
        StepOutputs(files=(a_file("a.txt", "v1", 1).model_copy(update={"attempt": None}),))
    )

    (row,) = store.list_output_files([ROOT])

    assert row.attempt is None
    assert artifacts(store) == []


# -- a SQLite file made before artifacts were kept --------------------------------------------

ARTIFACTS_TABLE = TableNames().get_table_name(ResourceKeys.ARTIFACTS)


def _without_artifacts_table(database: SqliteDatabase) -> None:
    with database.write() as connection:
        connection.execute(f'DROP TABLE "{ARTIFACTS_TABLE}"')


def _tables(database: SqliteDatabase) -> set[str]:
    with database.read() as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in rows}


def test_an_older_sqlite_file_gets_the_artifacts_table_on_first_use(
    sqlite_file_execution_store: SqliteExecutionStore, sqlite_file_database: SqliteDatabase
) -> None:
    write_launch(sqlite_file_execution_store, a_launch(RUN))
    _without_artifacts_table(sqlite_file_database)
    older = SqliteExecutionStore(sqlite_file_database, TableNames())

    assert older.get_details(RUN).steps[0].outputs.artifacts == ()
    older.add_step_outputs(written(a_file("a.txt", "v1", 1)))

    assert artifacts(older) == [(1, "a.txt", "v1")]
    assert older.delete_execution(RUN) is True


def test_an_older_sqlite_file_gets_the_artifacts_table_from_tables_create(
    sqlite_file_execution_store: SqliteExecutionStore, sqlite_file_database: SqliteDatabase
) -> None:
    write_launch(sqlite_file_execution_store, a_launch(RUN))
    sqlite_file_execution_store.add_step_outputs(written(a_file("a.txt", "v1", 1)))
    _without_artifacts_table(sqlite_file_database)
    assert ARTIFACTS_TABLE not in _tables(sqlite_file_database)

    SqliteExecutionStore(sqlite_file_database, TableNames()).create_tables()  # wfx tables create

    assert ARTIFACTS_TABLE in _tables(sqlite_file_database)
    assert [f.version_id for f in sqlite_file_execution_store.list_output_files([ROOT])] == ["v1"]


# -- through the step callbacks: a retry, then a redrive, rewriting the same path -------------


class Steps:
    """The tracking use cases on the contract's store, over a versioned output folder."""

    def __init__(self, store: ExecutionStore, root: Path) -> None:
        clock = SystemClock()
        self.objects = FilesystemObjectStore(root)
        self.start = StartStep(store, clock)
        self.retry = RetryStep(store, clock, objects=self.objects)
        self.finish = FinishStep(store, self.objects, clock)

    def write(self, path: str, body: str) -> None:
        self.objects.put_bytes(execution_output_prefix(RUN) + path, body.encode())

    def started(self) -> None:
        self.start.execute(StartStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT))

    def retried(self) -> None:
        command = RetryStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT, error="x")
        assert self.retry.execute(command) is not None

    def finished(self, status: StepStatus) -> None:
        self.finish.execute(
            FinishStepCommand(workflow_execution_id=RUN, pipeline_execution_id=ROOT, status=status)
        )


def bodies(store: ExecutionStore, objects: FilesystemObjectStore) -> list[tuple[int, bytes]]:
    key = execution_output_prefix(RUN) + "a.txt"
    return [
        (row.attempt, objects.read_bytes(key, row.version_id))
        for row in store.list_rows(RowCollection.ARTIFACTS, ROOT, None, 10)
        if isinstance(row, Artifact)
    ]


def test_a_retried_step_rewriting_a_file_keeps_both_attempts_artifacts(
    store: ExecutionStore, tmp_path: Path
) -> None:
    steps = Steps(store, tmp_path)
    steps.started()
    steps.write("a.txt", "attempt one")
    steps.retried()
    steps.write("a.txt", "attempt two")

    steps.finished(StepStatus.SUCCEEDED)

    (seed_row,) = store.list_output_files([ROOT])
    assert seed_row.attempt == 2
    assert bodies(store, steps.objects) == [(1, b"attempt one"), (2, b"attempt two")]


def test_a_redriven_step_rewriting_a_file_keeps_both_attempts_artifacts(
    store: ExecutionStore, tmp_path: Path
) -> None:
    steps = Steps(store, tmp_path)
    steps.started()
    steps.write("a.txt", "attempt one")
    steps.finished(StepStatus.FAILED)
    failed = store.get_step(ROOT)  # reset to NEW as RedriveExecution does
    fresh = failed.model_copy(update={"status": StepStatus.NEW, "stop_date": None, "error": None})
    assert step_row_saved(store, fresh, expected=frozenset({StepStatus.FAILED}))
    steps.started()
    steps.write("a.txt", "attempt two")

    steps.finished(StepStatus.SUCCEEDED)

    (seed_row,) = store.list_output_files([ROOT])
    assert seed_row.attempt == 2
    assert bodies(store, steps.objects) == [(1, b"attempt one"), (2, b"attempt two")]
