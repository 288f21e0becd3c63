"""Runner overhead: a whole recorded three-step run, inline, minus the steps' own work.

The trivial workflow (`examples/trivial/`) runs on a SQLite file with `runner_mode="inline"`, so
`launch_execution().execute(...)` returns once the launch, the three steps (each RUNNING then
SUCCEEDED, with the output-folder diff) and the completion are all committed. The direct figure
calls the same three step functions back to back with the same arguments. The floor is
`raw_recorder.RawRunRecorder` on its own file, run for run beside ours: plain `sqlite3` making
the same 9 commits durable, no layers (`runner_vs_raw_ratio`, issue 28: 8x at most). Beside
both, `statement_replay.StatementReplay` replays wfx's own statements for one run with plain
`sqlite3` (`runner_vs_replay_ratio`, 1.6x at most: what wfx's Python adds to the SQLite work
it asks for). The four calls are interleaved one each a round, who goes first turning, and each
ratio is the median of the rounds' own: the machine's speed moves within a minute.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from adapters.local.step_execution import load_handler
from application.use_cases.launch_execution import LaunchExecutionCommand
from domain.statuses import ExecutionStatus
from domain.workflow import WorkflowVersion
from entrypoints.container import Container
from tests.bench.fixtures import TRIVIAL_WORKFLOW, USER, bench_container, publish
from tests.bench.raw_recorder import RawRunRecorder
from tests.bench.statement_replay import StatementReplay, capture
from tests.bench.timing import Samples, median, median_ratio, time_each, turns


def prepare(workdir: Path) -> tuple[Container, WorkflowVersion]:
    container = bench_container(workdir, runner_mode="inline")
    return container, publish(container, TRIVIAL_WORKFLOW)


def recorded_run(container: Container, version: WorkflowVersion) -> None:
    command = LaunchExecutionCommand(
        workflow_database_id=version.database_id, workflow_id=version.workflow_id, user_id=USER
    )
    execution = container.launch_execution().execute(command).execution  # inline: the final row
    if execution.status is not ExecutionStatus.SUCCEEDED:
        raise AssertionError(f"run {execution.workflow_execution_id} ended {execution.status}")


def direct_steps(version: WorkflowVersion, output_dir: Path) -> Any:
    """The three step functions called directly, as the runner would call them."""
    handlers = [load_handler(step.handler or "") for step in version.steps]
    folder = str(output_dir)

    def call() -> None:
        for handler in handlers:
            handler(
                input_files=[],
                output_dir=folder,
                execution_id="direct",
                pipeline_execution_id="direct",
            )

    return call


def measure(workdir: Path, runs: int, rounds: int, warmup: int) -> dict[str, Any]:
    """Warm runs interleaved call by call with the raw recorder, the replay and the direct calls.

    Each ratio is the median of the rounds' own (one call of each, who goes first turning:
    `timing.turns`); the runs/s figure is a block of back-to-back runs after each round.
    """
    container, version = prepare(workdir)

    def run() -> None:
        recorded_run(container, version)

    direct = direct_steps(version, workdir / "direct-output")
    raw = RawRunRecorder(workdir / "raw-runs.db")
    for _ in range(warmup):
        run()
        raw.run()
    database = container.sqlite_database()
    assert database.path is not None
    replay = StatementReplay(database.path, capture(database, run))
    calls = {"run": run, "raw": raw.run, "replay": replay.run, "direct": direct}
    samples = {name: Samples() for name in calls}
    per_round = max(1, -(-runs // rounds))
    throughput: list[float] = []
    clock = time.perf_counter
    for _ in range(rounds):
        replay.prepare(per_round)
        for order in turns(list(calls), per_round):
            for name in order:
                started = clock()
                calls[name]()
                samples[name].add(clock() - started)
        started = clock()
        time_each(run, per_round)
        throughput.append(per_round / (clock() - started))
    database.close()
    raw.close()
    replay.close()
    return _figures(samples, replay, throughput)


def _figures(
    samples: dict[str, Samples], replay: StatementReplay, throughput: list[float]
) -> dict[str, Any]:
    recorded, floor, replayed = samples["run"], samples["raw"], samples["replay"]
    return {
        "runner_vs_raw_ratio": round(median_ratio(recorded.seconds, floor.seconds), 2),
        "raw_recorder_run": floor.summary_ms(),
        "runner_vs_replay_ratio": round(median_ratio(recorded.seconds, replayed.seconds), 2),
        "statement_replay_run": replayed.summary_ms(),
        "replay_vs_raw_ratio": round(median_ratio(replayed.seconds, floor.seconds), 2),
        "runner_statements_per_run": len(replay.statements),
        "runner_transactions_per_run": replay.transactions,
        "runner_overhead_ms": round(recorded.median_ms - samples["direct"].median_ms, 4),
        "runner_runs_per_s": round(median(throughput), 1),
        "runner_run": recorded.summary_ms(),
        "runner_direct_steps": samples["direct"].summary_ms(),
        "runner_rounds_runs_per_s": [round(r, 1) for r in throughput],
    }
