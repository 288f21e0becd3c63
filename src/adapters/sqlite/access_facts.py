"""`access_facts` on SQLite: four narrow queries over key columns only, no item parsed.

A list page asks this once per page, and the readable list must stay within a quarter of the
plain list's time. Loading whole items cost several times the page itself, and even
`json_extract` parses each item's whole JSON; but every fact is part of a composite key column
(ids hold no ':', domain.assets), so the queries read those columns and split them.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence

from adapters.sqlite.execution_sql import EXECUTION_ID, STEP_ID, ExecutionSql
from adapters.sqlite.statements import chunks, placeholders
from domain.authorization import AccessFacts, AssetKey

WORKFLOW_KEY = "workflowDatabaseId:workflowId"
ASSET_KEY = "databaseId:assetId"
OUTPUT_KEY = "outputDatabaseId:outputAssetId"
METADATA_KEY = "databaseId:assetId:filePath"


def _pair(key: str) -> tuple[str, str]:
    first, second = key.split(":", 2)[:2]
    return first, second


def read_access_facts(
    connection: sqlite3.Connection, sql: ExecutionSql, ids: Sequence[str]
) -> dict[str, AccessFacts]:
    """The facts of each id with a main row, read inside the caller's one transaction."""
    main, inputs, configuration = sql.executions, sql.inputs, sql.configuration
    steps, metadata = sql.steps, sql.step_metadata
    workflows: dict[str, tuple[str, str]] = {}
    read: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
    written: dict[str, tuple[str, str]] = {}
    databases: dict[str, dict[str, None]] = defaultdict(dict)
    for chunk in chunks(ids):
        marks = placeholders(len(chunk))
        for execution_id, key in connection.execute(
            f"SELECT {main.q(EXECUTION_ID)}, {main.q(WORKFLOW_KEY)} FROM {main.name} "
            f"WHERE {main.q(EXECUTION_ID)} IN ({marks})",
            chunk,
        ):
            workflows[execution_id] = _pair(key)
        for execution_id, key in connection.execute(
            f"SELECT DISTINCT {inputs.q(EXECUTION_ID)}, {inputs.q(ASSET_KEY)} FROM {inputs.name} "
            f"WHERE {inputs.q(EXECUTION_ID)} IN ({marks})",
            chunk,
        ):
            read[execution_id][_pair(key)] = None
        for execution_id, key in connection.execute(
            f"SELECT {configuration.q(EXECUTION_ID)}, {configuration.q(OUTPUT_KEY)} "
            f"FROM {configuration.name} WHERE {configuration.q(EXECUTION_ID)} IN ({marks}) "
            f"AND {configuration.q(OUTPUT_KEY)} IS NOT NULL",  # sparse: results-only runs
            chunk,
        ):
            written.setdefault(execution_id, _pair(key))
        for execution_id, key in connection.execute(
            f"SELECT s.{steps.q(EXECUTION_ID)}, m.{metadata.q(METADATA_KEY)} "
            f"FROM {steps.name} AS s JOIN {metadata.name} AS m "
            f"ON m.{metadata.q(STEP_ID)} = s.{steps.q(STEP_ID)} "
            f"WHERE s.{steps.q(EXECUTION_ID)} IN ({marks})",
            chunk,
        ):
            databases[execution_id][key.split(":", 1)[0]] = None
    return {
        execution_id: _facts_of(
            execution_id,
            workflows[execution_id],
            read[execution_id],
            written.get(execution_id),
            databases[execution_id],
        )
        for execution_id in ids
        if execution_id in workflows
    }


def _facts_of(
    execution_id: str,
    workflow: tuple[str, str],
    read_assets: Iterable[tuple[str, str]],
    written_asset: tuple[str, str] | None,
    metadata_databases: Iterable[str],
) -> AccessFacts:
    # model_construct: these are our own key columns, already checked when they were written,
    # and validating ~4 models per row would cost more than the four queries.
    return AccessFacts.model_construct(
        workflow_execution_id=execution_id,
        workflow_database_id=workflow[0],
        workflow_id=workflow[1],
        read_assets=tuple(
            AssetKey.model_construct(database_id=d, asset_id=a) for d, a in read_assets
        ),
        written_asset=(
            AssetKey.model_construct(database_id=written_asset[0], asset_id=written_asset[1])
            if written_asset is not None
            else None
        ),
        metadata_databases=tuple(metadata_databases),
    )
