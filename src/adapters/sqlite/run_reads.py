"""The reads of a run and its steps on SQLite: the main row, the run, its steps and attempts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

from adapters.output_records import parse_output_file_record
from adapters.readable_reads import AttemptReads, StepReads
from adapters.records import readable_rows
from adapters.registration import registration_version
from adapters.run_records import parse_execution_record
from adapters.sqlite.execution_sql import STEP_ID
from adapters.sqlite.statements import load_item
from adapters.sqlite.store_base import SqliteStoreBase
from adapters.step_records import parse_pipeline_execution_record, parse_task_execution_record
from domain.attempts import TaskExecution
from domain.errors import ExecutionNotFoundError, PipelineExecutionNotFoundError
from domain.execution import OutputFile, PipelineExecution, UnreadableRow, WorkflowExecution
from domain.statuses import StepStatus

if TYPE_CHECKING:
    from domain.run import Run
    from domain.run_write import VersionedStep


class SqliteRunReads(SqliteStoreBase, StepReads, AttemptReads):
    """The run and step reads (RunStore, StepRunStore) on SQLite."""

    def _read_attempts(
        self, pipeline_execution_ids: Iterable[str], left_out: list[UnreadableRow] | None
    ) -> list[TaskExecution]:
        ids = list(dict.fromkeys(pipeline_execution_ids))
        if not ids:
            return []
        self._ensure_attempts_table()
        with self._database.read() as connection:
            return self._attempts_in(connection, ids, left_out)

    def _attempts_in(
        self, connection: sqlite3.Connection, ids: list[str], left_out: list[UnreadableRow] | None
    ) -> list[TaskExecution]:
        if not ids:
            return []
        items = self._items_in(connection, self._sql.attempts, STEP_ID, ids)
        position = {step_id: n for n, step_id in enumerate(ids)}
        attempts = readable_rows(
            parse_task_execution_record, (self._whole(item) for item in items), left_out
        )
        return sorted(attempts, key=lambda a: (position[a.pipeline_execution_id], a.attempt))

    def list_steps_and_running_attempts(
        self, workflow_execution_id: str
    ) -> tuple[list[PipelineExecution], list[TaskExecution]]:
        self._ensure_attempts_table()
        with self._database.read() as connection:  # one snapshot, one transaction
            steps = self._steps(connection, workflow_execution_id)
            running = [s.pipeline_execution_id for s in steps if s.status is StepStatus.RUNNING]
            return steps, self._attempts_in(connection, running, None)

    def get_execution(self, workflow_execution_id: str) -> WorkflowExecution:
        with self._database.read() as connection:
            row = connection.execute(self._sql.execution_by_id, (workflow_execution_id,)).fetchone()
        if row is None:
            raise ExecutionNotFoundError(workflow_execution_id)
        return parse_execution_record(self._whole(load_item(row[0])))

    def get_run(self, workflow_execution_id: str, pipeline_execution_id: str | None = None) -> Run:
        from domain.run import Run  # the run lifecycle, imported by what moves a run, not a list

        self._ensure_attempts_table()
        with self._database.read() as connection:  # one snapshot
            row = connection.execute(self._sql.execution_by_id, (workflow_execution_id,))
            found = row.fetchone()
            if found is None:
                raise ExecutionNotFoundError(workflow_execution_id)
            steps = self._steps(connection, workflow_execution_id)
            if pipeline_execution_id is not None:
                steps = [s for s in steps if s.pipeline_execution_id == pipeline_execution_id]
            ids = [step.pipeline_execution_id for step in steps]
            attempts = self._items_in(connection, self._sql.attempts, STEP_ID, ids)
        position = {step_id: n for n, step_id in enumerate(ids)}
        return Run(
            execution=parse_execution_record(self._whole(load_item(found[0]))),
            steps=tuple(steps),
            attempts=tuple(
                sorted(
                    (parse_task_execution_record(self._whole(item)) for item in attempts),
                    key=lambda a: (position[a.pipeline_execution_id], a.attempt),
                )
            ),
        )

    def get_versioned_step(
        self, workflow_execution_id: str, pipeline_execution_id: str
    ) -> VersionedStep:
        from domain.run_write import VersionedStep

        key = (pipeline_execution_id, workflow_execution_id)
        with self._database.read() as connection:
            row = connection.execute(self._step_by_key, key).fetchone()
        if row is None:
            raise PipelineExecutionNotFoundError(pipeline_execution_id, workflow_execution_id)
        item = load_item(row[0])
        step = parse_pipeline_execution_record(self._whole(item))
        return VersionedStep(step, registration_version(item))

    def get_step(self, pipeline_execution_id: str) -> PipelineExecution:
        with self._database.read() as connection:
            row = connection.execute(self._sql.step_by_id, (pipeline_execution_id,)).fetchone()
        if row is None:
            raise PipelineExecutionNotFoundError(pipeline_execution_id)
        return parse_pipeline_execution_record(self._whole(load_item(row[0])))

    def _read_steps(
        self, workflow_execution_id: str, left_out: list[UnreadableRow] | None
    ) -> list[PipelineExecution]:
        with self._database.read() as connection:
            return self._steps(connection, workflow_execution_id, left_out)

    def list_output_files(self, pipeline_execution_ids: Iterable[str]) -> list[OutputFile]:
        ids = list(dict.fromkeys(pipeline_execution_ids))
        if not ids:
            return []
        with self._database.read() as connection:
            items = self._items_in(connection, self._sql.output_files, STEP_ID, ids)
        return [parse_output_file_record(item) for item in items]
