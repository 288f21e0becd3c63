"""`make bench-peers`: the trivial 3-step workflow in wfx, raw sqlite3, Prefect 3 and Dagster.

    make bench-peers                               # installs the peers once, then this
    .venv/bin/python -m tests.bench.peers --quick  # few samples: checks the harness, not the code

Prefect and Dagster run in their own virtualenvs (build/peers/NAME, made by the Makefile), as
child processes of this one (tests/bench/peer_prefect.py, peer_dagster.py); wfx and the raw
recorder run here, in wfx's. In that order:

1. warm: a long-lived worker per peer times its runs in its own process and answers in JSON
   (tests/bench/peer_worker.py). Rounds in which every runner takes its turn, the order
   reversed every other round, so that a noisy minute hits all alike. Prefect's no-heartbeat runs
   each start 1 s after the previous run ended: back to back, its temporary server answers every
   other flow-run creation with 503 and the client backs off ~2 s (perf-anchors §2). Then each
   peer's history is topped up to 100 runs for the cold list, with records it creates untimed.
2. cold list, then cold run: whole new processes, interleaved rounds (tests/bench/cold.py), each
   command first run once untimed under tests/bench/tree_rss.py for the peak RSS of its tree.

bench-peers.json and the table in docs/performance.md come from tests/bench/peers_report.py.
Nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from tests.bench import cold, peers_report, report, runner, tree_rss
from tests.bench.fixtures import ASSET, REPO
from tests.bench.raw_recorder import RawRunRecorder
from tests.bench.timing import time_each

PEERS = REPO / "build" / "peers"
RESULTS_FILE = REPO / "bench-peers.json"
DOCS_FILE = REPO / "docs" / "performance.md"
HISTORY = cold.HISTORY  # runs in each home the cold lists read
NO_HEARTBEAT_PAUSE_S = 1.0


@dataclass(frozen=True)
class Plan:
    """How many samples of what: `--quick` keeps the shape with a few of each."""

    rounds: int
    per_round: Mapping[str, int]
    warmup: Mapping[str, int]
    cold_runs: int

    @classmethod
    def of(cls, quick: bool) -> Plan:
        if quick:
            counts = {"wfx": 10, "raw_sqlite3": 10, "prefect": 1, "prefect_no_heartbeat": 1}
            return cls(2, counts | {"dagster": 2}, {"wfx": 5, "raw_sqlite3": 5}, cold_runs=2)
        counts = {"wfx": 60, "raw_sqlite3": 60, "prefect": 4, "prefect_no_heartbeat": 4}
        warmup = {"wfx": 20, "raw_sqlite3": 20, "prefect": 1, "prefect_no_heartbeat": 1}
        return cls(5, counts | {"dagster": 6}, warmup | {"dagster": 2}, cold_runs=5)


def python_of(peer: str) -> Path:
    return PEERS / peer / "bin" / "python"


def peer_environment(base: Mapping[str, str], scratch: Path) -> dict[str, str]:
    """What a peer process gets: scratch homes, Prefect's analytics off (there is no network
    here), and the repo on PYTHONPATH for the worker module. The ephemeral server's start-up
    timeout (20 s by default) is raised because its first start migrates the database, which
    can take longer on a loaded 2-CPU machine; it changes no timing, only when Prefect gives up."""
    return dict(base) | {
        "PREFECT_HOME": str(scratch / "prefect-home"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300",
        "DAGSTER_HOME": str(scratch / "dagster-home"),
        "PYTHONPATH": str(REPO),
    }


class Worker:
    """A peer's warm process: ask for COUNT runs of MODE, get the durations it timed itself."""

    def __init__(self, argv: list[str], environment: Mapping[str, str], log: Path) -> None:
        self._log: IO[str] = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            argv,
            env=dict(environment),
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,  # the peers' console logs: kept for a failure, never parsed
            text=True,
        )
        self.log = log
        self.name = " ".join(argv)
        self.ready: dict[str, Any] = {}
        self.runs_made = 0

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            tail = self.log.read_text(encoding="utf-8")[-3000:]
            raise RuntimeError(f"{self.name} ended early; its log ends:\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def wait_ready(self) -> dict[str, Any]:
        self.ready = self._answer()
        self.runs_made = 1  # the untimed first run
        return self.ready

    def runs(self, mode: str, count: int, pause: float = 0.0) -> list[float]:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{mode} {count} {pause}\n")
        self.process.stdin.flush()
        seconds: list[float] = self._answer()["seconds"]
        self.runs_made += count
        return seconds

    def close(self) -> None:
        if self.process.stdin is not None and self.process.poll() is None:
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


def warm_phase(
    workdir: Path, environment: Mapping[str, str], plan: Plan
) -> tuple[dict[str, list[float]], dict[str, Any]]:
    dagster_home = environment["DAGSTER_HOME"]
    prefect = Worker(
        [str(python_of("prefect")), "-m", "tests.bench.peer_prefect", "worker"],
        environment,
        workdir / "prefect-worker.log",
    )
    dagster = Worker(
        [str(python_of("dagster")), "-m", "tests.bench.peer_dagster", "worker", dagster_home],
        environment,
        workdir / "dagster-worker.log",
    )
    try:
        container, version = runner.prepare(workdir / "wfx-warm")
        raw = RawRunRecorder(workdir / "raw-runs.db")
        # both set up at once (untimed); Prefect's first run also migrates its database
        ready = {"prefect": prefect.wait_ready(), "dagster": dagster.wait_ready()}
        turns: dict[str, Callable[[int], list[float]]] = {
            "wfx": lambda n: time_each(lambda: runner.recorded_run(container, version), n),
            "raw_sqlite3": lambda n: time_each(raw.run, n),
            "prefect": lambda n: prefect.runs("default", n),
            "prefect_no_heartbeat": lambda n: prefect.runs("no_heartbeat", n, NO_HEARTBEAT_PAUSE_S),
            "dagster": lambda n: dagster.runs("default", n),
        }
        for name, count in plan.warmup.items():
            turns[name](count)
        samples: dict[str, list[float]] = {name: [] for name in turns}
        order = list(turns)
        for index in range(plan.rounds):
            for name in order if index % 2 == 0 else reversed(order):
                print(f"   round {index + 1}/{plan.rounds}: {name}", flush=True)
                samples[name].extend(turns[name](plan.per_round[name]))
        history = {}
        for name, worker in (("prefect", prefect), ("dagster", dagster)):
            worker.runs("record", max(0, HISTORY - worker.runs_made))
            history[name] = worker.runs_made
        container.sqlite_database().close()
        raw.close()
    finally:
        prefect.close()
        dagster.close()
    details = {"first_run_s": {name: answer["first_run_s"] for name, answer in ready.items()}}
    details["history_runs"] = history | {"wfx": HISTORY}
    details["versions"] = {name: answer["version"] for name, answer in ready.items()}
    return samples, details


def cold_phase(
    workdir: Path, environment: Mapping[str, str], plan: Plan
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], dict[str, dict[str, float]]]:
    home = workdir / "wfx-home"
    cold.prepare_home(home)
    wfx_env = cold.cold_environment(home)  # no PYTHONPATH: nothing extra on wfx's import path
    wfx = cold.wfx_command()
    prefect, dagster = str(python_of("prefect")), str(python_of("dagster"))
    dagster_home = environment["DAGSTER_HOME"]
    lists = [
        cold.Command("wfx", (*wfx, "executions", "list")),
        cold.Command(
            "prefect", (str(PEERS / "prefect" / "bin" / "prefect"), "flow-run", "ls"), environment
        ),
        cold.Command(
            "dagster",
            (dagster, "-m", "tests.bench.peer_dagster", "list", dagster_home),
            environment,
        ),
    ]
    runs = [
        cold.Command("python", (sys.executable, "-c", "pass")),
        cold.Command("wfx", (*wfx, "run", "demo/trivial", "--input", ASSET)),
        cold.Command("prefect", (prefect, "-m", "tests.bench.peer_prefect", "once"), environment),
        cold.Command("dagster", (dagster, "-m", "tests.bench.peer_dagster", "once"), environment),
    ]
    rss: dict[str, dict[str, float]] = {}
    timings = []
    # the home as cwd, as in `make bench`: the repo's folders must not shadow installed packages
    for kind, commands in (("list", lists), ("run", runs)):
        print(
            f"-- cold {kind}: peak RSS (untimed, also the warm-up), then timed rounds", flush=True
        )
        for command in commands:
            rss[f"{command.name}_{kind}"] = tree_rss.peak(
                command.argv, command.environment or wfx_env, home
            )
        timings.append(cold.subprocess_medians(commands, wfx_env, home, plan.cold_runs, 0))
    return timings[1], timings[0], rss


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.peers", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few samples: checks the harness")
    parser.add_argument("--output", type=Path, default=RESULTS_FILE)
    parser.add_argument("--docs", type=Path, default=DOCS_FILE, help="the table goes here")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = _arguments(argv)
    missing = [peer for peer in ("prefect", "dagster") if not python_of(peer).exists()]
    if missing:
        print(f"no virtualenv for {', '.join(missing)}: run `make bench-peers`", file=sys.stderr)
        return 2
    plan = Plan.of(options.quick)
    machine = report.machine()
    started = time.perf_counter()
    workdir = Path(tempfile.mkdtemp(prefix="wfx-bench-peers-"))
    environment = peer_environment(cold.cold_environment(workdir / "wfx-home"), workdir)
    try:
        print("-- warm: rounds of wfx, raw sqlite3, Prefect (twice), Dagster", flush=True)
        warm, details = warm_phase(workdir, environment, plan)
        cold_run, cold_list, rss = cold_phase(workdir, environment, plan)
    finally:
        if options.keep:
            print(f"scratch files kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    versions = {"wfx": metadata.version("wfx"), **details.pop("versions")}
    details |= {
        "plan": {"rounds": plan.rounds, "per_round": dict(plan.per_round)},
        "no_heartbeat_pause_s": NO_HEARTBEAT_PAUSE_S,
        "rss_method": "tree: RSS of the command and its descendants summed, sampled from /proc "
        f"every {tree_rss.INTERVAL} s, peak; largest_process: the largest one in those samples",
        "bench_seconds": round(time.perf_counter() - started, 1),
    }
    results = peers_report.build(machine, versions, warm, cold_run, cold_list, rss, details)
    options.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    table = peers_report.markdown(results)
    docs = options.docs.read_text(encoding="utf-8")
    options.docs.write_text(peers_report.replace_between_markers(docs, table), encoding="utf-8")
    print()
    print(table)
    print(f"\n{options.output} and {options.docs} written ({details['bench_seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
