"""The floor under a recorded 3-step run: plain `sqlite3` writing what a run must make durable.

Same pragmas as the harness's other raw writers (WAL, synchronous=NORMAL, isolation_level=None),
on its own file. One run is the commits wfx makes for the trivial workflow: the launch (the run
and its three steps), the run RUNNING, each step started (RUNNING + its attempt) and finished
(SUCCEEDED + the attempt closed), the run SUCCEEDED: 9 transactions, no layers, JSON bodies
encoded by hand. The steps themselves are no-op calls, as in `examples/trivial/`.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import UTC, datetime
from pathlib import Path

STEPS = ("noop-1", "noop-2", "noop-3")
SCHEMA = (
    "CREATE TABLE runs (id TEXT PRIMARY KEY, status TEXT, started TEXT, ended TEXT, body TEXT)",
    "CREATE TABLE steps (run TEXT, step TEXT, status TEXT, body TEXT, PRIMARY KEY (run, step))",
    "CREATE TABLE attempts (run TEXT, step TEXT, attempt INTEGER, status TEXT, started TEXT,"
    " ended TEXT, PRIMARY KEY (run, step, attempt))",
)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _noop() -> None:
    """The step's work: nothing, like `wfx_examples.trivial.steps.noop`."""


class RawRunRecorder:
    def __init__(self, path: Path) -> None:
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA synchronous=NORMAL")
        for statement in SCHEMA:
            self.connection.execute(statement)

    def _write(self, *statements: tuple[str, tuple[object, ...]]) -> None:
        connection = self.connection
        connection.execute("BEGIN IMMEDIATE")
        for sql, parameters in statements:
            connection.execute(sql, parameters)
        connection.execute("COMMIT")

    def run(self) -> None:
        run_id = str(uuid.uuid4())
        body = json.dumps({"workflowId": "trivial", "steps": list(STEPS), "createdAt": _now()})
        self.connection.execute("BEGIN IMMEDIATE")
        self.connection.execute("INSERT INTO runs VALUES (?, 'NEW', NULL, NULL, ?)", (run_id, body))
        self.connection.executemany(
            "INSERT INTO steps VALUES (?, ?, 'NEW', ?)",
            [(run_id, step, json.dumps({"pipelineId": step})) for step in STEPS],
        )
        self.connection.execute("COMMIT")
        self._write(
            ("UPDATE runs SET status = 'RUNNING', started = ? WHERE id = ?", (_now(), run_id))
        )
        for step in STEPS:
            self._write(
                ("UPDATE steps SET status = 'RUNNING' WHERE run = ? AND step = ?", (run_id, step)),
                (
                    "INSERT INTO attempts VALUES (?, ?, 1, 'RUNNING', ?, NULL)",
                    (run_id, step, _now()),
                ),
            )
            _noop()
            self._write(
                (
                    "UPDATE steps SET status = 'SUCCEEDED' WHERE run = ? AND step = ?",
                    (run_id, step),
                ),
                (
                    "UPDATE attempts SET status = 'SUCCEEDED', ended = ?"
                    " WHERE run = ? AND step = ? AND attempt = 1",
                    (_now(), run_id, step),
                ),
            )
        self._write(
            ("UPDATE runs SET status = 'SUCCEEDED', ended = ? WHERE id = ?", (_now(), run_id))
        )

    def close(self) -> None:
        self.connection.close()
