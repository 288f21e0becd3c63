"""Event appends: the unit of work's append to a run's event log beside a raw sqlite3 append.

A run of the launch workflow is launched on a SQLite file with an orchestrator that starts
nothing; events are then appended to it one write at a time through the container's
`execution_events` (the SQLite unit of work: checks the run exists, numbers the event after the
run's last, inserts it, all in one write transaction). Beside it, in the same rounds, plain
`sqlite3` on its own file with the same pragmas appends one row per transaction to a table keyed
like the event table, numbered by the caller: the limit an append could reach.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from domain.events import EventType, NewEvent
from tests.bench.fixtures import bench_container, launched_run
from tests.bench.timing import Samples, time_each


class RawEventAppender:
    """Plain sqlite3 (WAL, synchronous=NORMAL, isolation_level=None): one transaction an event."""

    def __init__(self, path: Path) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute(
            "CREATE TABLE events (run TEXT, number INTEGER, body TEXT, PRIMARY KEY (run, number))"
        )
        self._number = 0

    def append(self) -> None:
        self._number += 1
        body = json.dumps({"eventType": "Note", "occurredAt": datetime.now(UTC).isoformat()})
        connection = self.connection
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO events VALUES (?, ?, ?)", ("run", self._number, body))
        connection.execute("COMMIT")


def measure(workdir: Path, appends: int, rounds: int) -> dict[str, Any]:
    container = bench_container(workdir, run_steps=False)
    execution_id = launched_run(container, workdir)
    events = container.execution_events()
    raw = RawEventAppender(workdir / "raw-events.db")

    def append() -> None:
        note = NewEvent(
            workflow_execution_id=execution_id,
            event_type=EventType.NOTE,
            occurred_at=datetime.now(UTC),
        )
        events.append_events(execution_id, [note])

    ours, theirs = Samples(), Samples()
    for _ in range(rounds):  # interleaved, so that a slow moment of the machine hits both
        ours.extend(time_each(append, appends))
        theirs.extend(time_each(raw.append, appends))
    stored = events.events_after(execution_id, 0, appends * rounds + 10)
    if len(stored.items) < appends * rounds:
        raise AssertionError(f"{len(stored.items)} events stored, {appends * rounds} appended")
    raw.connection.close()
    container.sqlite_database().close()
    ratio = theirs.median_ms / ours.median_ms
    return {
        "event_append_ms": round(ours.median_ms, 4),
        "raw_event_append_ms": round(theirs.median_ms, 4),
        "event_append_vs_raw": round(ratio, 3),
        "event_append": ours.summary_ms(),
        "raw_event_append": theirs.summary_ms(),
    }
