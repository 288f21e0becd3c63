"""`wfx serve` from several processes on Linux: each listens on the same port through a socket of
its own (SO_REUSEPORT), so the kernel hands each new connection to one of them.

uvicorn's own workers share one listening socket, and whichever wakes first accepts every
connection waiting: measured, 8 keep-alive clients landed 8/0 or 7/1 on 2 processes, so one core
served them while the other idled. Here the kernel picks a process per connection (a hash of its
addresses). This process only supervises: it starts them (multiprocessing's spawn: a fresh
interpreter each, no thread or connection of ours copied), stops them all on SIGINT, SIGTERM or
SIGHUP, and stops the rest when one of them fails.
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
import sys
import threading
from types import FrameType

BACKLOG = 2048  # uvicorn's default
STOP_GRACE_SECONDS = 10.0
# by name: Windows has no SIGHUP, and imports this module too (to learn it is not Linux)
_STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def balanced_by_the_kernel() -> bool:
    """Whether this system spreads connections over sockets sharing a port (Linux does; BSD
    and macOS give them all to one)."""
    return sys.platform == "linux" and hasattr(socket, "SO_REUSEPORT")


def _socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto named: asyncio sets TCP_NODELAY only on connections of a socket that says TCP, and
    # without it a response's second write waits for the client's delayed ACK (~40 ms measured)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _serve_here(app: str, host: str, port: int) -> None:
    """One serving process: its own socket, uvicorn on it, the app built by `app`'s factory."""
    import uvicorn

    try:
        sock = _socket(host, port)
        sock.listen(BACKLOG)
        config = uvicorn.Config(
            app, factory=True, host=host, port=port, log_level="warning", server_header=False
        )
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C before uvicorn took the signals: the supervisor stops
        pass


def serve_from_processes(app: str, host: str, port: int, workers: int) -> int:
    """Serve `app` (an import string naming an app factory) from `workers` processes until a
    stop signal (0) or until one of them fails (1, said on stderr)."""
    # Bound but not listening, so no connection is routed to it: a port another program holds
    # is refused here, once, before any process starts; and none can take it while we serve.
    try:
        held = _socket(host, port)
    except OSError as error:
        print(f"wfx: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def stop_on(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {number: signal.signal(number, stop_on) for number in _STOP_SIGNALS}
    spawn = multiprocessing.get_context("spawn")
    processes = [
        spawn.Process(target=_serve_here, args=(app, host, port), name=f"wfx-serve-{index}")
        for index in range(workers)
    ]
    failed = None
    try:
        for process in processes:
            process.start()
        while not stop.wait(0.2):
            # a process ends by itself only on a stop signal (0) or a failure
            ended = [p for p in processes if p.exitcode is not None]
            if ended:
                failed = next((p for p in ended if p.exitcode != 0), None)
                break
    finally:
        for process in processes:
            if process.exitcode is None and process.pid is not None:
                process.terminate()  # SIGTERM: uvicorn finishes the requests in hand
        for process in processes:
            process.join(STOP_GRACE_SECONDS)
            if process.exitcode is None and process.pid is not None:
                process.kill()
                process.join()
        for number, handler in previous.items():
            signal.signal(number, handler)
        held.close()
    if failed is not None:
        print(
            f"wfx: serving process {failed.pid} ended with exit code {failed.exitcode}; "
            "stopped the others",
            file=sys.stderr,
        )
        return 1
    return 0
