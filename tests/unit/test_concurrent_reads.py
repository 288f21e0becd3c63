"""Reads sent at once (the DynamoDB store's and archive's, the S3 object store's): answers in
order, a failure after all have ended, and a forked child with read threads of its own (a real
fork: a child given its parent's pool would wait for ever)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import pytest

from adapters import concurrent_reads
from adapters.concurrent_reads import THREAD_NAME_PREFIX, ConcurrentReads


def _slow(answer: int, seconds: float, threads: list[str]) -> Callable[[], int]:
    def read() -> int:
        threads.append(threading.current_thread().name)
        time.sleep(seconds)
        return answer

    return read


def test_the_answers_come_in_the_order_asked_whatever_order_they_end_in() -> None:
    threads: list[str] = []
    reads = [_slow(n, 0.05 - n * 0.01, threads) for n in range(5)]
    assert ConcurrentReads().each(reads) == [0, 1, 2, 3, 4]
    assert all(name.startswith(THREAD_NAME_PREFIX) for name in threads), threads


def test_reads_sent_at_once_are_all_in_flight_together() -> None:
    """Each read waits until all six are running: sent one after another, the first would wait
    for ever (here, until the barrier's timeout breaks it)."""
    together = threading.Barrier(6, timeout=30)

    def read(n: int) -> Callable[[], int]:
        def waits_for_the_others() -> int:
            together.wait()
            return n

        return waits_for_the_others

    assert ConcurrentReads().each([read(n) for n in range(6)]) == list(range(6))


def test_one_after_another_reads_in_the_callers_thread() -> None:
    threads: list[str] = []
    answers = ConcurrentReads(at_once=False).each([_slow(n, 0, threads) for n in range(3)])
    assert answers == [0, 1, 2]
    assert threads == [threading.current_thread().name] * 3


def test_the_first_failure_in_order_is_raised_once_every_read_has_ended() -> None:
    ended: list[int] = []

    def fails(message: str, seconds: float) -> Callable[[], int]:
        def read() -> int:
            time.sleep(seconds)
            ended.append(1)
            raise LookupError(message)

        return read

    def succeeds(seconds: float) -> Callable[[], int]:
        def read() -> int:
            time.sleep(seconds)
            ended.append(1)
            return 0

        return read

    reads = [succeeds(0.1), fails("second", 0.05), fails("third", 0.0), succeeds(0.4)]
    with pytest.raises(LookupError, match="second"):
        ConcurrentReads().each(reads)
    assert len(ended) == 4  # nothing left running behind the caller


def test_a_forked_child_reads_on_threads_of_its_own() -> None:
    threads: list[str] = []
    ConcurrentReads().each([_slow(n, 0, threads) for n in range(3)])  # the parent's pool exists
    child = os.fork()
    if child == 0:  # pragma: no cover  # the child's answer is its exit status
        try:
            answers = ConcurrentReads().each([_slow(n, 0.01, []) for n in range(4)])
            os._exit(0 if answers == [0, 1, 2, 3] else 1)
        finally:
            os._exit(2)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.02)
    os.kill(child, 9)
    os.waitpid(child, 0)
    raise AssertionError("the forked child's reads never ended: it waited on its parent's pool")


def test_reads_that_read_at_once_themselves_never_wait_on_each_other() -> None:
    """More outer reads than threads, each sending reads at once: were the inner reads queued
    behind the outer ones, every thread would wait for ever."""

    def outer(n: int) -> Callable[[], list[int]]:
        return lambda: ConcurrentReads().each([_slow(n * 10 + k, 0.01, []) for k in range(3)])

    answers: list[list[int]] = []
    reading = threading.Thread(
        target=lambda: answers.extend(ConcurrentReads().each([outer(n) for n in range(12)])),
        daemon=True,
    )
    reading.start()
    reading.join(timeout=20)
    assert answers == [[n * 10 + k for k in range(3)] for n in range(12)]


def test_reads_after_the_threads_are_shut_down_go_one_after_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As at the interpreter's end, when a daemon thread still reads: no new thread may start."""
    pool = concurrent_reads._ProcessPool()
    pool.get().shutdown()
    monkeypatch.setattr(concurrent_reads, "_threads", pool)
    threads: list[str] = []

    answers = ConcurrentReads().each([_slow(n, 0, threads) for n in range(3)])

    assert answers == [0, 1, 2]
    assert threads == [threading.current_thread().name] * 3
