"""Launches per second: the `LaunchExecution` use case, and plain `sqlite3` writing the same rows.

Our side is the real use case from the container (validation, workflow and asset reads, the
13-row atomic write, the read-back after start) with an orchestrator that starts nothing, so the
figure is the launch write path alone. The raw side opens the same schema in its own file and, per
launch, builds the same domain records with fresh ids, turns them into items with the same
`build_*_record` helpers, encodes the JSON and inserts them in one BEGIN/COMMIT with
`executemany`: what a hand-written writer with no layers would do.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.records import Item
from adapters.run_records import (
    build_execution_configuration_record,
    build_execution_input_record,
    build_execution_record,
    build_input_selection_record,
)
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.schema import ITEM_COLUMN, SqliteTable, build_schema, create_tables
from adapters.step_records import (
    build_pipeline_execution_record,
    build_step_input_configuration_record,
    build_step_input_metadata_record,
)
from adapters.system import SystemClock, UuidGenerator
from adapters.tables import ResourceKeys
from application.use_cases.launch_execution import LaunchExecutionCommand
from domain.execution import (
    ExecutionInput,
    InputSelection,
    LaunchRecords,
    WorkflowExecution,
    execution_output_prefix,
    step_auxiliary_prefix,
)
from entrypoints.container import Container
from entrypoints.settings import table_settings
from tests.bench.fixtures import (
    ASSET,
    USER,
    bench_container,
    launched_run,
)
from tests.bench.timing import Samples, counted_round, median

LAUNCH_TABLES = (
    ResourceKeys.WORKFLOW_EXECUTIONS,
    ResourceKeys.WORKFLOW_EXECUTION_INPUTS,
    ResourceKeys.RESOLVED_INPUT_FILES,
    ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
    ResourceKeys.PIPELINE_EXECUTIONS,
    ResourceKeys.PIPELINE_INPUT_CONFIGURATION,
    ResourceKeys.PIPELINE_INPUT_METADATA,
)
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class _RawTable:
    columns: tuple[str, ...]
    insert: str

    @classmethod
    def of(cls, table: SqliteTable) -> _RawTable:
        columns = table.key_columns
        names = ", ".join(_quote(c) for c in (*columns, ITEM_COLUMN))
        values = ", ".join("?" * (len(columns) + 1))
        return cls(columns, f"INSERT INTO {_quote(table.name)} ({names}) VALUES ({values})")

    def row(self, item: Item) -> tuple[Any, ...]:
        return (*(item.get(column) for column in self.columns), _ENCODER.encode(item))


class RawLaunchWriter:
    """Plain `sqlite3` (WAL, synchronous=NORMAL, isolation_level=None): one transaction a launch."""

    def __init__(self, path: Path, template: LaunchRecords) -> None:
        tables = table_settings(os.environ).names()
        schema = build_schema(tables)
        database = SqliteDatabase(path)  # the adapter's own DDL, so both files match
        create_tables(database, schema)
        database.close()
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self._tables = {key: _RawTable.of(schema[key]) for key in LAUNCH_TABLES}
        self._template = template
        self._ids, self._clock = UuidGenerator(), SystemClock()

    def launch(self) -> None:
        template = self._template
        execution_id = self._ids.new_id()
        now = self._clock.now()
        prefix = execution_output_prefix(execution_id)
        same_run = {"workflow_execution_id": execution_id, "execution_start_date": now}
        execution = template.execution.model_copy(update=same_run)
        inputs = [row.model_copy(update=same_run) for row in template.inputs]
        configuration = template.configuration.model_copy(update=same_run)
        step_ids: dict[str, str] = {}
        steps = []
        for step in template.steps:  # chain order: each step links to the one before it
            step_id = step_ids[step.pipeline_execution_id] = self._ids.new_id()
            previous = step.from_pipeline_execution_id
            steps.append(
                step.model_copy(
                    update={
                        "pipeline_execution_id": step_id,
                        "workflow_execution_id": execution_id,
                        "from_pipeline_execution_id": step_ids[previous] if previous else None,
                        "output_files_path": prefix,
                        "output_preview_path": f"{prefix}preview/",
                        "output_metadata_path": f"{prefix}metadata/",
                        "auxiliary_path": step_auxiliary_prefix(execution_id, step_id),
                    }
                )
            )
        configurations = [
            row.model_copy(
                update={
                    "pipeline_execution_id": step_ids[row.pipeline_execution_id],
                    "workflow_execution_id": execution_id,
                }
            )
            for row in template.step_configurations
        ]
        metadata = [
            row.model_copy(
                update={
                    "pipeline_execution_id": step_ids[row.pipeline_execution_id],
                    "workflow_execution_id": execution_id,
                }
            )
            for row in template.step_metadata
        ]
        t = self._tables
        rows = (
            (
                t[ResourceKeys.WORKFLOW_EXECUTION_INPUTS],
                [build_input_selection_record(i) for i in _selections(execution, inputs)],
            ),
            (
                t[ResourceKeys.RESOLVED_INPUT_FILES],
                [build_execution_input_record(i) for i in inputs],
            ),
            (
                t[ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION],
                [build_execution_configuration_record(configuration)],
            ),
            (
                t[ResourceKeys.PIPELINE_EXECUTIONS],
                [build_pipeline_execution_record(s) for s in steps],
            ),
            (
                t[ResourceKeys.PIPELINE_INPUT_CONFIGURATION],
                [build_step_input_configuration_record(c) for c in configurations],
            ),
            (
                t[ResourceKeys.PIPELINE_INPUT_METADATA],
                [build_step_input_metadata_record(m) for m in metadata],
            ),
        )
        main = t[ResourceKeys.WORKFLOW_EXECUTIONS]
        main_row = main.row(build_execution_record(execution))
        connection = self.connection
        connection.execute("BEGIN")
        try:
            connection.execute(main.insert, main_row)
            for table, items in rows:
                if items:
                    connection.executemany(table.insert, [table.row(item) for item in items])
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()


def _selections(execution: WorkflowExecution, inputs: list[ExecutionInput]) -> list[InputSelection]:
    """The selection rows the resolved files came from (a folder or whole asset: no version)."""
    chosen = {row.selection_key: row for row in inputs}
    return [
        InputSelection(
            workflow_execution_id=execution.workflow_execution_id,
            workflow_database_id=execution.workflow_database_id,
            workflow_id=execution.workflow_id,
            database_id=row.database_id,
            asset_id=row.asset_id,
            input_asset_file_key=key,
            bucket=row.bucket,
            asset_root_key=row.asset_root_key,
            version_id="" if key.endswith("/") else row.version_id,
            execution_start_date=execution.execution_start_date,
        )
        for key, row in chosen.items()
    ]


def launch_records_of(container: Container, execution_id: str) -> LaunchRecords:
    """The rows one real launch wrote, read back: the raw writer's template."""
    details = container.execution_store().get_details(execution_id)
    assert details.configuration is not None, "a launch always writes its configuration"
    return LaunchRecords(
        execution=details.execution,
        inputs=details.inputs,
        configuration=details.configuration,
        steps=tuple(d.step for d in details.steps),
        step_configurations=tuple(d.configuration for d in details.steps if d.configuration),
        step_metadata=tuple(m for d in details.steps for m in d.input_metadata),
    )


