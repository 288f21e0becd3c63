"""`ExecutionQueries` on SQLite: pages of runs, a run's details and rows, access facts."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TypeVar

from adapters.output_records import (
    parse_artifact_record,
    parse_output_file_record,
    parse_output_metadata_record,
    parse_output_result_record,
    parse_step_log_record,
)
from adapters.records import ALL_LIST_PARTITION, Item
from adapters.row_collections import ROW_PARSERS
from adapters.run_records import (
    execution_details_of,
    listed_executions,
    parse_execution_configuration_record,
    parse_execution_record,
)
from adapters.sqlite.access_facts import read_access_facts
from adapters.sqlite.execution_sql import EXECUTION_ID, STEP_HEAD_VALUES, STEP_ID
from adapters.sqlite.paging import decode_token, encode_token
from adapters.sqlite.statements import TableSql, chunks, load_item
from adapters.sqlite.store_base import SqliteStoreBase
from adapters.step_heads import shown_run_steps
from adapters.step_records import (
    STEP_HEAD_PRESENCE,
    parse_step_input_configuration_record,
    parse_step_input_metadata_record,
    parse_task_execution_record,
)
from application.ports.executions import AssetDirection, ExecutionRef, ListScope, Row, RowCollection
from domain.authorization import AccessFacts, AssetKey
from domain.errors import ExecutionNotFoundError, UnreadableRowError
from domain.execution import (
    ExecutionConfiguration,
    ExecutionDetails,
    PipelineExecution,
    StepDetails,
    StepHead,
    StepOutputs,
    UnreadableRow,
    WorkflowExecution,
)
from domain.paging import Page

T = TypeVar("T")


class SqliteExecutionQueries(SqliteStoreBase):
    """ExecutionQueries on SQLite."""

    def get_executions(self, refs: Sequence[ExecutionRef]) -> list[WorkflowExecution]:
        ids = list(dict.fromkeys(ref.workflow_execution_id for ref in refs))
        if not ids:
            return []
        with self._database.read() as connection:
            items = self._items_in(connection, self._sql.executions, EXECUTION_ID, ids)
        found = {
            execution.workflow_execution_id: execution
            for execution in listed_executions(self._whole(item) for item in items)
        }
        return [
            found[ref.workflow_execution_id] for ref in refs if ref.workflow_execution_id in found
        ]

    def access_facts(self, workflow_execution_ids: Sequence[str]) -> dict[str, AccessFacts]:
        ids = list(dict.fromkeys(workflow_execution_ids))
        if not ids:
            return {}
        with self._database.read() as connection:  # one snapshot for the four queries
            return read_access_facts(connection, self._sql, ids)

    def run_assets(
        self, workflow_execution_id: str
    ) -> tuple[tuple[AssetKey, ...], AssetKey | None]:
        # the facts' one read: on SQLite the steps' metadata is one join more, no request
        facts = self.access_facts([workflow_execution_id]).get(workflow_execution_id)
        return ((), None) if facts is None else (facts.read_assets, facts.written_asset)

    def get_configuration(self, workflow_execution_id: str) -> ExecutionConfiguration | None:
        with self._database.read() as connection:
            row = connection.execute(
                self._sql.configuration_of_execution, (workflow_execution_id,)
            ).fetchone()
        return parse_execution_configuration_record(self._whole(load_item(row[0]))) if row else None

    def list_rows(
        self, collection: RowCollection, partition: str, after: str | None, limit: int
    ) -> list[Row]:
        if collection in (RowCollection.ARTIFACTS, RowCollection.INPUTS):
            self._ensure_attempts_table()
        with self._database.read() as connection:
            rows = self._page(connection, collection, partition, after, limit)
        parse = ROW_PARSERS[collection]
        return [parse(self._whole(load_item(text))) for (text,) in rows]

    def _page(
        self,
        connection: sqlite3.Connection,
        collection: RowCollection,
        partition: str,
        after: str | None,
        limit: int,
    ) -> list[tuple[str]]:
        """A partition's items after `after` (the first `limit`; -1: all), in the collection's
        table, else (it holds none of the partition) in its fallback's."""
        sql = self._sql
        continued = after is not None
        parameters = (partition, limit) if after is None else (partition, after, limit)
        rows = connection.execute(sql.row_page(collection, continued), parameters).fetchall()
        fallback = sql.fallback_page(collection, continued)
        if rows or fallback is None:
            return rows
        if (
            continued
            and connection.execute(sql.row_page(collection, False), (partition, 1)).fetchone()
        ):
            return []  # the end of the collection's own rows
        return connection.execute(fallback, parameters).fetchall()

    def get_details(
        self,
        workflow_execution_id: str,
        include_outputs: bool = True,
        row_limit: int | None = None,
        leave_out_unreadable: bool = False,
        detailed_steps: int | None = None,
    ) -> ExecutionDetails:
        sql = self._sql
        key = (workflow_execution_id,)
        page_limit = -1 if row_limit is None else row_limit
        left_out: list[UnreadableRow] | None = [] if leave_out_unreadable else None
        self._ensure_attempts_table()  # the resolved inputs' table too
        with self._database.read() as connection:  # one read transaction: one snapshot
            row = connection.execute(sql.execution_by_id, key).fetchone()
            if row is None:
                raise ExecutionNotFoundError(workflow_execution_id)
            configuration = connection.execute(sql.configuration_of_execution, key).fetchone()
            inputs = self._page(
                connection, RowCollection.INPUTS, workflow_execution_id, None, page_limit
            )
            selections = self._page(
                connection, RowCollection.SELECTIONS, workflow_execution_id, None, page_limit
            )
            heads: tuple[StepHead, ...] | None = None
            if detailed_steps is None:
                step_rows = self._steps(connection, workflow_execution_id, left_out)
            else:
                step_rows, heads = self._shown_steps(
                    connection, workflow_execution_id, detailed_steps, left_out
                )
            steps = self._step_details(connection, step_rows, include_outputs, row_limit, left_out)
        return execution_details_of(
            parse_execution_record(self._whole(load_item(row[0]))),
            self._whole(load_item(configuration[0])) if configuration else None,
            (load_item(text) for (text,) in inputs),
            (load_item(text) for (text,) in selections),
            steps,
            heads,
            left_out,
        )

    def _shown_steps(
        self,
        connection: sqlite3.Connection,
        workflow_execution_id: str,
        shown: int,
        left_out: list[UnreadableRow] | None,
    ) -> tuple[list[PipelineExecution], tuple[StepHead, ...]]:
        """adapters.step_heads.shown_run_steps: every step row's head attributes (SQLite's JSON
        reads them, Python parses none of the rest), the whole rows of the steps shown."""
        values = len(STEP_HEAD_VALUES)
        head_items = []
        for row in connection.execute(self._sql.step_heads_of_execution, (workflow_execution_id,)):
            # a null attribute reads as an absent one (item.get), but where its presence counts
            item: Item = {STEP_ID: row[0]}
            item.update(
                (n, v) for n, v in zip(STEP_HEAD_VALUES, row[1:], strict=False) if v is not None
            )
            for name, kind in zip(STEP_HEAD_PRESENCE, row[1 + values :], strict=True):
                if kind == "null":
                    item[name] = None
            head_items.append(item)

        def whole_items(ids: list[str]) -> dict[str, Item]:
            found: dict[str, Item] = {}
            for chunk in chunks(ids):
                statement = self._sql.steps_by_id(len(chunk))
                for step_id, text in connection.execute(statement, (workflow_execution_id, *chunk)):
                    found[step_id] = self._whole(load_item(text))
            return found

        return shown_run_steps(head_items, whole_items, shown, left_out)

    def _step_details(
        self,
        connection: sqlite3.Connection,
        steps: Sequence[PipelineExecution],
        include_outputs: bool,
        row_limit: int | None,
        left_out: list[UnreadableRow] | None = None,
    ) -> tuple[StepDetails, ...]:
        """Each step with its input configuration and metadata and, `include_outputs`, its
        outputs and attempts; one query per table for all the run's steps."""
        sql = self._sql
        ids = [step.pipeline_execution_id for step in steps]

        def per_step(
            table: TableSql, parse: Callable[[Item], T], bounded: bool = True
        ) -> dict[str, list[T]]:
            grouped: dict[str, list[T]] = defaultdict(list)
            limit = row_limit if bounded else None
            for item in self._items_in(connection, table, STEP_ID, ids, limit):
                try:
                    grouped[item[STEP_ID]].append(parse(self._whole(item)))
                except UnreadableRowError as error:
                    if left_out is None:
                        raise
                    left_out.append(UnreadableRow.of(error))
            return grouped

        step_configurations = per_step(
            sql.step_configurations, parse_step_input_configuration_record, bounded=False
        )
        step_metadata = per_step(sql.step_metadata, parse_step_input_metadata_record)
        if include_outputs:
            files = per_step(sql.output_files, parse_output_file_record)
            metadata = per_step(sql.output_metadata, parse_output_metadata_record)
            results = per_step(sql.output_results, parse_output_result_record)
            logs = per_step(sql.logs, parse_step_log_record)
            attempts = per_step(sql.attempts, parse_task_execution_record, bounded=False)
            artifacts = per_step(sql.artifacts, parse_artifact_record)
        no_outputs = StepOutputs()
        return tuple(
            StepDetails(
                step=step,
                configuration=next(iter(step_configurations.get(pid, ())), None),
                input_metadata=tuple(step_metadata.get(pid, ())),
                outputs=StepOutputs(
                    files=tuple(files.get(pid, ())),
                    metadata=tuple(metadata.get(pid, ())),
                    results=tuple(results.get(pid, ())),
                    logs=tuple(logs.get(pid, ())),
                    artifacts=tuple(sorted(artifacts.get(pid, ()), key=lambda a: a.row_key)),
                )
                if include_outputs
                else no_outputs,
                attempts=tuple(sorted(attempts.get(pid, ()), key=lambda a: a.attempt))
                if include_outputs
                else (),
            )
            for step in steps
            for pid in (step.pipeline_execution_id,)
        )

    # -- newest-first lists -------------------------------------------------------------------

    def list_executions_sql(self, scope: ListScope, continued: bool) -> str:
        """The statement behind one page (shown to EXPLAIN QUERY PLAN by the tests)."""
        return self._sql.list_executions(scope, continued)

    def asset_execution_refs_sql(self, direction: AssetDirection, continued: bool) -> str:
        return self._sql.asset_execution_refs(direction, continued)

    def list_executions(
        self, scope: ListScope, partition: str | None, limit: int, token: str | None
    ) -> Page[WorkflowExecution]:
        # ListExecutions has checked the arguments: limit in bounds, a non-empty partition
        if scope is ListScope.ALL:
            partition = ALL_LIST_PARTITION
        position = decode_token(token) if token is not None else ()
        sql = self._sql.list_executions(scope, continued=bool(position))
        with self._database.read() as connection:
            # One row past the page says whether another page exists.
            rows = connection.execute(sql, (partition, *position, limit + 1)).fetchall()
        page = rows[:limit]
        next_token = encode_token(page[-1][0], page[-1][1]) if len(rows) > limit else None
        return Page(
            items=listed_executions(self._whole(load_item(text)) for (_, _, text) in page),
            next_token=next_token,
        )

    def asset_execution_refs(
        self, asset_key: str, direction: AssetDirection, older_than: ExecutionRef | None, limit: int
    ) -> list[ExecutionRef]:
        position: tuple[str, ...] = ()
        if older_than is not None:
            position = (older_than.execution_start_date, older_than.workflow_execution_id)
        sql = self._sql.asset_execution_refs(direction, continued=bool(position))
        with self._database.read() as connection:
            rows = connection.execute(sql, (asset_key, *position, limit)).fetchall()
        return [
            ExecutionRef(date, execution_id, workflow_key)
            for date, execution_id, workflow_key in rows
        ]
