"""Micro-costs behind the breakdowns, each beside its cheaper alternative, on the same file.

These are not targets: they name the unit costs (one read, one commit, one parsed row) that the
launch, list and runner paths multiply, so a fix can be sized before it is written.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adapters.records import DATE_FORMAT, format_date, parse_date
from adapters.run_records import parse_execution_record
from adapters.sqlite.statements import load_item
from application.ports.executions import ListScope
from tests.bench.fixtures import bench_container
from tests.bench.lists import fill
from tests.bench.timing import median, time_each

ROWS = 2_000


def _us(call: Any, count: int, rounds: int) -> float:
    """Median over rounds of the mean per call within a round, in microseconds."""
    per_round = []
    for _ in range(rounds):
        per_round.append(sum(time_each(call, count)) / count * 1e6)
    return round(median(per_round), 2)


def measure(workdir: Path, count: int = 2_000, rounds: int = 5) -> dict[str, Any]:
    container = bench_container(workdir, database="micro.db", run_steps=False)
    fill(container, ROWS, seed=7)
    database = container.sqlite_database()
    store = container.execution_store()
    sql = store.list_executions_sql(ListScope.ALL, continued=False)
    raw = sqlite3.connect(Path(container.config.sqlite_path()), isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=NORMAL")
    (item_text,) = raw.execute(f"SELECT item FROM ({sql})", ("execution", 1)).fetchone()
    item = load_item(item_text)
    stamp = format_date(datetime.now(UTC))
    raw.execute("CREATE TABLE IF NOT EXISTS bench_counter (id INTEGER PRIMARY KEY, n INTEGER)")
    raw.execute("INSERT OR IGNORE INTO bench_counter VALUES (1, 0)")
    update = "UPDATE bench_counter SET n = n + 1 WHERE id = 1"

    def store_read() -> object:
        with database.read() as connection:
            return connection.execute(sql, ("execution", 1)).fetchone()

    def raw_read() -> object:
        return raw.execute(sql, ("execution", 1)).fetchone()

    def store_commit() -> None:
        with database.write() as connection:
            connection.execute(update)

    def raw_commit() -> None:
        raw.execute("BEGIN")
        raw.execute(update)
        raw.execute("COMMIT")

    def empty_read_transaction() -> None:
        with database.read():
            pass

    results = {
        "one-row read: database.read() + execute + fetchone": _us(store_read, count, rounds),
        "one-row read: plain sqlite3 execute + fetchone (autocommit)": _us(raw_read, count, rounds),
        "empty read transaction: database.read() (BEGIN + COMMIT)": _us(
            empty_read_transaction, count, rounds
        ),
        "1-row UPDATE commit: database.write() (BEGIN IMMEDIATE)": _us(
            store_commit, count // 2, rounds
        ),
        "1-row UPDATE commit: plain sqlite3 BEGIN/COMMIT": _us(raw_commit, count // 2, rounds),
        "parse_date (records)": _us(lambda: parse_date(stamp), count, rounds),
        "datetime.fromisoformat, same text": _us(
            lambda: datetime.fromisoformat(stamp), count, rounds
        ),
        "datetime.strptime, same text": _us(
            lambda: datetime.strptime(stamp, DATE_FORMAT), count, rounds
        ),
        "parse_execution_record (json already loaded)": _us(
            lambda: parse_execution_record(item), count, rounds
        ),
        "load_item (json.loads of one main row)": _us(lambda: load_item(item_text), count, rounds),
    }
    raw.close()
    database.close()
    return {"unit": "microseconds per call", "costs": results}
