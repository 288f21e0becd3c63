"""Prefect 3's side of `make bench-peers`: a flow of three tasks, each returning a constant.

Runs with build/peers/prefect/bin/python (PYTHONPATH at the repo, for `peer_worker`), never in
wfx's virtualenv. The parent sets PREFECT_HOME to a scratch folder and
PREFECT_SERVER_ANALYTICS_ENABLED=false; everything else is Prefect's default, so each process that
runs a flow starts its temporary (ephemeral) API server as a subprocess, on SQLite in PREFECT_HOME.

    python -m tests.bench.peer_prefect worker   # warm runs on request (tests/bench/peer_worker.py)
    python -m tests.bench.peer_prefect once     # one flow run: the cold one-run process

Modes of the worker: `default` (Prefect's settings: a heartbeat thread per flow run, joined for
up to 2 s at its end), `no_heartbeat` (PREFECT_FLOWS_HEARTBEAT_FREQUENCY=None, which only code can
set: the environment variable rejects an empty value), `record` (a flow run created in a
Completed state through the client, not executed: fills the history that `prefect flow-run ls`
lists, without minutes of real runs).
"""

from __future__ import annotations

import sys
import time
from contextlib import AbstractContextManager
from importlib import metadata
from typing import Any

from tests.bench.peer_worker import Mode, protocol_stream, serve

# Prefect is not installed where mypy runs: its objects are Any here, and no decorator syntax is
# used, so strict typing keeps the functions below typed.


def _constant() -> int:
    return 1


def build_flow() -> Any:
    from prefect import flow, task

    steps = [task(name=f"noop-{index}")(_constant) for index in (1, 2, 3)]

    def trivial() -> None:
        for step in steps:
            step()

    return flow(name="trivial")(trivial)


def _no_heartbeat() -> AbstractContextManager[Any]:
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    context: AbstractContextManager[Any] = temporary_settings(
        {PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}
    )
    return context


def _recorder(trivial: Any) -> Any:
    from prefect.client.orchestration import get_client
    from prefect.states import Completed

    client: Any = get_client(sync_client=True)
    client.__enter__()  # left open for the worker's life; the process exit closes it

    def record() -> None:
        client.create_flow_run(trivial, state=Completed())

    return record


def worker() -> None:
    answers = protocol_stream()
    started = time.perf_counter()
    trivial = build_flow()
    trivial()  # untimed: starts the temporary server, creates and migrates its database
    first_run_s = time.perf_counter() - started
    modes = {
        "default": Mode(trivial),
        "no_heartbeat": Mode(trivial, _no_heartbeat),
        "record": Mode(_recorder(trivial)),
    }
    ready = {"version": metadata.version("prefect"), "first_run_s": round(first_run_s, 3)}
    serve(answers, modes, ready)


def once() -> None:
    build_flow()()


if __name__ == "__main__":
    {"worker": worker, "once": once}[sys.argv[1]]()
