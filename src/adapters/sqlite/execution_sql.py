"""Every statement of the SQLite execution store, rendered once per store."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from adapters.row_collections import ROW_FALLBACKS
from adapters.run_records import (
    ABORT_REQUESTED_DATE,
    FINISHING_DATE,
    LEASE_EXPIRES_DATE,
    LEASE_OWNER,
)
from adapters.sqlite.schema import SqliteSchema
from adapters.sqlite.statements import TableSql, dump_json, json_path, placeholders
from adapters.step_records import STEP_HEAD_ATTRIBUTES, STEP_HEAD_PRESENCE, STEP_STATUS
from adapters.tables import ResourceKeys
from application.ports.executions import AssetDirection, ListScope, RowCollection

if TYPE_CHECKING:
    from domain.run import RunGuard

START_DATE = "executionStartDate"
EXECUTION_ID = "workflowExecutionId"
STEP_ID = "pipelineExecutionId"
WORKFLOW_KEY = "workflowDatabaseId:workflowId"
# the head attributes step_heads_of_execution reads from the item: the id is a column
STEP_HEAD_VALUES = tuple(name for name in STEP_HEAD_ATTRIBUTES if name != STEP_ID)
# records.workflow_key_of in SQL: wfx's composite key, else VAMS's two plain ids, else ""
_WORKFLOW_KEY_OF_ROW = (
    f"COALESCE(json_extract(item, {json_path(WORKFLOW_KEY)}), "
    f"json_extract(item, {json_path('workflowDatabaseId')}) || ':' || "
    f"json_extract(item, {json_path('workflowId')}), '')"
)
ATTEMPT = "attempt"

# The index and its partition column behind each newest-first list.
LIST_PARTITIONS: Mapping[ListScope, tuple[str, str]] = {
    ListScope.ALL: ("WorkflowExecutionsByDateGSI", "allListPartition"),
    ListScope.WORKFLOW: ("WorkflowExecutionsByWorkflowGSI", WORKFLOW_KEY),
    ListScope.GROUP: ("WorkflowExecutionsByGroupGSI", "executionGroupId"),
}
ASSET_LINKS: Mapping[AssetDirection, tuple[ResourceKeys, str, str]] = {
    AssetDirection.INPUT: (
        ResourceKeys.WORKFLOW_EXECUTION_INPUTS,
        "WorkflowExecInputsByAssetGSI",
        "databaseId:assetId",
    ),
    AssetDirection.OUTPUT: (
        ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
        "WorkflowExecConfigByOutputAssetGSI",
        "outputDatabaseId:outputAssetId",
    ),
}


@dataclass(frozen=True)
class GuardedRow:
    """A row whose status guards its updates: its table, key columns and status attribute."""

    table: TableSql
    key_columns: tuple[str, ...]
    status_attribute: str
    exists: str  # SELECT 1 by the same key: tells "no such row" from "status not expected"


class ExecutionSql:
    """The fixed statements, plus the conditional updates rendered once per shape and cached."""

    def __init__(self, schema: SqliteSchema) -> None:
        self.schema = schema
        self.tables = {key: TableSql.render(table) for key, table in schema.tables.items()}
        self.executions = self.tables[ResourceKeys.WORKFLOW_EXECUTIONS]
        self.steps = self.tables[ResourceKeys.PIPELINE_EXECUTIONS]
        self.inputs = self.tables[ResourceKeys.WORKFLOW_EXECUTION_INPUTS]
        self.configuration = self.tables[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION]
        self.step_configurations = self.tables[ResourceKeys.PIPELINE_INPUT_CONFIGURATION]
        self.step_metadata = self.tables[ResourceKeys.PIPELINE_INPUT_METADATA]
        self.output_files = self.tables[ResourceKeys.PIPELINE_OUTPUT_FILES]
        self.output_metadata = self.tables[ResourceKeys.PIPELINE_OUTPUT_METADATA]
        self.output_results = self.tables[ResourceKeys.PIPELINE_OUTPUT_RESULTS]
        self.logs = self.tables[ResourceKeys.PIPELINE_LOGS]
        self.artifacts = self.tables[ResourceKeys.ARTIFACTS]
        self.attempts = self.tables[ResourceKeys.TASK_EXECUTIONS]
        self.rows = {
            RowCollection.INPUTS: self.tables[ResourceKeys.RESOLVED_INPUT_FILES],
            RowCollection.SELECTIONS: self.inputs,
            RowCollection.INPUT_METADATA: self.step_metadata,
            RowCollection.OUTPUT_FILES: self.output_files,
            RowCollection.OUTPUT_METADATA: self.output_metadata,
            RowCollection.OUTPUT_RESULTS: self.output_results,
            RowCollection.LOGS: self.logs,
            RowCollection.ARTIFACTS: self.artifacts,
        }
        self._render_row_statements()
        self._render_pages()
        self._updates: dict[tuple[object, ...], str] = {}

    def _render_row_statements(self) -> None:
        """The statements on one run's or one step's row."""
        main, steps, attempts = self.executions, self.steps, self.attempts
        main_columns = ", ".join(main.q(c) for c in (*main.columns, "item"))
        # A workflow-keyed table would accept the same id under another workflow; the id alone
        # names an execution, so the guard looks for the id, not the whole primary key.
        self.insert_execution_if_new = (
            f"INSERT INTO {main.name} ({main_columns}) "
            f"SELECT {placeholders(len(main.columns) + 1)} "
            f"WHERE NOT EXISTS (SELECT 1 FROM {main.name} WHERE {main.q(EXECUTION_ID)} = ?)"
        )
        self.execution_by_id = self._items_where(main, EXECUTION_ID) + " LIMIT 1"
        self.step_by_id = self._items_where(steps, STEP_ID) + " LIMIT 1"
        self.execution_status = self._guarded(main, (EXECUTION_ID, WORKFLOW_KEY), "executionStatus")
        self.step_status = self._guarded(steps, (STEP_ID, EXECUTION_ID), STEP_STATUS)
        self.attempt_status = self._guarded(attempts, (STEP_ID, ATTEMPT), "status")
        self.steps_of_execution = self._items_where(steps, EXECUTION_ID)
        # what a bounded read takes of every step (parse_step_head), the rows as the statement
        # above gives them: the id, each other head attribute's value, then the JSON type (NULL:
        # absent) of each whose presence counts
        heads = [f"json_extract(item, {json_path(name)})" for name in STEP_HEAD_VALUES]
        heads += [f"json_type(item, {json_path(name)})" for name in STEP_HEAD_PRESENCE]
        self.step_heads_of_execution = (
            f"SELECT {steps.q(STEP_ID)}, {', '.join(heads)} FROM {steps.name} "
            f"WHERE {steps.q(EXECUTION_ID)} = ?"
        )
        # Whether a step may move while the run is open: its status and abort request, by id;
        # read once per write (inside BEGIN IMMEDIATE the row cannot change but by that write).
        self.run_state = (
            f"SELECT json_extract(item, {json_path('executionStatus')}), "
            f"json_extract(item, {json_path(ABORT_REQUESTED_DATE)}) FROM {main.name} "
            f"WHERE {main.q(EXECUTION_ID)} = ? LIMIT 1"
        )
        self.configuration_of_execution = (
            self._items_where(self.configuration, EXECUTION_ID) + " LIMIT 1"
        )

    def _render_pages(self) -> None:
        """The page statements, each shape rendered once: a collection's rows, the lists of
        runs, an asset's runs."""
        self._row_pages = {
            (collection, continued): self._render_row_page(table, continued)
            for collection, table in self.rows.items()
            for continued in (False, True)
        }
        self._fallback_pages = {
            (collection, continued): self._render_row_page(self.tables[key], continued)
            for collection, key in ROW_FALLBACKS.items()
            for continued in (False, True)
        }
        self._lists = {
            (scope, continued): self._render_list(scope, continued)
            for scope in ListScope
            for continued in (False, True)
        }
        self._asset_refs = {
            (direction, continued): self._render_asset_refs(direction, continued)
            for direction in AssetDirection
            for continued in (False, True)
        }

    def row_page(self, collection: RowCollection, continued: bool) -> str:
        """Parameters: partition[, the sort key of the last row read], limit."""
        return self._row_pages[collection, continued]

    def fallback_page(self, collection: RowCollection, continued: bool) -> str | None:
        """row_page in the table read when the collection's own holds none of the partition."""
        return self._fallback_pages.get((collection, continued))

    @staticmethod
    def _render_row_page(table: TableSql, continued: bool) -> str:
        spec = table.table.spec
        assert spec.sort is not None  # every row collection's table has a sort key
        sort = table.q(spec.sort.name)
        after = f" AND {sort} > ?" if continued else ""
        # TEXT compares as bytes (BINARY collation): the order DynamoDB gives a string sort key
        return (
            f"SELECT item FROM {table.name} WHERE {table.q(spec.partition.name)} = ?{after} "
            f"ORDER BY {sort} LIMIT ?"
        )

    @staticmethod
    def first_rows_in(table: TableSql, count: int) -> str:
        """The first rows by sort key of each of `count` partitions; last parameter: how many."""
        spec = table.table.spec
        assert spec.sort is not None
        partition = table.q(spec.partition.name)
        return (
            f"SELECT item FROM (SELECT item, ROW_NUMBER() OVER (PARTITION BY {partition} "
            f"ORDER BY {table.q(spec.sort.name)}) AS n FROM {table.name} "
            f"WHERE {partition} IN ({placeholders(count)})) WHERE n <= ?"
        )

    def steps_by_id(self, count: int) -> str:
        """Parameters: the run's id, then `count` of its steps' ids; each row: id, item."""
        steps = self.steps
        return (
            f"SELECT {steps.q(STEP_ID)}, item FROM {steps.name} WHERE "
            f"{steps.q(EXECUTION_ID)} = ? AND {steps.q(STEP_ID)} IN ({placeholders(count)})"
        )

    @staticmethod
    def _items_where(table: TableSql, column: str) -> str:
        return f"SELECT item FROM {table.name} WHERE {table.q(column)} = ?"

    @staticmethod
    def _guarded(table: TableSql, columns: tuple[str, ...], status_attribute: str) -> GuardedRow:
        where = " AND ".join(f"{table.q(column)} = ?" for column in columns)
        exists = f"SELECT 1 FROM {table.name} WHERE {where}"
        return GuardedRow(table, columns, status_attribute, exists)

    # -- newest-first lists ---------------------------------------------------------------------

    def list_executions(self, scope: ListScope, continued: bool) -> str:
        """Parameters: partition[, start date, id of the last row seen], limit + 1."""
        return self._lists[scope, continued]

    def asset_execution_refs(self, direction: AssetDirection, continued: bool) -> str:
        """Parameters: asset key[, start date, id of the last ref seen], limit."""
        return self._asset_refs[direction, continued]

    def _render_list(self, scope: ListScope, continued: bool) -> str:
        main = self.executions
        _, partition = LIST_PARTITIONS[scope]
        return (
            f"SELECT {main.q(START_DATE)}, {main.q(EXECUTION_ID)}, item FROM {main.name} "
            f"WHERE {main.q(partition)} = ?{self._older_than(main, continued)} "
            f"ORDER BY {main.q(START_DATE)} DESC, {main.q(EXECUTION_ID)} DESC LIMIT ?"
        )

    def _render_asset_refs(self, direction: AssetDirection, continued: bool) -> str:
        key, _, partition = ASSET_LINKS[direction]
        table = self.tables[key]
        order = (table.q(START_DATE), table.q(EXECUTION_ID))
        # GROUP BY walks the index in order, where DISTINCT would sort in a temporary B-tree; the
        # workflow key is the same on every row of one execution, so any row's value will do.
        return (
            f"SELECT {order[0]}, {order[1]}, {_WORKFLOW_KEY_OF_ROW} "
            f"FROM {table.name} WHERE {table.q(partition)} = ?{self._older_than(table, continued)} "
            f"GROUP BY {order[0]}, {order[1]} ORDER BY {order[0]} DESC, {order[1]} DESC LIMIT ?"
        )

    @staticmethod
    def _older_than(table: TableSql, continued: bool) -> str:
        # A row-value comparison is a range on the index; the equivalent
        # `date < ? OR (date = ? AND id < ?)` only narrows to the partition and filters the rest.
        if not continued:
            return ""
        return f" AND ({table.q(START_DATE)}, {table.q(EXECUTION_ID)}) < (?, ?)"

    # -- the main row under a run guard ----------------------------------------------------------

    def execution_update(
        self, values: Mapping[str, Any], removed: tuple[str, ...], guard: RunGuard
    ) -> tuple[str, Collection[Any]]:
        """`UPDATE` of the main row's named attributes under `guard` (its rowcount says whether
        the guard held).

        Returns the SQL and its value parameters; the key (execution id, workflow key) and the
        guard's parameters (`execution_guard_parameters`) follow them.
        """
        shape, parameters = _shape_of(values)
        lease = (
            ("held" if guard.lease_held_by is not None else "")
            + ("read" if guard.lease_as_read else "")
            + ("takeable" if guard.lease_takeable is not None else "")
        )
        cache_key = (
            "execution",
            shape,
            removed,
            len(guard.statuses),
            guard.not_stopping,
            guard.not_finishing,
            lease,
        )
        sql = self._updates.get(cache_key)
        if sql is None:
            base = _render_update(self.execution_status, shape, removed, len(guard.statuses))
            sql = self._updates[cache_key] = base + _guard_clauses(guard)
        return sql, parameters

    # -- conditional status updates ---------------------------------------------------------------

    def step_if_status(self, expected_count: int) -> str:
        """A row when the step's status is one of those given (key, then the statuses)."""
        sql = self._updates.get(("step_if_status", expected_count))
        if sql is None:
            sql = self._updates[("step_if_status", expected_count)] = self._step_if_status(
                expected_count
            )
        return sql

    def _step_if_status(self, expected_count: int) -> str:
        steps, guarded = self.steps, self.step_status
        where = " AND ".join(f"{steps.q(column)} = ?" for column in guarded.key_columns)
        status = json_path(guarded.status_attribute)
        return (
            f"SELECT 1 FROM {steps.name} WHERE {where} "
            f"AND json_extract(item, {status}) IN ({placeholders(expected_count)})"
        )

    def conditional_update(
        self,
        guarded: GuardedRow,
        values: Mapping[str, Any],
        removed: tuple[str, ...],
        expected_count: int,
    ) -> tuple[str, Collection[Any]]:
        """`UPDATE ... SET item = json_set/json_remove(...)` guarded by the stored status.

        Only the named attributes change, inside SQLite: other writers append to the same row
        (sub-process registration), so the whole item is never read, changed and written back.
        Returns the SQL and the value parameters (keys and expected statuses follow them).
        """
        shape, parameters = _shape_of(values)
        cache_key = (guarded.table.name, shape, removed, expected_count)
        sql = self._updates.get(cache_key)
        if sql is None:
            sql = self._updates[cache_key] = _render_update(guarded, shape, removed, expected_count)
        return sql, parameters


