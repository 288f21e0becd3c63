"""Dagster's side of `make bench-peers`: a job of three ops in a chain, each returning a constant.

Runs with build/peers/dagster/bin/python (PYTHONPATH at the repo, for `peer_worker`), never in
wfx's virtualenv; DAGSTER_HOME is a scratch folder. Runs are recorded durably on
`DagsterInstance.local_temp()`, whose run and event-log storages are SQLite files.

    python -m tests.bench.peer_dagster worker HOME   # warm runs on request, on local_temp(HOME)
    python -m tests.bench.peer_dagster once          # one run on a fresh local_temp(): cold
    python -m tests.bench.peer_dagster list HOME     # instance.get_runs(limit=20) on HOME: cold

The worker keeps its instance in HOME (local_temp's `tempdir`), so the runs it makes are the
history that `list` reads in a new process. Modes: `default` (one run) and `record` (the same
run, untimed use: tops the history up to the size wfx's list is measured on). Console logging is
left at its defaults; the parent sends it to a file.
"""

from __future__ import annotations

import os
import sys
import time
from importlib import metadata
from typing import Any

from tests.bench.peer_worker import Mode, protocol_stream, serve

LIST_LIMIT = 20  # the page `wfx executions list` shows


def _first() -> int:
    return 1


def _after(previous: int) -> int:
    return 1


def build_job() -> Any:
    from dagster import job, op

    first = op(name="noop_1")(_first)
    second = op(name="noop_2")(_after)
    third = op(name="noop_3")(_after)

    def trivial() -> None:
        third(second(first()))

    return job(name="trivial")(trivial)


def _instance(home: str | None) -> Any:
    from dagster import DagsterInstance

    return DagsterInstance.local_temp(tempdir=home)


def _runner(trivial: Any, instance: Any) -> Any:
    def run() -> None:
        result = trivial.execute_in_process(instance=instance)
        if not result.success:
            raise RuntimeError(f"dagster run {result.run_id} failed")

    return run


def _recorder(trivial: Any, instance: Any) -> Any:
    from dagster import DagsterRunStatus

    def record() -> None:
        instance.create_run_for_job(job_def=trivial, status=DagsterRunStatus.SUCCESS)

    return record


def worker(home: str) -> None:
    answers = protocol_stream()
    os.makedirs(home, exist_ok=True)  # local_temp(tempdir) wants the folder to exist
    started = time.perf_counter()
    trivial = build_job()
    instance = _instance(home)
    run = _runner(trivial, instance)
    run()  # untimed: creates the SQLite storages
    first_run_s = time.perf_counter() - started
    ready = {"version": metadata.version("dagster"), "first_run_s": round(first_run_s, 3)}
    modes = {"default": Mode(run), "record": Mode(_recorder(trivial, instance))}
    serve(answers, modes, ready)


def once() -> None:
    _runner(build_job(), _instance(None))()


def list_runs(home: str) -> None:
    runs = _instance(home).get_runs(limit=LIST_LIMIT)
    for record in runs:
        print(record.run_id, record.job_name, record.status.value)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "worker":
        worker(sys.argv[2])
    elif command == "list":
        list_runs(sys.argv[2])
    else:
        once()
