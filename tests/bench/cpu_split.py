"""A warm run, the raw recorder and the replay in CPU time as well as wall time: what the load adds.

`python -m tests.bench.cpu_split [runs]` (default 300). The bench's ratios (`runner.py`) divide
wall times: a 3.5 ms run is put off a busy machine's cores more often than a 0.35 ms raw run,
so ÷ raw grows with the load. Here each call is timed by `perf_counter` and by the calling
thread's CPU clock (its user and system time, no time spent waiting), after 20 warm ones; and
the process's involuntary context switches a call.

The three calls are interleaved, one of each a round, who goes first turning with the rounds:
this machine's speed moves by a third within a minute (one tree gave 3.36 ms a run, then 2.21 ms,
at the same load), so timed one after another the three would be measured at different speeds.
Each round's ratios (the run's time over the raw recorder's, over the replay's) are taken within
the round, a few milliseconds apart, and their median is the figure to read.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.bench.raw_recorder import RawRunRecorder
from tests.bench.runner import prepare, recorded_run
from tests.bench.statement_replay import StatementReplay, capture
from tests.bench.timing import median, median_ratio, turns

WARM = 20
NAMES = ("run", "raw", "replay")


def interleaved(calls: dict[str, Callable[[], object]], runs: int) -> dict[str, dict[str, float]]:
    """Median wall and thread-CPU milliseconds of `runs` rounds, each calling every call once.

    Also each call's median ratio to the first call within a round (`run_over_wall`,
    `run_over_cpu`), and the involuntary switches a round.
    """
    wall: dict[str, list[float]] = {name: [] for name in calls}
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
    for order in turns(list(calls), runs):
        for name in order:
            started, used = time.perf_counter(), time.thread_time()
            calls[name]()
            cpu[name].append(time.thread_time() - used)
            wall[name].append(time.perf_counter() - started)
    switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw - switches
    first = next(iter(calls))
    return {
        name: {
            "wall_ms": median(wall[name]) * 1000,
            "cpu_ms": median(cpu[name]) * 1000,
            "run_over_wall": median_ratio(wall[first], wall[name]),
            "run_over_cpu": median_ratio(cpu[first], cpu[name]),
            "switches": switches / runs,
        }
        for name in calls
    }


def measure(folder: Path, runs: int) -> dict[str, dict[str, float]]:
    container, version = prepare(folder)
    database = container.sqlite_database()
    assert database.path is not None
    raw = RawRunRecorder(folder / "raw-runs.db")

    def run() -> None:
        recorded_run(container, version)

    for _ in range(WARM):
        run()
        raw.run()
    replay = StatementReplay(database.path, capture(database, run))
    replay.prepare(WARM + runs)
    for _ in range(WARM):
        replay.run()
    try:
        return interleaved({"run": run, "raw": raw.run, "replay": replay.run}, runs)
    finally:
        replay.close()
        raw.close()
        database.close()


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="wfx-cpu-split-") as folder:
        figures = measure(Path(folder), runs)
    for name, figure in figures.items():
        print(f"{name:6}  wall {figure['wall_ms']:.3f} ms  CPU {figure['cpu_ms']:.3f} ms")
    print(f"{figures['run']['switches']:.2f} involuntary switches a round of three calls")
    for other in NAMES[1:]:
        figure = figures[other]
        print(
            f"run / {other}, the median of each round's: wall {figure['run_over_wall']:.2f}x"
            f"  CPU {figure['run_over_cpu']:.2f}x"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
