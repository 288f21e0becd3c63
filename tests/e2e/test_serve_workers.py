"""`wfx serve --workers 2` as a user runs it from a terminal: two serving processes under one
supervisor, runs launched through either of them each started once, one viewer session for
both, and Ctrl-C (SIGINT to the terminal's process group) leaving none of them behind."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import select
import signal
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from adapters.local.processes_on_host import ProcessStat, command_line, read_stat
from tests.e2e.cli import USER, Wfx
from tests.e2e.served import ANSWERED_AT, free_port, serving

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("serve-workers")]

RUNS = 4
RUN_WORKER = "internal-run-worker"


def _live_descendants(root: int) -> list[ProcessStat]:
    """Every live process under `root`, from /proc's parent links."""
    stats = [read_stat(int(entry)) for entry in os.listdir("/proc") if entry.isdigit()]
    children: dict[int, list[ProcessStat]] = {}
    for stat in stats:
        if stat is not None and stat.state not in ("Z", "X"):
            children.setdefault(stat.ppid, []).append(stat)
    found, waiting = [], [root]
    while waiting:
        for child in children.get(waiting.pop(), []):
            found.append(child)
            waiting.append(child.pid)
    return found


def _fork_servers(service: int) -> set[int]:
    """The service's fork server (multiprocessing's, a child of the service), once started."""
    return {
        s.pid
        for s in _live_descendants(service)
        if s.ppid == service and "multiprocessing.forkserver" in command_line(s.pid)
    }


def _serving_processes(service: int) -> list[ProcessStat]:
    """The service's serving processes: those its fork server forked."""
    servers = _fork_servers(service)
    return [s for s in _live_descendants(service) if s.ppid in servers]


def _still_running(stat: ProcessStat) -> bool:
    now = read_stat(stat.pid)
    return now is not None and now.start_time == stat.start_time and now.state not in ("Z", "X")


