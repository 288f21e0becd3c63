"""Newest-first list, first and second page, on tables of growing size: it should stay flat.

Each size gets a fresh SQLite file filled in large transactions through the adapter's own insert
statement (`TableSql.insert`) with items from `build_execution_record`, then ANALYZE. The timed
calls are the `ListExecutions` use case as a request handler makes them (a use case from the
container, a query object, one page parsed into domain objects), and for reference the same SQL
on a plain `sqlite3` connection returning raw rows, and those rows with their JSON items
decoded (`json.loads`): the least any reader of these rows must do, the issue's 2x floor.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adapters.records import ALL_LIST_PARTITION
from adapters.run_records import build_execution_record
from adapters.sqlite.paging import decode_token
from adapters.sqlite.schema import build_schema
from adapters.sqlite.statements import TableSql
from adapters.tables import ResourceKeys
from application.ports.executions import ListScope
from application.use_cases.list_executions import ListExecutionsQuery
from domain.execution import WorkflowExecution
from domain.statuses import ExecutionStatus
from domain.triggers import TriggerType
from entrypoints.container import Container
from tests.bench.fixtures import USER, bench_container
from tests.bench.timing import Samples, median, time_each

PAGE_SIZE = 50  # the HTTP service's and the viewer's page
WORKFLOWS = 100
FILL_CHUNK = 50_000
YEAR_US = 365 * 24 * 3600 * 1_000_000
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
VARIANTS = ("page1", "page2", "raw_page1", "raw_page2", "raw_decoded_page1")


def _template() -> WorkflowExecution:
    return WorkflowExecution(
        workflow_execution_id=str(uuid.UUID(int=0)),
        workflow_database_id="bench",
        workflow_id="wf-00",
        workflow_version=1,
        status=ExecutionStatus.SUCCEEDED,
        execution_start_date=EPOCH,
        execution_stop_date=EPOCH,
        triggered_by_user_id=USER,
        trigger_type=TriggerType.MANUAL,
        execution_log="3 steps succeeded",
    )


def _executions(count: int, rng: random.Random) -> Iterator[WorkflowExecution]:
    """Random ids, 100 workflows, start dates spread over one year, each run 5 s long."""
    template = _template()
    for _ in range(count):
        start = EPOCH + timedelta(microseconds=rng.randrange(YEAR_US))
        yield template.model_copy(
            update={
                "workflow_execution_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "workflow_id": f"wf-{rng.randrange(WORKFLOWS):02d}",
                "execution_start_date": start,
                "execution_stop_date": start + timedelta(seconds=5),
            }
        )


def fill(container: Container, count: int, seed: int) -> float:
    """Insert `count` main rows in transactions of FILL_CHUNK, then ANALYZE; the seconds it took."""
    started = time.perf_counter()
    database = container.sqlite_database()
    table = TableSql.render(build_schema(container.tables())[ResourceKeys.WORKFLOW_EXECUTIONS])
    rng = random.Random(seed)
    executions = _executions(count, rng)
    remaining = count
    while remaining:
        chunk = min(FILL_CHUNK, remaining)
        rows = [table.row(build_execution_record(next(executions))) for _ in range(chunk)]
        with database.write() as connection:
            connection.executemany(table.insert, rows)
        remaining -= chunk
    with database.write() as connection:
        connection.execute("ANALYZE")
    with database.exclusive_connection() as connection:  # a checkpoint runs outside a transaction
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return time.perf_counter() - started


@dataclass
class SizedList:
    """One filled table and the four calls timed on it."""

    size: int
    container: Container
    raw: sqlite3.Connection
    calls: dict[str, Callable[[], object]]
    samples: dict[str, Samples]
    plan: str
    file_mb: float
    fill_seconds: float


def prepare(workdir: Path, size: int) -> SizedList:
    container = bench_container(workdir, database=f"list-{size}.db", run_steps=False)
    fill_seconds = fill(container, size, seed=size)
    store = container.execution_store()
    first_sql = store.list_executions_sql(ListScope.ALL, continued=False)
    next_sql = store.list_executions_sql(ListScope.ALL, continued=True)
    path = Path(container.config.sqlite_path())
    raw = sqlite3.connect(path, isolation_level=None)

    def page1() -> object:
        return container.list_executions().execute(ListExecutionsQuery(limit=PAGE_SIZE))

    first = container.list_executions().execute(ListExecutionsQuery(limit=PAGE_SIZE))
    token = first.next_token
    assert token is not None and len(first.items) == PAGE_SIZE, "the table has more than a page"
    position = decode_token(token)

    def page2() -> object:
        query = ListExecutionsQuery(limit=PAGE_SIZE, starting_token=token)
        return container.list_executions().execute(query)

    def raw_page1() -> list[Any]:
        return raw.execute(first_sql, (ALL_LIST_PARTITION, PAGE_SIZE + 1)).fetchall()

    def raw_page2() -> list[Any]:
        return raw.execute(next_sql, (ALL_LIST_PARTITION, *position, PAGE_SIZE + 1)).fetchall()

    loads = json.loads

    def raw_decoded_page1() -> list[Any]:
        rows = raw.execute(first_sql, (ALL_LIST_PARTITION, PAGE_SIZE + 1)).fetchall()
        return [loads(text) for (_, _, text) in rows[:PAGE_SIZE]]

    _check_same_page(first.items, raw_page1())
    plan = " / ".join(
        row[3]
        for row in raw.execute(
            f"EXPLAIN QUERY PLAN {first_sql}", (ALL_LIST_PARTITION, PAGE_SIZE + 1)
        )
    )
    calls: dict[str, Callable[[], object]] = {
        "page1": page1,
        "page2": page2,
        "raw_page1": raw_page1,
        "raw_page2": raw_page2,
        "raw_decoded_page1": raw_decoded_page1,
    }
    return SizedList(
        size=size,
        container=container,
        raw=raw,
        calls=calls,
        samples={name: Samples() for name in VARIANTS},
        plan=plan,
        file_mb=round(path.stat().st_size / 1e6, 1),
        fill_seconds=round(fill_seconds, 2),
    )


def _check_same_page(items: Sequence[WorkflowExecution], raw_rows: Sequence[Any]) -> None:
    ours = [execution.workflow_execution_id for execution in items]
    theirs = [row[1] for row in raw_rows[:PAGE_SIZE]]
    assert ours == theirs, "the use case and the raw query disagree on the first page"
    dates = [execution.execution_start_date for execution in items]
    assert dates == sorted(dates, reverse=True), "the first page is not newest first"


def measure(
    workdir: Path, sizes: Sequence[int], rounds: int, calls_per_round: int, warmup: int
) -> dict[str, Any]:
    """Every size and variant in each round, round-robin; medians over all rounds."""
    tables = [prepare(workdir, size) for size in sizes]
    for table in tables:
        for call in table.calls.values():
            time_each(call, warmup)
    for index in range(rounds):
        order = tables if index % 2 == 0 else list(reversed(tables))
        for table in order:
            for name in VARIANTS:
                table.samples[name].extend(time_each(table.calls[name], calls_per_round))
    result: dict[str, Any] = {
        "list_first_page_ms": {},
        "list_second_page_ms": {},
        "raw_list_first_page_ms": {},
        "raw_list_second_page_ms": {},
        "raw_decoded_list_first_page_ms": {},
        "list_detail": {},
    }
    for table in tables:
        key = str(table.size)
        samples = table.samples
        result["list_first_page_ms"][key] = round(samples["page1"].median_ms, 4)
        result["list_second_page_ms"][key] = round(samples["page2"].median_ms, 4)
        result["raw_list_first_page_ms"][key] = round(samples["raw_page1"].median_ms, 4)
        result["raw_list_second_page_ms"][key] = round(samples["raw_page2"].median_ms, 4)
        result["raw_decoded_list_first_page_ms"][key] = round(
            samples["raw_decoded_page1"].median_ms, 4
        )
        result["list_detail"][key] = {
            **{name: samples[name].summary_ms() for name in VARIANTS},
            "query_plan": table.plan,
            "file_mb": table.file_mb,
            "fill_seconds": table.fill_seconds,
        }
        table.raw.close()
        table.container.sqlite_database().close()
    smallest, largest = str(min(sizes)), str(max(sizes))
    first = result["list_first_page_ms"]
    result["list_flatness"] = round(first[largest] / first[smallest], 3)
    second = result["list_second_page_ms"]
    result["list_second_page_flatness"] = round(second[largest] / second[smallest], 3)
    result["list_wrapper_ms"] = {  # what the layers add over the raw query, per size
        key: round(first[key] - result["raw_list_first_page_ms"][key], 4) for key in first
    }
    decoded = result["raw_decoded_list_first_page_ms"]
    by_size = {key: round(first[key] / decoded[key], 3) for key in first}
    result["list_vs_raw_decode_by_size"] = by_size
    result["list_vs_raw_decode_ratio"] = max(by_size.values())  # the worst size is the figure
    result["list_page_size"] = PAGE_SIZE
    result["list_calls_per_variant"] = median([table.samples["page1"].count for table in tables])
    return result