def _rows_per_launch(connection: sqlite3.Connection, launches: int) -> float:
    names = table_settings(os.environ).names()
    total = 0
    for key in LAUNCH_TABLES:
        (count,) = connection.execute(
            f"SELECT count(*) FROM {_quote(names.get_table_name(key))}"
        ).fetchone()
        total += count
    return total / launches


@dataclass
class LaunchBench:
    """Both writers, ready to launch."""

    container: Container
    raw: RawLaunchWriter
    ours_launches: int = 0
    raw_launches: int = 0

    def launch_ours(self) -> None:
        command = LaunchExecutionCommand(
            workflow_database_id="bench", workflow_id="launch", inputs=(ASSET,), user_id=USER
        )
        self.container.launch_execution().execute(command)
        self.ours_launches += 1

    def launch_raw(self) -> None:
        self.raw.launch()
        self.raw_launches += 1


def prepare(workdir: Path) -> LaunchBench:
    container = bench_container(workdir / "ours", run_steps=False)
    first = launched_run(container, workdir)
    template = launch_records_of(container, first)
    raw = RawLaunchWriter(workdir / "raw" / "raw.db", template)  # SqliteDatabase makes the folder
    return LaunchBench(container=container, raw=raw, ours_launches=1)


def measure(workdir: Path, rounds: int, launches_per_round: int, warmup: int) -> dict[str, Any]:
    """Interleaved rounds of the same number of launches on each side (so both files grow alike;
    the side that goes first alternates); launches/s is the median of the rounds."""
    bench = prepare(workdir)
    for _ in range(warmup):
        bench.launch_ours()
        bench.launch_raw()
    ours_rates: list[float] = []
    raw_rates: list[float] = []
    ours_latency, raw_latency = Samples(), Samples()
    for index in range(rounds):
        sides = [
            (bench.launch_ours, ours_rates, ours_latency),
            (bench.launch_raw, raw_rates, raw_latency),
        ]
        for call, rates, latency in sides if index % 2 == 0 else reversed(sides):
            measured = counted_round(call, launches_per_round)
            rates.append(measured.per_second)
            latency.extend(measured.durations)
    ours_db = sqlite3.connect(bench.container.config.sqlite_path())
    rows_ours = _rows_per_launch(ours_db, bench.ours_launches)
    ours_db.close()
    rows_raw = _rows_per_launch(bench.raw.connection, bench.raw_launches)
    bench.raw.close()
    bench.container.sqlite_database().close()
    assert rows_ours == rows_raw, f"the two sides wrote different rows: {rows_ours} vs {rows_raw}"
    launch_per_s, raw_per_s = median(ours_rates), median(raw_rates)
    return {
        "launch_per_s": round(launch_per_s, 1),
        "raw_launch_per_s": round(raw_per_s, 1),
        "launch_ratio": round(launch_per_s / raw_per_s, 3),
        # the same comparison per launch (medians, checkpoint stalls left out): steadier on a
        # busy machine, where stalls on the shared disk move the throughputs a lot
        "launch_latency_ratio": round(raw_latency.median_ms / ours_latency.median_ms, 3),
        "rows_per_launch": rows_ours,
        "ours_rounds_per_s": [round(r, 1) for r in ours_rates],
        "raw_rounds_per_s": [round(r, 1) for r in raw_rates],
        "ours_latency": ours_latency.summary_ms(),
        "raw_latency": raw_latency.summary_ms(),
        "rounds": rounds,
        "launches_per_round": launches_per_round,
        "round_ratios": [round(o / r, 3) for o, r in zip(ours_rates, raw_rates, strict=True)],
    }
