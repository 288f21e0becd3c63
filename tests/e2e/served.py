"""A real `wfx serve` on a free port, as a user starts it, for the tests that need the
service's own process (its settings, its memory, its sessions)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.e2e.cli import Wfx

# what the tests ask to learn a service answers: a file, where /openapi.json would have the
# answering process build the API's schema first (about 0.5 s, on a test's clock)
ANSWERED_AT = "/static/viewer.css"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_answering(base: str, process: subprocess.Popen[str]) -> None:
    """Until the service at `base` answers; `process`, which serves it or started it, must not
    end meanwhile."""
    # a bound, not a pace: `--workers` starts more processes, which a loaded machine can delay
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{base}{ANSWERED_AT}", timeout=1)
            return
        except httpx.TransportError:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "wfx serve did not start listening in 60 s"
            time.sleep(0.1)


@contextmanager
def serving(
    wfx: Wfx,
    *args: str,
    said: list[str] | None = None,
    new_session: bool = False,
    cold: bool = False,
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """(base URL, process) of `wfx serve ARGS` once it listens; stopped with Ctrl-C after, unless
    the test ended it, and its stderr must hold no traceback (what it said there is added to
    `said`). `new_session`: in a process group of its own, as a terminal starts it; Ctrl-C then
    goes to the whole group, as a terminal sends it. `cold`: a fresh interpreter, not forked
    from the warm wfx, for a test that reads the service's memory (a fork starts with the warm
    wfx's pages counted, and its free heap reused without growing the count)."""
    port = free_port()
    start = wfx.start_cold if cold else wfx.start
    service = start("serve", "--port", str(port), *args, new_session=new_session)
    base = f"http://127.0.0.1:{port}"
    wait_until_answering(base, service)
    try:
        yield base, service
    finally:
        if service.poll() is None:
            if new_session:
                os.killpg(service.pid, signal.SIGINT)
            else:
                service.send_signal(signal.SIGINT)
        # a test that read the process's output itself leaves nothing more to read
        _, stderr = service.communicate(timeout=30)
        stderr = stderr or ""
        assert "Traceback" not in stderr, stderr
        assert "Warning:" not in stderr, stderr  # a library's warning is no message for a user
        if said is not None:
            said.extend(stderr.splitlines())
