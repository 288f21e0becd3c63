"""Waiting for a process to be gone: woken by its exit, not by a look every 20 ms (a real
process: its exit is the point)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from adapters.local.processes_on_host import start_time_of, wait_until_gone


@pytest.fixture
def reader() -> Iterator[subprocess.Popen[bytes]]:
    """A process that exits once its standard input is closed."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    yield process
    process.kill()
    process.wait()


def test_the_wait_is_woken_by_the_exit_and_never_looks_again_meanwhile(
    reader: subprocess.Popen[bytes],
) -> None:
    looks: list[float] = []
    started = start_time_of(reader.pid)
    gone: list[bool] = []
    waiting = threading.Thread(
        target=lambda: gone.append(wait_until_gone(reader.pid, started, 60, looks.append))
    )
    waiting.start()

    assert reader.stdin is not None
    reader.stdin.close()  # it exits (a zombie until reaped: gone all the same)
    waiting.join(60)

    assert gone == [True]
    assert looks == []  # no sleep between looks: the exit woke the wait


def test_a_process_still_running_at_the_end_of_the_wait_is_not_gone(
    reader: subprocess.Popen[bytes],
) -> None:
    started = start_time_of(reader.pid)
    assert started is not None

    assert not wait_until_gone(reader.pid, started, 0.05)
    assert wait_until_gone(reader.pid, started + 1, 60)  # its pid, another process: not it


def test_without_a_process_descriptor_it_looks_every_20_ms(
    reader: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    looks: list[float] = []

    def look(seconds: float) -> None:
        looks.append(seconds)
        if reader.stdin is not None and not reader.stdin.closed:
            reader.stdin.close()
        reader.wait()

    assert wait_until_gone(reader.pid, start_time_of(reader.pid), 60, look)
    assert looks == [0.02]
