"""How close any Python could come to the statement replay: the least a writer of a run's rows adds.

`python -m tests.bench.runner_floor [folder]` (the folder holds the bench's files; default a new
temporary one). A warm recorded 3-step run is captured as `runner.py`'s replay captures it; the
floor is that replay plus what any program writing the same rows must do in Python on top of SQLite:
encode each JSON item the statements carry (decoded once beforehand, so only the encode is timed),
make a run's fresh ids and date texts, and the run's system calls (its output folder's mkdir and
its runner record, `runs/<id>.json`, linked to the runner's one copy of it). It leaves out every
decision: the run's state, its guards, its events and costs. Printed beside the run, the replay
and the raw recorder, timed in turns in one process: the floor's ratios are the best
`runner_vs_replay_ratio` and `runner_vs_raw_ratio` a run of these rows could reach (issue 28's
targets are 1.6x and 8x).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path

from tests.bench.raw_recorder import RawRunRecorder
from tests.bench.runner import prepare, recorded_run
from tests.bench.statement_replay import StatementReplay, capture
from tests.bench.timing import Samples, time_each

ROUNDS, PER_ROUND, WARMUP = 5, 60, 50
IDS_PER_RUN, DATES_PER_RUN = 4, 20  # the run and its three steps; the dates its rows hold
_ITEM = re.compile(r"'(\{.*?\})'(?=[,) ])")  # a JSON item as a SQL literal
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def items_of(statements: list[str]) -> list[object]:
    """The JSON items the run's statements write, decoded."""
    found: list[object] = []
    for statement in statements:
        for literal in _ITEM.finditer(statement):
            found.append(json.loads(literal.group(1).replace("''", "'")))
    return found


def main(folder: Path) -> None:
    container, version = prepare(folder)
    for _ in range(WARMUP):
        recorded_run(container, version)
    database = container.sqlite_database()
    assert database.path is not None
    statements = capture(database, lambda: recorded_run(container, version))
    items = items_of(statements)
    runs, outputs = folder / "floor-runs", folder / "floor-outputs"
    runs.mkdir()
    outputs.mkdir()
    made = iter(range(1_000_000))

    def encodes() -> None:
        for item in items:
            _encode(item)
        for _ in range(IDS_PER_RUN):
            uuid.uuid4().hex  # noqa: B018 - the id's cost is the point
        now = datetime.now(UTC)
        for _ in range(DATES_PER_RUN):
            now.isoformat()

    record = runs / "record.json"  # the runner's record, the same for each of its runs
    record.write_bytes(b'{"host": "vm", "pid": 1, "start_time": 1, "mode": "inline"}')

    def folder_calls() -> None:
        run = str(next(made))
        os.link(record, runs / f"{run}.json")  # as wfx does: a link costs no inode
        os.mkdir(outputs / run)

    replay = StatementReplay(database.path, statements)
    raw = RawRunRecorder(folder / "floor-raw.db")
    timed = {name: Samples() for name in ("run", "replay", "encodes", "folder", "raw")}
    for _ in range(ROUNDS):
        replay.prepare(PER_ROUND)
        timed["replay"].extend(time_each(replay.run, PER_ROUND))
        timed["encodes"].extend(time_each(encodes, PER_ROUND))
        timed["folder"].extend(time_each(folder_calls, PER_ROUND))
        timed["raw"].extend(time_each(raw.run, PER_ROUND))
        timed["run"].extend(time_each(lambda: recorded_run(container, version), PER_ROUND))
    replay.close()
    raw.close()
    database.close()
    ms = {name: samples.median_ms for name, samples in timed.items()}
    floor = ms["replay"] + ms["encodes"] + ms["folder"]
    print(f"{len(statements)} statements, {len(items)} JSON items")
    for name, value in ms.items():
        print(f"{name:8s} {value:.3f} ms (median of {ROUNDS * PER_ROUND})")
    replayed, raw_ms = ms["replay"], ms["raw"]
    print(
        f"floor    {floor:.3f} ms = {floor / replayed:.2f}x replay, {floor / raw_ms:.2f}x raw;"
        f" the run {ms['run'] / replayed:.2f}x replay, {ms['run'] / raw_ms:.2f}x raw"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="wfx-floor-")))
