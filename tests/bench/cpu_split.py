"""A warm run, the raw recorder and the replay in CPU time as well as wall time: what the load adds.

`python -m tests.bench.cpu_split [runs]` (default 300). The bench's ratios (`runner.py`) divide
wall times: a 3.5 ms run is put off a busy machine's cores more often than a 0.35 ms raw run,
so ÷ raw grows with the load. Here each call is timed by `perf_counter` and by the calling
thread's CPU clock (its user and system time, no time spent waiting), medians of `runs` calls of
each after 20 warm ones; and the process's involuntary context switches a call.
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
from tests.bench.timing import median

WARM = 20


def timed(call: Callable[[], object], runs: int) -> dict[str, float]:
    """Median wall and thread-CPU milliseconds of `runs` calls, and switches a call."""
    wall, cpu = [], []
    switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
    for _ in range(runs):
        started, used = time.perf_counter(), time.thread_time()
        call()
        cpu.append(time.thread_time() - used)
        wall.append(time.perf_counter() - started)
    switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw - switches
    return {
        "wall_ms": median(wall) * 1000,
        "cpu_ms": median(cpu) * 1000,
        "switches": switches / runs,
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
        return {
            "run": timed(run, runs),
            "raw": timed(raw.run, runs),
            "replay": timed(replay.run, runs),
        }
    finally:
        replay.close()
        raw.close()
        database.close()


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="wfx-cpu-split-") as folder:
        figures = measure(Path(folder), runs)
    for name, figure in figures.items():
        print(
            f"{name:6}  wall {figure['wall_ms']:.3f} ms  CPU {figure['cpu_ms']:.3f} ms"
            f"  {figure['switches']:.2f} switches a call"
        )
    run = figures["run"]
    for other in ("raw", "replay"):
        print(
            f"run / {other}: wall {run['wall_ms'] / figures[other]['wall_ms']:.2f}x"
            f"  CPU {run['cpu_ms'] / figures[other]['cpu_ms']:.2f}x"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
