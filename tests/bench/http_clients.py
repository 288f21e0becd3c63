"""The list route of a real `wfx serve` with 1 and with 8 concurrent clients, side by side.

One SQLite `WFX_HOME` of 1,000 finished runs, served twice at once on two ports: `wfx serve
--workers 1` (one process) and `wfx serve` with its default, one process per core. Each client
is a thread holding one keep-alive connection (opened before the timed window) that asks
`GET /workflows/executions?maxItems=50` as an admin again and again for a phase's seconds and
times each answer; an answer counts only as a 200 holding 50 items. Phases of 1 and of 8
clients on each service take turns round by round (the order reversed every other round); an
idle service waits on its socket. Throughput: answers ÷ the phase's wall time; latencies: all
answers of all rounds. `http_concurrency_gain` is 8 clients' throughput ÷ 1 client's on the
default service, `http_p99_ratio` their p99s; `http_detail` has every figure of both services,
with `cores_used`: the CPU seconds the service's processes took (/proc) ÷ the phase's wall time,
which says how much of the machine the service got (a busy machine gives it less).
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from entrypoints.settings import machine_cores
from tests.bench import lists
from tests.bench.cold import cold_environment
from tests.bench.fixtures import REPO, USER, bench_container
from tests.bench.timing import median, percentile

RUNS = 1_000
PAGE = 50
CLIENTS = 8
PATH = f"/workflows/executions?maxItems={PAGE}"
PROGRAM = "from entrypoints.cli.program import main; main()"
START_TIMEOUT_S = 60.0


def prepare(home: Path) -> str:
    """The home's database filled with finished runs; an admin's token for it."""
    container = bench_container(home, database="wfx.db", run_steps=False)
    lists.fill(container, RUNS, seed=RUNS)
    token = container.token_issuer().issue(USER, timedelta(hours=4), ("admin",))
    container.sqlite_database().close()
    return token


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/openapi.json")
        return connection.getresponse().status == 200
    except OSError:
        return False


def _service_pids(pid: int) -> list[int]:
    """The service's process and every process under it."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        stat = _stat(int(entry)) if entry.isdigit() else None
        if stat is not None:
            parents.setdefault(int(stat[1]), []).append(int(entry))
    found, waiting = [pid], [pid]
    while waiting:
        children = parents.get(waiting.pop(), [])
        found += children
        waiting += children
    return found


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return text.rpartition(")")[2].split()  # from field 3 (state) on