_ABORT = json_path(ABORT_REQUESTED_DATE)
_FINISHING = json_path(FINISHING_DATE)
_OWNER = json_path(LEASE_OWNER)
_EXPIRES = json_path(LEASE_EXPIRES_DATE)


def _guard_clauses(guard: RunGuard) -> str:
    """The WHERE terms of a run guard beyond the status; parameters in this order: the owner
    held, the owner and expiry as read, the owner and the moment a lease is takeable at and the
    handover prefix twice."""
    clauses = ""
    if guard.not_stopping:
        clauses += f" AND json_extract(item, {_ABORT}) IS NULL"
    if guard.not_finishing:
        clauses += f" AND json_extract(item, {_FINISHING}) IS NULL"
    if guard.lease_held_by is not None:
        clauses += f" AND json_extract(item, {_OWNER}) = ?"
    if guard.lease_as_read:
        # IS: a lease that was absent when read must still be absent
        clauses += f" AND json_extract(item, {_OWNER}) IS ? AND json_extract(item, {_EXPIRES}) IS ?"
    if guard.lease_takeable is not None:
        clauses += (
            f" AND (json_extract(item, {_OWNER}) IS NULL OR json_extract(item, {_OWNER}) = ?"
            f" OR json_extract(item, {_EXPIRES}) < ?"
            f" OR substr(json_extract(item, {_OWNER}), 1, length(?)) = ?)"
        )
    return clauses


