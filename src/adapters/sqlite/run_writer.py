"""`RunWriter` on SQLite: a run's write in one transaction, its outputs, its permanent delete."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from adapters.output_records import (
    build_artifact_record,
    build_output_file_record,
    build_output_metadata_record,
    build_output_result_record,
    build_step_log_record,
)
from adapters.records import Item, format_date
from adapters.registration import REGISTRATION_VERSION, step_lists_attributes
from adapters.run_records import (
    build_execution_configuration_record,
    build_execution_input_record,
    build_execution_record,
    build_input_selection_record,
    execution_changed_attributes,
    lease_guard_values,
    parse_execution_record,
)
from adapters.sqlite.database import Statements
from adapters.sqlite.execution_sql import EXECUTION_ID, STEP_ID, GuardedRow
from adapters.sqlite.statements import TableSql, chunks, dump_json, json_path, load_item
from adapters.sqlite.store_base import SqliteStoreBase
from adapters.step_records import (
    build_pipeline_execution_record,
    build_step_input_configuration_record,
    build_step_input_metadata_record,
    build_task_execution_record,
    step_move_attributes,
    step_move_removals,
    step_mutable_attributes,
    task_execution_close_of,
)
from adapters.tables import RUN_ROW_TABLES, STEP_ROW_TABLES, ResourceKeys
from application.ports.executions import Refused
from domain.attempts import TaskExecution
from domain.errors import (
    ExecutionAlreadyExistsError,
    ExecutionNotFoundError,
    ExecutionStillRunningError,
    PipelineExecutionNotFoundError,
)
from domain.events import NewEvent
from domain.execution import LaunchRecords, StepOutputs, WorkflowExecution
from domain.statuses import OPEN_EXECUTION_STATUSES, StepStatus, is_terminal

if TYPE_CHECKING:  # a list writes no run: it imports none of the run lifecycle's writes
    from domain.costs import CostLedgerEntry
    from domain.run import RunChange, StepMove
    from domain.run_write import RunWrite, StepLists, StepRow

_OPEN_RUN = frozenset(status.value for status in OPEN_EXECUTION_STATUSES)


def _guard_parameters(change: RunChange) -> tuple[str | None, ...]:
    """The guard's parameters in the order of ExecutionSql's guard clauses."""
    guard = change.guard
    parameters: list[str | None] = []
    if guard.lease_held_by is not None:
        parameters.append(guard.lease_held_by)
    if guard.lease_as_read:
        parameters.extend(lease_guard_values(change.before))
    if guard.lease_takeable is not None:
        owner, now = guard.lease_takeable
        parameters.extend((owner, format_date(now), guard.handover_prefix, guard.handover_prefix))
    return tuple(parameters)


_RUNNING = frozenset({StepStatus.RUNNING})


def _open_by_its_change(write: RunWrite) -> bool:
    """Whether the write's change holds only while the run is open with no abort requested:
    the guard its moves' `while_open` asks, on the same row before the change (inside BEGIN
    IMMEDIATE only this write changes it, and its moves come before its change), so it decides
    theirs too. A write with an approval held while the run is open reads the run as before
    (that guard is asked where the approval is written)."""
    change, approval = write.change, write.approval
    return (
        change is not None
        and change.guard.not_stopping
        and change.guard.statuses <= OPEN_EXECUTION_STATUSES
        and (approval is None or not approval.while_open)
    )


@functools.cache
def _texts(statuses: frozenset[StrEnum]) -> tuple[str, ...]:
    """A guard's statuses as its IN list binds them (in any order): a write names one of a few
    sets, each turned into texts once."""
    return tuple(map(str, statuses))


_InsertCostEntries = Callable[[Statements, TableSql, "Iterable[CostLedgerEntry]"], None]


# a write's runs whose main row it has read: whether each is open (for its moves' guard)
_RunStates = dict[str, bool]


class _Refused(Exception):
    """A guard of a run's write failed: raised inside its transaction to roll it back;
    `main_row` the main row as read in refusing, when a guard on it refused."""

    def __init__(self, main_row: WorkflowExecution | None = None) -> None:
        super().__init__()
        self.main_row = main_row


@functools.cache
def _cost_ledger() -> tuple[_InsertCostEntries, type[Exception]]:
    """The ledger's insert and its taken-id error, imported by the first move with a cost (a
    cold list, which appends none, does without them) and kept: not an import a move."""
    from adapters.sqlite.cost_ledger import insert_cost_entries
    from domain.costs import CostEntryExistsError

    return insert_cost_entries, CostEntryExistsError


class SqliteRunWriter(SqliteStoreBase):
    """RunWriter on SQLite, with the other writes of a run (its outputs, its delete)."""

    def _launch_in(
        self,
        statements: Statements,
        records: LaunchRecords,
        events: Sequence[NewEvent],
        attempts: Sequence[TaskExecution] = (),
    ) -> None:
        """A new run's rows and its first events inside the caller's write transaction;
        ExecutionAlreadyExistsError (the caller's write rolled back) when the id is taken."""
        sql = self._sql
        execution_id = records.execution.workflow_execution_id
        main_record = build_execution_record(records.execution)
        main_row = sql.executions.row(main_record)
        supporting = (
            (sql.inputs, [build_input_selection_record(row) for row in records.selections]),
            (
                sql.tables[ResourceKeys.RESOLVED_INPUT_FILES],
                [build_execution_input_record(row) for row in records.inputs],
            ),
            (sql.configuration, [build_execution_configuration_record(records.configuration)]),
            (sql.steps, [build_pipeline_execution_record(step) for step in records.steps]),
            (
                sql.step_configurations,
                [build_step_input_configuration_record(c) for c in records.step_configurations],
            ),
            (
                sql.step_metadata,
                [build_step_input_metadata_record(m) for m in records.step_metadata],
            ),
        )
        self._bodies.put([main_record, *(item for _, items in supporting for item in items)])
        inserted = statements.execute(sql.insert_execution_if_new, (*main_row, execution_id))
        if inserted.rowcount == 0:
            raise ExecutionAlreadyExistsError(execution_id)  # leaving write() rolls back
        # a run inserted just now has no events: its first is number 1, with no read for it
        # (a leftover numbered row would fail the insert, and the launch with it)
        self._unit_of_work.append_in(statements, execution_id, events, last=0)
        for table, items in supporting:
            if items:
                # A put, as in the DynamoDB transaction: the row set is the launch's own.
                statements.executemany(table.upsert, table.rows(items))
        for attempt in attempts:
            # a new run's step holds no attempt: one there is a leftover of a run by this id
            if not self._insert_attempt(statements, attempt):
                raise ExecutionAlreadyExistsError(execution_id)

    def _change_main_row_in(self, statements: Statements, change: RunChange) -> None:
        """The main row's change inside the caller's write transaction (a run's write): what
        `change.after` changes from `change.before`, while the stored row meets its guard;
        _Refused with the row as stored when it does not (read in place of a look that it is
        there: no statement more)."""
        execution, guard = change.after, change.guard
        values, removed = execution_changed_attributes(change.before, execution)
        self._bodies.put((values,))
        sql, parameters = self._sql.execution_update(values, removed, guard)
        key = (execution.workflow_execution_id, execution.workflow_key)
        statuses = _texts(guard.statuses)
        changed = statements.execute(
            sql, (*parameters, *key, *statuses, *_guard_parameters(change))
        ).rowcount
        if changed:
            return
        found = statements.execute(self._sql.execution_by_id, key[:1]).fetchone()
        stored = None if found is None else parse_execution_record(self._whole(load_item(found[0])))
        if stored is None or stored.workflow_key != execution.workflow_key:
            raise ExecutionNotFoundError(execution.workflow_execution_id)
        raise _Refused(stored)

    def commit(self, write: RunWrite) -> bool | Refused:
        """RunWriter: the whole write in one transaction, rolled back when a guard refuses."""
        if not self._write_tables_ready:  # the attempts, cost, approval and event tables are newer
            self._ensure_attempts_table()
            self._unit_of_work.ensure_table()
            self._write_tables_ready = True
        run_id = write.workflow_execution_id
        logs = [build_step_log_record(log) for log in write.step_logs] if write.step_logs else ()
        if logs:  # a run's end: its steps' summaries (no other write has any)
            self._bodies.put(logs)
        # every statement of the write on its transaction's cursor (Transaction.cursor)
        transaction = self._database.write()
        if write.launch is not None:  # a new run: nothing to guard but its id
            with transaction:
                statements = transaction.cursor
                launch = write.launch
                rerun_of = launch.rerun_of
                if rerun_of is not None and (
                    statements.execute(self._sql.run_state, (rerun_of,)).fetchone() is None
                ):
                    raise ExecutionNotFoundError(rerun_of)
                self._launch_in(statements, launch.records, write.events, launch.attempts)
            return True
        try:
            with transaction:
                statements = transaction.cursor
                # the moves first: their run-is-open guard is on the row before the change
                runs: _RunStates = {}
                if _open_by_its_change(write):
                    # the change holds only on that row, checked in its own UPDATE (as DynamoDB
                    # joins the moves' guard to it): no read of the run for the moves
                    runs[run_id] = True
                for move in write.moves:
                    self._move_in(statements, move, runs)
                for row in write.step_rows:
                    self._step_row_in(statements, row)
                if write.step_lists is not None:
                    self._step_lists_in(statements, write.step_lists)
                if write.change is not None:
                    self._change_main_row_in(statements, write.change)
                elif run_id not in runs and (
                    statements.execute(self._sql.run_state, (run_id,)).fetchone() is None
                ):  # (a move that held while the run is open has seen its main row)
                    raise ExecutionNotFoundError(run_id)
                if write.approval is not None and not (
                    (not write.approval.while_open or self._run_open_in(statements, run_id, runs))
                    and self._approval_rows.write(statements, write.approval)
                ):
                    raise _Refused
                if logs:
                    statements.executemany(self._sql.logs.upsert, self._sql.logs.rows(logs))
                self._unit_of_work.append_in(statements, run_id, write.events)
        except _Refused as refused:
            return Refused(refused.main_row)  # leaving write() with it rolled everything back
        return True

    def _step_row_in(self, statements: Statements, row: StepRow) -> None:
        step = row.step
        values, removed = step_mutable_attributes(step)
        self._bodies.put((values,))
        key = (step.pipeline_execution_id, step.workflow_execution_id)
        changed = self._conditional_update(
            statements, self._sql.step_status, key, values, removed, row.expected
        )
        if changed is None:
            raise PipelineExecutionNotFoundError(step.pipeline_execution_id)
        if not changed:
            raise _Refused

    def _step_lists_in(self, statements: Statements, lists: StepLists) -> None:
        """A step's lists, while its row is at the version read; the version moves on."""
        values, removed = step_lists_attributes(lists)
        self._bodies.put([values])
        step = lists.step
        key = (step.pipeline_execution_id, step.workflow_execution_id)
        statement = self._lists_update(tuple(values), removed)
        versions = (lists.version + 1, *key, lists.version)
        if statements.execute(statement, (*map(dump_json, values.values()), *versions)).rowcount:
            return
        if statements.execute(self._sql.step_status.exists, key).fetchone() is None:
            raise PipelineExecutionNotFoundError(*key)
        raise _Refused  # another write of the row came between

    def _lists_update(self, names: tuple[str, ...], removed: tuple[str, ...]) -> str:
        statement = self._lists_updates.get((names, removed))
        if statement is None:
            steps, version = self._sql.steps, json_path(REGISTRATION_VERSION)
            sets = "".join(f"{json_path(name)}, json(?), " for name in names)
            item = f"json_set(item, {sets}{version}, ?)"
            if removed:
                item = f"json_remove({item}, {', '.join(map(json_path, removed))})"
            statement = self._lists_updates[(names, removed)] = (
                f"UPDATE {steps.name} SET item = {item} WHERE {self._step_key} "
                f"AND coalesce(json_extract(item, {version}), 0) = ?"
            )
        return statement

    def _move_in(self, statements: Statements, move: StepMove, runs: _RunStates) -> None:
        """One step's move inside the caller's write; _Refused when any of its guards fails."""
        if not self._transition_in(statements, move, runs):
            raise _Refused
        if move.open_attempt is not None and not self._insert_attempt(
            statements, move.open_attempt
        ):
            raise _Refused
        if move.close_attempt is not None:
            values, removed = task_execution_close_of(move)
            if not self._close_attempt_in(
                statements, move.pipeline_execution_id, move.close_attempt, values, removed
            ):
                raise _Refused
        if move.cost_entries:
            insert_cost_entries, entry_taken = _cost_ledger()
            try:
                insert_cost_entries(
                    statements, self._sql.tables[ResourceKeys.COST_LEDGER], move.cost_entries
                )
            except entry_taken as exc:
                raise _Refused from exc

    def _transition_in(self, statements: Statements, move: StepMove, runs: _RunStates) -> bool:
        """The step's part of a move inside the caller's write: False (nothing written) when
        its status was not expected, or with `while_open` when its run has ended or is being
        aborted. The run's guard is read once per write (`runs`), not in each step's UPDATE:
        inside BEGIN IMMEDIATE only this write could change the main row, and its moves come
        before its change."""
        guarded = self._sql.step_status
        run_id, step_id = move.workflow_execution_id, move.pipeline_execution_id
        statuses = _texts(move.expected)
        key = (step_id, run_id)
        values = step_move_attributes(move)
        self._bodies.put((values,))
        if move.while_open and not self._run_open_in(statements, run_id, runs):
            # as if one statement held both guards: a missing step is said before a closed run
            if statements.execute(guarded.exists, key).fetchone() is None:
                raise PipelineExecutionNotFoundError(step_id, run_id)
            return False
        if values:
            update, parameters = self._sql.conditional_update(
                guarded, values, step_move_removals(values), len(statuses)
            )
            moved = statements.execute(update, (*parameters, *key, *statuses)).rowcount > 0
        else:  # the step stays as it is: its status must still be one expected
            select = self._sql.step_if_status(len(statuses))
            moved = statements.execute(select, (*key, *statuses)).fetchone() is not None
        if not moved and statements.execute(guarded.exists, key).fetchone() is None:
            # a run deleted meanwhile is said as DynamoDB's adapter says it: the run, not a step
            if statements.execute(self._sql.run_state, (run_id,)).fetchone() is None:
                raise ExecutionNotFoundError(run_id)
            raise PipelineExecutionNotFoundError(step_id, run_id)
        return moved

    def _run_open_in(self, statements: Statements, run_id: str, runs: _RunStates) -> bool:
        """Whether the run is open with no abort requested, read at most once per write;
        ExecutionNotFoundError when it has no main row."""
        is_open = runs.get(run_id)
        if is_open is None:
            state = statements.execute(self._sql.run_state, (run_id,)).fetchone()
            if state is None:
                raise ExecutionNotFoundError(run_id)
            is_open = runs[run_id] = state[0] in _OPEN_RUN and state[1] is None
        return is_open

    def _conditional_update(
        self,
        statements: Statements,
        guarded: GuardedRow,
        key: tuple[str | int, ...],
        values: Item,
        removed: tuple[str, ...],
        expected: frozenset[StrEnum],
    ) -> bool | None:
        """Inside the caller's write: True when the row changed, False when its status was not
        expected, None: no row."""
        statuses = _texts(expected)
        update, parameters = self._sql.conditional_update(guarded, values, removed, len(statuses))
        if statements.execute(update, (*parameters, *key, *statuses)).rowcount:
            return True
        return False if statements.execute(guarded.exists, key).fetchone() else None

    def add_step_outputs(self, outputs: StepOutputs) -> None:
        sql = self._sql
        tables = (
            (sql.output_files, [build_output_file_record(row) for row in outputs.files]),
            (sql.output_metadata, [build_output_metadata_record(row) for row in outputs.metadata]),
            (sql.output_results, [build_output_result_record(row) for row in outputs.results]),
            (sql.logs, [build_step_log_record(row) for row in outputs.logs]),
        )
        artifacts = [build_artifact_record(row) for row in outputs.artifacts]
        if not artifacts and not any(items for _, items in tables):
            return  # nothing to write: no write lock taken, no empty commit (a run's end asks)
        if artifacts:
            self._ensure_attempts_table()
        self._bodies.put(item for _, items in tables for item in items)
        with self._database.write() as connection:
            for table, items in tables:
                if items:
                    connection.executemany(table.upsert, table.rows(items))
            if artifacts:
                # an artifact is never replaced: a taken key keeps the attempt's first record
                connection.executemany(
                    sql.artifacts.insert_if_absent, sql.artifacts.rows(artifacts)
                )

    def delete_execution(self, workflow_execution_id: str, *, ended_only: bool = False) -> bool:
        # the migration's models are imported by a delete, not by every command opening the store
        from domain.migration import migrated_pipeline_execution_id

        self._ensure_attempts_table()
        self._unit_of_work.ensure_table()
        tables, run = self._sql.tables, [workflow_execution_id]
        with self._database.write() as connection:  # one transaction: all of it, or none
            if ended_only:
                # read under the write lock: no redrive can land between this and the deletes
                state = connection.execute(self._sql.run_state, run).fetchone()
                if state is not None and not is_terminal(state[0]):
                    raise ExecutionStillRunningError(workflow_execution_id, state[0])
            rows = connection.execute(self._sql.steps_of_execution, run)
            step_ids = [load_item(text)[STEP_ID] for (text,) in rows] or [
                # no step: a migrated run, its input files under the id the migration derives
                migrated_pipeline_execution_id(workflow_execution_id)
            ]
            for key in STEP_ROW_TABLES:
                for chunk in chunks(step_ids):
                    connection.execute(tables[key].delete_in(STEP_ID, len(chunk)), chunk)
            for key in RUN_ROW_TABLES:
                connection.execute(tables[key].delete_in(EXECUTION_ID, 1), run)
            main = tables[ResourceKeys.WORKFLOW_EXECUTIONS]
            deleted = connection.execute(main.delete_in(EXECUTION_ID, 1), run).rowcount
        return deleted > 0

    # -- attempts -----------------------------------------------------------------------------

    def _insert_attempt(self, statements: Statements, attempt: TaskExecution) -> bool:
        table = self._sql.attempts
        record = build_task_execution_record(attempt)
        self._bodies.put((record,))
        inserted = statements.execute(table.insert_if_absent, table.row(record))
        return bool(inserted.rowcount)

    def _close_attempt_in(
        self,
        statements: Statements,
        pipeline_execution_id: str,
        attempt: int,
        values: Item,
        removed: tuple[str, ...],
    ) -> bool:
        self._bodies.put((values,))
        changed = self._conditional_update(
            statements,
            self._sql.attempt_status,
            (pipeline_execution_id, attempt),
            values,
            removed,
            _RUNNING,
        )
        return bool(changed)