def _cpu_seconds(pids: list[int]) -> float:
    ticks = 0
    for pid in pids:
        stat = _stat(pid)
        if stat is not None:
            ticks += int(stat[11]) + int(stat[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Service:
    port: int
    pids: list[int]


@contextmanager
def serving(home: Path, workers: int, log: Path) -> Iterator[Service]:
    """`wfx serve --workers N` on a free port until it listens; Ctrl-C'd (SIGINT) after."""
    port = _free_port()
    environment = cold_environment(home) | {"PYTHONPATH": str(REPO / "src")}
    argv = [sys.executable, "-c", PROGRAM, "serve", "--port", str(port)]
    argv += ["--workers", str(workers)]
    with open(log, "w", encoding="utf-8") as said:
        service = subprocess.Popen(
            argv, env=environment, cwd=home, stdin=subprocess.DEVNULL, stdout=said, stderr=said
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _listening(port):
            if service.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"wfx serve --workers {workers} did not listen:\n{log.read_text()}"
                )
            time.sleep(0.2)
        yield Service(port, _service_pids(service.pid))
    finally:
        service.send_signal(signal.SIGINT)
        try:
            service.wait(timeout=30)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()


@dataclass
class Phase:
    """What the clients of one phase saw."""

    answers: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _client(
    connection: http.client.HTTPConnection,
    headers: dict[str, str],
    start: threading.Barrier,
    seconds: float,
    phase: Phase,
    lock: threading.Lock,
) -> None:
    clock = time.perf_counter
    latencies: list[float] = []
    errors: list[str] = []
    start.wait()
    until = clock() + seconds
    while clock() < until:
        began = clock()
        try:
            connection.request("GET", PATH, headers=headers)
            answer = connection.getresponse()
            body = answer.read()
        except (OSError, http.client.HTTPException) as error:
            errors.append(f"{type(error).__name__}: {error}")
            connection.close()  # the next request reconnects
            continue
        took = clock() - began
        # 50 items, each with its own workflowExecutionId, and nothing else counts as an answer
        if answer.status != 200 or body.count(b'"workflowExecutionId"') != PAGE:
            errors.append(f"{answer.status}: {body[:200]!r}")
            continue
        latencies.append(took)
    with lock:
        phase.latencies += latencies
        phase.errors += errors
        phase.answers += len(latencies)


def run_phase(service: Service, token: str, clients: int, seconds: float) -> Phase:
    """`clients` threads, each on its own connection, asking for `seconds`."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    phase, lock = Phase(), threading.Lock()
    start = threading.Barrier(clients + 1)
    connections = []
    for _ in range(clients):
        connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=60)
        connection.connect()  # the handshake is not part of the timed window
        connections.append(connection)
    threads = [
        threading.Thread(target=_client, args=(c, headers, start, seconds, phase, lock))
        for c in connections
    ]
    for thread in threads:
        thread.start()
    start.wait()
    began, cpu_before = time.perf_counter(), _cpu_seconds(service.pids)
    for thread in threads:
        thread.join()
    phase.seconds = time.perf_counter() - began
    phase.cpu_seconds = _cpu_seconds(service.pids) - cpu_before
    for connection in connections:
        connection.close()
    return phase


def _summary(phases: list[Phase]) -> dict[str, Any]:
    latencies = [took for phase in phases for took in phase.latencies]
    answers = sum(phase.answers for phase in phases)
    seconds = sum(phase.seconds for phase in phases)
    cpu_seconds = sum(phase.cpu_seconds for phase in phases)
    return {
        "req_per_s": round(answers / seconds, 1),
        "cores_used": round(cpu_seconds / seconds, 2),
        "cpu_ms_per_request": round(cpu_seconds / max(answers, 1) * 1000, 2),
        "p50_ms": round(median(latencies) * 1000, 2),
        "p90_ms": round(percentile(latencies, 0.90) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "answers": answers,
        "errors": sum(len(phase.errors) for phase in phases),
        "first_errors": [error for phase in phases for error in phase.errors][:5],
        "req_per_s_by_round": [round(phase.answers / phase.seconds, 1) for phase in phases],
    }


def measure(workdir: Path, rounds: int, seconds: float, warmup_s: float) -> dict[str, Any]:
    home = workdir / "home"
    token = prepare(home)
    services = sorted({1, machine_cores()})
    taken: dict[tuple[int, int], list[Phase]] = {}
    with ExitStack() as stack:
        served = {
            workers: stack.enter_context(serving(home, workers, workdir / f"serve-{workers}.log"))
            for workers in services
        }
        turns = [(workers, clients) for workers in services for clients in (1, CLIENTS)]
        for workers in services:  # every worker process builds its routes on its first requests
            run_phase(served[workers], token, CLIENTS, warmup_s)
        for index in range(rounds):
            for workers, clients in turns if index % 2 == 0 else reversed(turns):
                phase = run_phase(served[workers], token, clients, seconds)
                taken.setdefault((workers, clients), []).append(phase)
    by_workers: dict[str, Any] = {}
    for workers in services:
        one, many = _summary(taken[(workers, 1)]), _summary(taken[(workers, CLIENTS)])
        by_workers[str(workers)] = {
            "one_client": one,
            f"{CLIENTS}_clients": many,
            "gain": round(many["req_per_s"] / one["req_per_s"], 2),
            "p99_ratio": round(many["p99_ms"] / one["p99_ms"], 2),
        }
    default = by_workers[str(services[-1])]
    return {
        "http_one_client_req_per_s": default["one_client"]["req_per_s"],
        "http_clients_req_per_s": default[f"{CLIENTS}_clients"]["req_per_s"],
        "http_concurrency_gain": default["gain"],
        "http_one_client_p99_ms": default["one_client"]["p99_ms"],
        "http_clients_p99_ms": default[f"{CLIENTS}_clients"]["p99_ms"],
        "http_p99_ratio": default["p99_ratio"],
        "http_errors": sum(
            figures[key]["errors"]
            for figures in by_workers.values()
            for key in ("one_client", f"{CLIENTS}_clients")
        ),
        "http_detail": {
            "workers": services[-1],
            "clients": CLIENTS,
            "runs": RUNS,
            "page": PAGE,
            "rounds": rounds,
            "seconds_per_phase": seconds,
            "cores": machine_cores(),
            "load_average_at_end": round(os.getloadavg()[0], 2),
            "by_workers": by_workers,
        },
    }