# Text and numbers bind as JSON strings and numbers; anything else (bool included: sqlite3
# would bind it as 1/0) goes through json(?). By exact class: a str or int subclass (an enum)
# takes the general test.
_PLAIN_TYPES = frozenset({str, int, float})

# An update's attribute names, and for each whether its value goes through json(?) (None: no
# value does)
_Shape = tuple[tuple[str, ...], tuple[bool, ...] | None]


def _needs_json(value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, str | int | float)


def _shape_of(values: Mapping[str, Any]) -> tuple[_Shape, Collection[Any]]:
    """The update's shape and its value parameters: a status and dates, the common case, are
    all plain values, found so by C calls with no loop in Python, and bound as they are (the
    values themselves: the caller unpacks them into the statement's parameters, so no list of
    them is made)."""
    parameters = values.values()
    if _PLAIN_TYPES.issuperset(map(type, parameters)):
        return (tuple(values), None), parameters
    needs = tuple(map(_needs_json, parameters))
    dumped = [
        dump_json(value) if json else value for value, json in zip(parameters, needs, strict=True)
    ]
    return (tuple(values), needs), dumped


def _render_update(
    guarded: GuardedRow,
    shape: _Shape,
    removed: tuple[str, ...],
    expected_count: int,
) -> str:
    table = guarded.table
    expression = "item"
    names, needs = shape
    if names:
        flags = needs or (False,) * len(names)
        pairs = ", ".join(
            f"{json_path(name)}, {'json(?)' if json else '?'}"
            for name, json in zip(names, flags, strict=True)
        )
        expression = f"json_set({expression}, {pairs})"
    if removed:
        expression = f"json_remove({expression}, {', '.join(json_path(n) for n in removed)})"
    where = " AND ".join(f"{table.q(column)} = ?" for column in guarded.key_columns)
    status = json_path(guarded.status_attribute)
    return (
        f"UPDATE {table.name} SET item = {expression} WHERE {where} "
        f"AND json_extract(item, {status}) IN ({placeholders(expected_count)})"
    )
