"""A real `wfx serve` on a free port, as a user starts it, for the tests that need the
service's own process (its settings, its memory, its sessions)."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.e2e.cli import Wfx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(
    wfx: Wfx, *args: str, said: list[str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """(base URL, process) of `wfx serve` once it listens; stopped with Ctrl-C after, and its
    stderr must hold no traceback (what it said there is added to `said`)."""
    port = free_port()
    service = wfx.start("serve", "--port", str(port), *args)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"{base}/openapi.json", timeout=1)
            break
        except httpx.TransportError:
            assert service.poll() is None, service.communicate()
            assert time.monotonic() < deadline, "wfx serve did not start listening in 30 s"
            time.sleep(0.1)
    try:
        yield base, service
    finally:
        if service.poll() is None:
            service.send_signal(signal.SIGINT)
        _, stderr = service.communicate(timeout=20)
        assert "Traceback" not in stderr, stderr
        if said is not None:
            said.extend(stderr.splitlines())