def _left_running(processes: list[ProcessStat]) -> list[ProcessStat]:
    """Those of `processes` still running once they had a few seconds to end: the last of them
    may still be on its way out when the service's own process has ended."""
    deadline = time.monotonic() + 5
    while (left := [s for s in processes if _still_running(s)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def _run_workers() -> dict[str, int]:
    """How many live run workers each execution has on this host, by execution id. A worker's
    own child between its fork and its exec (the step's command starting) still shows the
    worker's command line: a process whose parent is a worker of the same run is not counted."""
    workers: dict[int, tuple[int, str]] = {}  # pid -> (parent pid, execution id)
    for entry in os.listdir("/proc"):
        stat = read_stat(int(entry)) if entry.isdigit() else None
        if stat is None or stat.state in ("Z", "X"):
            continue
        words = command_line(stat.pid).split()
        if RUN_WORKER in words[:-1]:
            workers[stat.pid] = (stat.ppid, words[words.index(RUN_WORKER) + 1])
    counted: dict[str, int] = {}
    for parent, execution_id in workers.values():
        if workers.get(parent, (0, ""))[1] != execution_id:
            counted[execution_id] = counted.get(execution_id, 0) + 1
    return counted


@pytest.fixture
def two_workers(tmp_path: Path) -> Iterator[tuple[Wfx, str, subprocess.Popen[str]]]:
    """A service of its own, for a test that stops it or one of its processes."""
    wfx = Wfx(tmp_path / "home")
    # as a terminal starts it: a process group of its own, which Ctrl-C signals whole
    with serving(wfx, "--workers", "2", new_session=True) as (base, service):
        yield wfx, base, service


@dataclass(frozen=True)
class Shared:
    wfx: Wfx
    base: str
    service: subprocess.Popen[str]
    said_first: str  # what it said on stderr up to its line saying it serves


@pytest.fixture(scope="module")
def shared_two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    """One service for the tests that leave it running (its start is most of each test's time),
    asked for two processes by the setting rather than the option."""
    wfx = Wfx(tmp_path_factory.mktemp("shared") / "home").with_environment(WFX_SERVE_WORKERS="2")
    with serving(wfx) as (base, service):
        yield Shared(wfx, base, service, _said_until(service, "wfx serving "))


def _said_until(service: subprocess.Popen[str], start: str) -> str:
    """What `service` said on stderr up to its first line beginning with `start`, read from
    the pipe itself (the rest is left for the end, to read whole)."""
    assert service.stderr is not None
    said = b""
    deadline = time.monotonic() + 30
    while not re.search(rb"^" + re.escape(start.encode()) + rb".*\n", said, re.M):
        assert time.monotonic() < deadline, said
        ready, _, _ = select.select([service.stderr.fileno()], [], [], 1)
        if ready:
            chunk = os.read(service.stderr.fileno(), 4096)
            assert chunk, said  # ended
            said += chunk
    return said.decode()


def test_each_run_launched_through_two_workers_is_executed_once(
    shared_two_workers: Shared, tmp_path: Path
) -> None:
    wfx, base = shared_two_workers.wfx, shared_two_workers.base
    marks = tmp_path / "marks.txt"
    # each execution of the step leaves one line, then stays a moment so /proc can be watched
    wfx.publish_command_step(
        "slow", f"import time\nopen({str(marks)!r}, 'a').write('ran\\n')\ntime.sleep(2)"
    )
    token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()
    headers = {"Authorization": f"Bearer {token}"}

    def launch(_: int) -> str:
        # a new connection each: the two processes take turns accepting them
        answer = httpx.post(
            f"{base}/workflows/executions",
            json={"workflowDatabaseId": "demo", "workflowId": "slow"},
            headers=headers,
            timeout=30,
        )
        assert answer.status_code == 201, answer.text
        return str(answer.json()["workflowExecutionId"])

    with ThreadPoolExecutor(RUNS) as pool:
        launched = set(pool.map(launch, range(RUNS)))
    most_workers: dict[str, int] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for execution_id, count in _run_workers().items():
            most_workers[execution_id] = max(count, most_workers.get(execution_id, 0))
        statuses = {
            httpx.get(f"{base}/workflows/executions/{e}", headers=headers).json()["message"][
                "executionStatus"
            ]
            for e in launched
        }
        if statuses == {"SUCCEEDED"}:
            break
        time.sleep(0.1)

    assert statuses == {"SUCCEEDED"}
    assert len(launched) == RUNS
    assert {e: most_workers.get(e) for e in launched} == dict.fromkeys(launched, 1)
    assert marks.read_text(encoding="utf-8").splitlines() == ["ran"] * RUNS
    assert set(wfx.listed_ids()) == launched  # the store holds those runs, and no other


def test_a_viewer_session_holds_on_either_worker_and_ctrl_c_stops_every_process(
    two_workers: tuple[Wfx, str, subprocess.Popen[str]],
) -> None:
    wfx, base, service = two_workers
    serving = _serving_processes(service.pid)
    assert len(serving) == 2, [command_line(s.pid) for s in serving]
    token = wfx.ok("auth", "token", USER, "--role", "admin", "--ttl", "10m").stdout.strip()

    # each page on a new connection, so both processes render some: one CSRF token for all,
    # or a form rendered by one would be refused by the other
    tokens = set()
    for _ in range(12):
        with httpx.Client(base_url=base, cookies={"wfx_session": token}) as browser:
            page = browser.get("/")
            assert page.status_code == 200, page.text
            tokens.update(re.findall(r'name="csrf" value="([0-9a-f]+)"', page.text))
    assert len(tokens) == 1
    with httpx.Client(base_url=base, cookies={"wfx_session": token}) as browser:
        assert browser.post("/logout", data={"csrf": tokens.pop()}).status_code == 303

    every_process = _live_descendants(service.pid)
    os.killpg(service.pid, signal.SIGINT)  # what Ctrl-C in its terminal sends
    assert service.wait(timeout=30) == 0
    assert [command_line(s.pid) for s in _left_running(every_process)] == []
    _, stderr = service.communicate()
    assert "Traceback" not in stderr, stderr


def test_a_workers_setting_that_is_not_a_count_is_refused_by_name(tmp_path: Path) -> None:
    wfx = Wfx(tmp_path / "home")
    port = str(free_port())

    from_environment = wfx.with_environment(WFX_SERVE_WORKERS="two")("serve", "--port", port)
    from_option = wfx("serve", "--port", port, "--workers", "0")

    assert from_environment.code != 0 and from_option.code != 0
    assert "WFX_SERVE_WORKERS: must be a whole number of processes from 1 to 64, got 'two'" in (
        from_environment.stderr
    )
    assert "--workers" in from_option.stderr
    assert "Traceback" not in from_environment.stderr + from_option.stderr


def test_the_service_says_how_many_processes_serve(shared_two_workers: Shared) -> None:
    said = shared_two_workers.said_first
    assert f"on {shared_two_workers.base}, 2 processes" in said, said
    assert "Traceback" not in said, said


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_another_program_holds_is_refused_before_any_worker_starts(
    tmp_path: Path, workers: str
) -> None:
    """In one line, and the service never says it is serving."""
    wfx = Wfx(tmp_path / "home")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        refused = wfx("serve", "--port", str(port), "--workers", workers, timeout=30)

    assert refused.code == 1, str(refused)
    assert f"wfx: cannot listen on 127.0.0.1:{port}: Address already in use" in (
        refused.stderr_lines
    ), str(refused)
    assert "serving" not in refused.stderr and "Traceback" not in refused.stderr, str(refused)


def test_a_serving_process_that_dies_stops_the_service_whole(
    two_workers: tuple[Wfx, str, subprocess.Popen[str]],
) -> None:
    _, _, service = two_workers
    serving = _serving_processes(service.pid)
    every_process = _live_descendants(service.pid)

    os.kill(serving[0].pid, signal.SIGKILL)  # as the OOM killer would

    assert service.wait(timeout=30) == 1
    _, stderr = service.communicate()
    assert f"wfx: serving process {serving[0].pid} ended with exit code -9" in stderr
    assert [s.pid for s in _left_running(every_process)] == []


def test_serving_processes_end_when_the_supervisor_is_killed(
    two_workers: tuple[Wfx, str, subprocess.Popen[str]],
) -> None:
    """kill -9 of the process that deals the connections: its serving processes notice their
    dealer gone and end on their own, so the port is free for the next `wfx serve`."""
    _, base, service = two_workers
    serving = _serving_processes(service.pid)
    assert len(serving) == 2, [command_line(s.pid) for s in serving]

    os.kill(service.pid, signal.SIGKILL)

    assert service.wait(timeout=30) == -signal.SIGKILL
    assert [command_line(s.pid) for s in _left_running(serving)] == []
    port = int(base.rsplit(":", 1)[1])
    with socket.socket() as probe:
        # as a server binds (a closed connection's TIME_WAIT does not count); a listener would
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(("127.0.0.1", port))
        probe.listen()


def test_one_worker_serves_from_the_service_process_itself(tmp_path: Path) -> None:
    wfx = Wfx(tmp_path / "home")
    said: list[str] = []
    with serving(wfx, "--workers", "1", said=said) as (base, service):
        children = _live_descendants(service.pid)

    assert service.returncode == 0, said
    assert children == []
    assert f"on {base} (web viewer" in "\n".join(said), said


def _served(port: int) -> dict[int, tuple[str, int]]:
    """The service's side of the connections on `port` the service has not closed: (state,
    client port) by socket inode, from /proc/net/tcp (a socket still on its way to a process
    is listed too)."""
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                local_port = int(fields[1].rpartition(":")[2], 16)
                remote_port = int(fields[2].rpartition(":")[2], 16)
                if local_port == port and fields[3] in ("01", "08"):  # ESTABLISHED, CLOSE_WAIT
                    found[int(fields[9])] = (fields[3], remote_port)
    return found


def _held_by(pids: list[int], port: int) -> dict[int, int]:
    """The service's established connections on `port`, by the client's port: which of `pids`
    holds each (/proc/PID/fd names the socket inodes a process holds)."""
    inodes = {inode: client for inode, (state, client) in _served(port).items() if state == "01"}
    held: dict[int, int] = {}
    for pid in pids:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:[") and int(target[8:-1]) in inodes:
                    held[inodes[int(target[8:-1])]] = pid
    return held


def test_eight_connections_opened_at_once_land_four_on_each_worker(
    shared_two_workers: Shared,
) -> None:
    base, service = shared_two_workers.base, shared_two_workers.service
    port = int(base.rpartition(":")[2])
    serving = [s.pid for s in _serving_processes(service.pid)]
    splits = []
    for _ in range(3):
        # dealt by live counts: wait until the fixture's probes (some may wait for a process
        # still starting) or the last round's 8 are closed, and so counted
        deadline = time.monotonic() + 30
        while _served(port) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=30) for _ in range(8)]
        for connection in connections:
            connection.connect()
        for connection in connections:  # each answered, so its process has taken it
            connection.request("GET", ANSWERED_AT)
            assert connection.getresponse().read()
        clients = {c.sock.getsockname()[1] for c in connections}
        held = _held_by([service.pid, *serving], port)
        assert set(held) == clients, held  # each held by one process: none left with the first
        splits.append(sorted(Counter(held.values()).get(pid, 0) for pid in serving))
        for connection in connections:
            connection.close()
    assert splits == [[4, 4]] * 3


def test_ctrl_c_while_the_serving_processes_start_ends_the_service_quietly(
    tmp_path: Path,
) -> None:
    """Ctrl-C in the terminal reaches the whole group, the fork server among them while it
    still loads what the serving processes share: the service stops as on any Ctrl-C, with
    no traceback and no process left."""
    wfx = Wfx(tmp_path / "home")
    service = wfx.start("serve", "--port", str(free_port()), "--workers", "2", new_session=True)
    deadline = time.monotonic() + 60
    while not _fork_servers(service.pid):  # the fork server is loading: the start is under way
        assert service.poll() is None, service.communicate()
        assert time.monotonic() < deadline, "no fork server in 60 s"
        time.sleep(0.01)
    every_process = _live_descendants(service.pid)

    os.killpg(service.pid, signal.SIGINT)

    assert service.wait(timeout=30) == 0, service.communicate()
    _, stderr = service.communicate()
    assert "Traceback" not in stderr, stderr
    assert [command_line(s.pid) for s in _left_running(every_process)] == []
