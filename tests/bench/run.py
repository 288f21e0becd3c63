"""`make bench`: every measurement side by side, then bench-results.json and a summary table.

    .venv/bin/python -m tests.bench.run --sizes 1000,10000,100000
    .venv/bin/python -m tests.bench.run --only launch,runner --no-profile   # a quicker look

Nothing here asserts a timing: a target missed is a line in the report, not a failure. The exit
status is 1 only when a measurement could not run (the code under test raised); the others still
run and the JSON is still written, with the error under "failures".
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from entrypoints.container import Container
from tests.bench import (
    api,
    aws_round_trips,
    cold,
    details_latency,
    events,
    http_clients,
    lambda_cold,
    launch,
    lists,
    micro,
    profiling,
    registration,
    report,
    runner,
)
from tests.bench.fixtures import REPO

MEASUREMENTS = (
    "launch",
    "lists",
    "api",
    "runner",
    "registration",
    "events",
    "cold",
    "lambda",
    "http",
    "details",
)
RESULTS_FILE = REPO / "bench-results.json"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.run", description=__doc__)
    parser.add_argument(
        "--sizes",
        default="1000,10000,100000",
        help="table sizes for the list benchmark, comma-separated",
    )
    parser.add_argument(
        "--only", default=",".join(MEASUREMENTS), help=f"subset of {','.join(MEASUREMENTS)}"
    )
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile breakdowns")
    parser.add_argument(
        "--quick", action="store_true", help="few rounds, for checking the harness itself"
    )
    parser.add_argument("--output", type=Path, default=RESULTS_FILE)
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    return parser.parse_args(argv)


def _step(
    title: str, action: Callable[[], dict[str, Any]], failures: dict[str, str]
) -> dict[str, Any]:
    """Run one measurement; a failure is reported and the others still run."""
    print(f"-- {title} ...", end="", flush=True)
    started = time.perf_counter()
    try:
        result = action()
    except Exception as error:  # the code under test broke: say so, keep measuring the rest
        print(" FAILED", flush=True)
        traceback.print_exc()
        failures[title] = f"{type(error).__name__}: {error}"[-2000:]
        return {}
    print(f" {time.perf_counter() - started:.1f} s", flush=True)
    return result


def _watched(container: Container, runner_too: bool) -> list[profiling.Watched]:
    watched = [
        profiling.Watched("store", container.execution_store()),
        profiling.Watched("workflows", container.workflow_catalog()),
        profiling.Watched("assets", container.asset_catalog()),
    ]
    if runner_too:
        watched += [
            profiling.Watched("reporter", container.run_reporter()),
            profiling.Watched("runner", container.local_runner(), ("run", "_run_step")),
            profiling.Watched("objects", container.object_store(), ("list_latest", "put_file")),
            profiling.Watched(
                "logs", container.log_store(), ("step_log_pieces", "step_log_ids", "step_log_path")
            ),
        ]
    return watched


def _breakdown(
    call: Callable[[], object], count: int, watched: list[profiling.Watched]
) -> dict[str, Any]:
    return {
        "methods": profiling.method_breakdown(call, count, watched),
        "cprofile": profiling.profile(call, count),
    }


def _profiles(workdir: Path, only: set[str], quick: bool) -> dict[str, Any]:
    """Breakdowns of the three in-process paths, each on its own fresh files, after a warm-up."""
    count = 30 if quick else 300
    found: dict[str, Any] = {}
    if "launch" in only:
        bench = launch.prepare(workdir / "profile-launch")
        for _ in range(20):
            bench.launch_ours()
        found["launch"] = _breakdown(bench.launch_ours, count, _watched(bench.container, False))
        found["raw_launch"] = {"cprofile": profiling.profile(bench.launch_raw, count)}
        bench.raw.close()
    if "runner" in only:
        container, version = runner.prepare(workdir / "profile-runner")
        for _ in range(20):
            runner.recorded_run(container, version)
        found["runner"] = _breakdown(
            lambda: runner.recorded_run(container, version), count, _watched(container, True)
        )
    if "lists" in only:
        table = lists.prepare(workdir / "profile-lists", 10_000)
        page1 = table.calls["page1"]
        for _ in range(20):
            page1()
        found["list_first_page_10000"] = _breakdown(page1, count, _watched(table.container, False))
        table.raw.close()
    found["micro"] = micro.measure(workdir / "micro", count=200 if quick else 2_000)
    return found


def main(argv: list[str] | None = None) -> int:
    options = _arguments(argv)
    sizes = sorted(int(size) for size in options.sizes.split(",") if size.strip())
    only = {name.strip() for name in options.only.split(",") if name.strip()}
    unknown = only - set(MEASUREMENTS)
    if unknown:
        print(f"--only: unknown {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    quick = options.quick
    results: dict[str, Any] = {"machine": report.machine(), "sizes": sizes}
    workdir = Path(tempfile.mkdtemp(prefix="wfx-bench-"))
    failures: dict[str, str] = {}
    started = time.perf_counter()
    try:
        if "launch" in only:
            results |= _step(
                "launch: LaunchExecution vs raw sqlite3, interleaved rounds",
                lambda: launch.measure(
                    workdir / "launch",
                    rounds=2 if quick else 7,
                    launches_per_round=100 if quick else 1_000,
                    warmup=10 if quick else 100,
                ),
                failures,
            )
        if "lists" in only:
            results |= _step(
                f"lists: newest-first page at sizes {', '.join(map(str, sizes))}",
                lambda: lists.measure(
                    workdir / "lists",
                    sizes,
                    rounds=2 if quick else 5,
                    calls_per_round=10 if quick else 60,
                    warmup=5 if quick else 50,
                ),
                failures,
            )
        if "api" in only:
            results |= _step(
                "api: a 50-row list page through HTTP and authorization, and without",
                lambda: api.measure(
                    workdir / "api",
                    rounds=2 if quick else 5,
                    calls_per_round=10 if quick else 60,
                    warmup=5 if quick else 30,
                ),
                failures,
            )
        if "runner" in only:
            results |= _step(
                "runner: inline 3-step recorded runs",
                lambda: runner.measure(
                    workdir / "runner",
                    runs=20 if quick else 300,
                    rounds=2 if quick else 5,
                    warmup=5 if quick else 20,
                ),
                failures,
            )
        if "registration" in only:
            results |= _step(
                "registration: deliveries onto one step, then its details",
                lambda: registration.measure(
                    workdir / "registration",
                    redeliveries=20 if quick else 500,
                    detail_reads=20 if quick else 300,
                ),
                failures,
            )
        if "events" in only:
            results |= _step(
                "events: appends to one run's log beside raw sqlite3 appends",
                lambda: events.measure(
                    workdir / "events",
                    appends=50 if quick else 500,
                    rounds=2 if quick else 5,
                ),
                failures,
            )
        if "cold" in only:
            results |= _step(
                "cold: whole wfx processes",
                lambda: cold.measure(
                    workdir / "cold",
                    runs=3 if quick else 9,
                    warmup=1 if quick else 2,
                    importtime_repeats=1 if quick else 3,
                ),
                failures,
            )
        if "lambda" in only:
            results |= _step(
                "lambda: handlers' cold starts beside a bare Mangum app",
                lambda: lambda_cold.measure(
                    workdir / "lambda",
                    runs=3 if quick else 9,
                    warmup=1 if quick else 2,
                    importtime_repeats=1 if quick else 3,
                ),
                failures,
            )
        if "http" in only:
            results |= _step(
                "http: the list route of a real `wfx serve`, 1 and 8 clients",
                lambda: http_clients.measure(
                    workdir / "http",
                    rounds=1 if quick else 5,
                    seconds=0.5 if quick else 3.0,
                    warmup_s=0.5 if quick else 2.0,
                ),
                failures,
            )
        if "details" in only:
            results |= _step(
                "details: a run's details on DynamoDB and S3 (moto's answers, 5 ms a request)",
                lambda: details_latency.measure(workdir / "details", rounds=3 if quick else 20),
                failures,
            )
            results |= _step(
                "details: logs --full's sources and a list page's describes (5 ms a request)",
                lambda: aws_round_trips.measure(rounds=3 if quick else 20),
                failures,
            )
        if not options.no_profile:
            results["profiles"] = _step(
                "profiles: cProfile breakdowns", lambda: _profiles(workdir, only, quick), failures
            )
    finally:
        if options.keep:
            print(f"scratch files kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if failures:
        results["failures"] = failures
    rows = report.figures(results)
    results["targets"] = [row.as_json() for row in rows]
    results["bench_seconds"] = round(time.perf_counter() - started, 1)
    options.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print()
    print(report.table(rows))
    print(f"\n{options.output} written ({results['bench_seconds']} s)")
    for title, message in failures.items():
        print(f"FAILED: {title}: {message}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
