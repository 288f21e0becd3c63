"""The supervisor of `wfx serve --workers N` deals connections by live counts: each to the
process with the fewest open (ties in turn), counted down as the processes tell it of closes.
Here the processes are this test, at the other ends of the pairs."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from entrypoints.cli.serve_processes import _Balancer, _Worker

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SCM_RIGHTS dealing is Linux's")


@contextmanager
def dealing(workers: int) -> Iterator[tuple[int, list[socket.socket]]]:
    """(port, the processes' ends of the pairs) of a balancer dealing on a free port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(workers)]
    for _, theirs in pairs:
        theirs.settimeout(10)
    balancer = _Balancer(listener, [_Worker(ours) for ours, _ in pairs])
    thread = threading.Thread(target=balancer.run)
    thread.start()
    try:
        yield listener.getsockname()[1], [theirs for _, theirs in pairs]
    finally:
        balancer.stop.set()
        thread.join()
        listener.close()
        for ours, theirs in pairs:
            ours.close()
            theirs.close()


def _connect(port: int, count: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]


def _taken(end: socket.socket, seconds: float) -> socket.socket | None:
    """The next connection handed on `end`, if one comes within `seconds`."""
    end.settimeout(seconds)
    try:
        _, fds, _, _ = socket.recv_fds(end, 1, 1)
    except TimeoutError:
        return None
    return socket.socket(fileno=fds[0])


def _dealt(ends: list[socket.socket], count: int) -> list[list[socket.socket]]:
    """The connections each end took, `count` in all and none left over (held open, as a
    serving process holds them)."""
    taken: list[list[socket.socket]] = [[] for _ in ends]
    while sum(map(len, taken)) < count:
        for index, end in enumerate(ends):
            connection = _taken(end, 0.05)
            if connection is not None:
                taken[index].append(connection)
    assert [_taken(end, 0.2) for end in ends] == [None] * len(ends)
    return taken


def _ports(connections: list[socket.socket]) -> set[int]:
    return {c.getpeername()[1] for c in connections}


def test_connections_opened_at_once_split_evenly_and_closes_are_counted() -> None:
    with dealing(2) as (port, ends):
        clients = _connect(port, 8)
        first, second = _dealt(ends, 8)
        assert (len(first), len(second)) == (4, 4)
        assert _ports(first) | _ports(second) == {c.getsockname()[1] for c in clients}

        ends[0].send(b"ccc")  # three of the first process's connections closed
        time.sleep(0.2)
        clients += _connect(port, 4)
        more_first, more_second = _dealt(ends, 4)
        # 1 open against 4: three to the first process, then the tie to the next in turn
        assert (len(more_first), len(more_second)) == (3, 1)
        for connection in clients + first + second + more_first + more_second:
            connection.close()


def test_a_process_gone_gets_no_more_connections() -> None:
    with dealing(2) as (port, ends):
        ends[0].close()
        time.sleep(0.2)
        clients = _connect(port, 4)
        (second,) = _dealt(ends[1:], 4)
        assert _ports(second) == {c.getsockname()[1] for c in clients}
        for connection in clients + second:
            connection.close()
