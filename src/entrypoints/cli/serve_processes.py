"""`wfx serve` from several processes on Linux: this process listens and accepts, and hands each
new connection to the serving process that holds the fewest open ones.

Keep-alive connections stay where they land, so their split is what spreads the load. uvicorn's
own workers share one listening socket, and whichever wakes first accepts every connection
waiting: 8 keep-alive clients landed 8/0 or 7/1 on 2 processes. A socket per process
(SO_REUSEPORT) lets the kernel pick one by a hash of the addresses: 8 connections landed 4/4
only about a quarter of the time (5/3, 6/2, 7/1 otherwise), and the clients of the busier process
waited 5-6 requests deep. Here the supervisor counts: it accepts on a thread, sends each socket to
the process with the fewest open connections (ties: the next in turn) over a Unix socket pair
(SCM_RIGHTS), and each process sends one byte back on the pair when one of its connections closes.

The supervisor also starts the processes, stops them all on SIGINT, SIGTERM or SIGHUP, and stops
the rest when one of them fails. They are forked from multiprocessing's fork server: a fresh
interpreter that imports what they all need once (0.6-0.9 s of FastAPI, the app and its
adapters, where each spawned one imported it all again on the same two cores), and no thread or
connection of the supervisor's is copied into them.
"""

from __future__ import annotations

import array
import asyncio
import collections
import contextlib
import errno
import functools
import logging
import multiprocessing
import selectors
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing import resource_tracker
from multiprocessing.context import ForkServerProcess
from types import FrameType

import uvicorn

from entrypoints.cli.interrupts import not_ignored
from entrypoints.cli.uvicorn_server import Server

BACKLOG = 2048  # uvicorn's default
STOP_GRACE_SECONDS = 10.0
# Connections accepted and not yet sent to their process (its pair's queue full): past this the
# supervisor stops accepting and the kernel's backlog holds the rest, so a stuck process bounds
# what waits on it.
HANDED_MAX = 512
_OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
_CLOSED = b"c"  # a process to the supervisor: one of my connections closed
logger = logging.getLogger("uvicorn.error")
# by name: Windows has no SIGHUP, and imports this module too (to learn it is not Linux)
_STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def balanced_here() -> bool:
    """Whether this system can hand accepted sockets to other processes the way this module
    does (Linux: SCM_RIGHTS over a SOCK_SEQPACKET pair, MSG_CMSG_CLOEXEC)."""
    return sys.platform == "linux" and hasattr(socket, "MSG_CMSG_CLOEXEC")


def listen_on(host: str, port: int) -> socket.socket:
    """A socket listening on host:port; a port that cannot be had ends the command in one
    line (exit code 1)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError as error:
        sock.close()
        print(f"wfx: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        raise SystemExit(1) from None
    return sock


class _Worker:
    """The supervisor's side of one serving process: its pair end, its open connections."""

    def __init__(self, pair: socket.socket) -> None:
        self.pair = pair
        self.open = 0
        self.waiting: collections.deque[socket.socket] = collections.deque()
        self.alive = True
        self.writing = False  # waiting for room on the pair


class _Balancer:
    """Accepts on `listener` and deals each connection to the worker with the fewest open."""

    def __init__(self, listener: socket.socket, workers: list[_Worker]) -> None:
        self.listener = listener
        self.workers = workers
        self.stop = threading.Event()
        self.selector = selectors.DefaultSelector()
        self.turn = 0
        self.accepting = False
        self.resume_at = 0.0  # when accepting resumes after running out of descriptors

    def run(self) -> None:
        self.listener.setblocking(False)
        for worker in self.workers:
            worker.pair.setblocking(False)
            self.selector.register(worker.pair, selectors.EVENT_READ, worker)
        self._accept_while(True)
        try:
            while not self.stop.is_set():
                if self.resume_at and time.monotonic() >= self.resume_at:
                    self.resume_at = 0.0
                    self._accept_while(self._room())
                for key, events in self.selector.select(0.2):
                    if key.data is None:
                        self._accept()
                        continue
                    worker = key.data
                    if events & selectors.EVENT_READ:
                        self._read(worker)
                    if worker.alive and events & selectors.EVENT_WRITE:
                        self._flush(worker)
        finally:
            self.selector.close()
            for worker in self.workers:
                while worker.waiting:
                    worker.waiting.popleft().close()

    def _accept_while(self, room: bool) -> None:
        room = room and not self.resume_at
        if room and not self.accepting:
            self.selector.register(self.listener, selectors.EVENT_READ, None)
        elif not room and self.accepting:
            self.selector.unregister(self.listener)
        self.accepting = room

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                if error.errno in _OUT_OF_RESOURCES:
                    # as asyncio does: stop accepting a moment rather than spin on the socket
                    self._accept_while(False)
                    self.resume_at = time.monotonic() + 1.0
                return
            # asyncio sets TCP_NODELAY itself, but the worker's loop rebuilds the socket from a
            # bare descriptor: without it a response's second write waits for the client's
            # delayed ACK (~40 ms measured)
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            live = [w for w in self.workers if w.alive]
            if not live:
                connection.close()
                continue
            worker = self._fewest(live)
            worker.open += 1
            worker.waiting.append(connection)
            self._flush(worker)
            if not self.accepting:
                return

    def _fewest(self, live: list[_Worker]) -> _Worker:
        fewest = min(w.open for w in live)
        # ties in turn, from the one after the last chosen
        count = len(self.workers)
        for step in range(count):
            worker = self.workers[(self.turn + step) % count]
            if worker.alive and worker.open == fewest:
                self.turn = (self.turn + step + 1) % count
                return worker
        raise AssertionError("a live worker holds the fewest")  # pragma: no cover

    def _flush(self, worker: _Worker) -> None:
        while worker.waiting:
            connection = worker.waiting[0]
            try:
                socket.send_fds(worker.pair, [b"s"], [connection.fileno()])
            except (BlockingIOError, InterruptedError):
                if not worker.writing:
                    worker.writing = True
                    events = selectors.EVENT_READ | selectors.EVENT_WRITE
                    self.selector.modify(worker.pair, events, worker)
                self._accept_while(self._room())
                return
            except OSError:  # the process is gone: its end of the pair closed
                self._lost(worker)
                return
            worker.waiting.popleft()
            connection.close()  # the process holds its own descriptor of it now
        if worker.writing:
            worker.writing = False
            self.selector.modify(worker.pair, selectors.EVENT_READ, worker)
        self._accept_while(self._room())

    def _room(self) -> bool:
        return sum(len(w.waiting) for w in self.workers) < HANDED_MAX

    def _read(self, worker: _Worker) -> None:
        while True:
            try:
                message = worker.pair.recv(4096)  # a process tells up to 1024 closes at once
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                message = b""
            if not message:  # the process ended; the supervisor's loop sees it and stops all
                self._lost(worker)
                return
            worker.open -= message.count(_CLOSED)

    def _lost(self, worker: _Worker) -> None:
        worker.alive = False
        self.selector.unregister(worker.pair)
        while worker.waiting:
            worker.waiting.popleft().close()


class _Counted(socket.socket):
    """A connection handed over by the supervisor, which is told when it closes (asyncio's
    transport closes its socket once the connection is lost, whichever protocol then held it)."""

    on_close: Callable[[], None] | None = None  # a dup() of it tells no one

    def close(self) -> None:
        told, self.on_close = self.on_close, None
        super().close()
        if told is not None:
            told()


class _PairServer(Server):
    """uvicorn without a listening socket: it serves the connections sent on `pair`."""

    def __init__(self, config: uvicorn.Config, pair: socket.socket) -> None:
        super().__init__(config)
        self.pair = pair
        self.owed = 0  # closes not yet told (the supervisor's queue was full)
        self.adopting: set[asyncio.Task[object]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])
        loop = asyncio.get_running_loop()
        config = self.config

        def protocol() -> asyncio.Protocol:
            # as uvicorn's own startup builds its connections' protocol
            return config.http_protocol_class(  # type: ignore[call-arg]
                config=config,
                server_state=self.server_state,
                app_state=self.lifespan.state,
                _loop=loop,
            )

        self.pair.setblocking(False)
        loop.add_reader(self.pair.fileno(), self._adopt, loop, protocol)

    def _adopt(
        self, loop: asyncio.AbstractEventLoop, protocol: Callable[[], asyncio.Protocol]
    ) -> None:
        while True:
            try:
                message, ancillary, _, _ = self.pair.recvmsg(
                    1, socket.CMSG_SPACE(_FD_SIZE), socket.MSG_CMSG_CLOEXEC
                )
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionResetError:
                # killed with close bytes of ours unread, the supervisor's end resets the pair
                message = b""
            if not message:  # the supervisor is gone: nothing more comes, and no one counts
                loop.remove_reader(self.pair.fileno())
                self.should_exit = True
                return
            for fd in _descriptors(ancillary):
                connection = _Counted(fileno=fd)  # family, type, protocol: the descriptor's
                connection.on_close = functools.partial(self._closed, loop)
                task = loop.create_task(loop.connect_accepted_socket(protocol, connection))
                self.adopting.add(task)
                task.add_done_callback(functools.partial(self._adopted, connection))

    def _adopted(self, connection: _Counted, task: asyncio.Task[object]) -> None:
        self.adopting.discard(task)
        if task.cancelled() or task.exception() is not None:
            # not served (the process stopping, or asyncio refused the socket): closing it
            # tells the supervisor, which counts it no longer
            connection.close()
            if not task.cancelled():
                logger.warning("wfx: a handed connection failed: %s", task.exception())

    def _closed(self, loop: asyncio.AbstractEventLoop) -> None:
        self.owed += 1
        self._tell(loop)

    def _tell(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self.owed:
            return
        try:
            sent = self.pair.send(_CLOSED * min(self.owed, 1024))
        except (BlockingIOError, InterruptedError):
            # the supervisor reads all the time: its queue full is a moment's
            with contextlib.suppress(RuntimeError):  # the loop closed: no one left to tell
                loop.call_later(0.01, self._tell, loop)
            return
        except OSError:  # the supervisor is gone
            self.owed = 0
            return
        self.owed -= sent
        if self.owed:
            with contextlib.suppress(RuntimeError):
                loop.call_soon(self._tell, loop)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # the supervisor stopped accepting before it asked this process to stop
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self.pair.fileno())
        await super().shutdown(sockets=sockets)


_FD_SIZE = array.array("i").itemsize


def _descriptors(ancillary: list[tuple[int, int, bytes]]) -> list[int]:
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % _FD_SIZE])
    return list(fds)


def _serve_here(app: str, pair: socket.socket, takes_ctrl_c: bool) -> None:
    """One serving process: uvicorn with no socket of its own, the app built by `app`'s factory,
    serving the connections the supervisor sends on `pair`. `takes_ctrl_c`: whether the
    supervisor does (not when it was started ignoring SIGINT: then none of them does)."""
    try:
        # forked from a fork server born with Ctrl-C held back (_start_holding_ctrl_c)
        if takes_ctrl_c:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the supervisor's stop, whatever it ignores
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        pair.set_inheritable(False)  # the steps this process starts have no use for it
        config = uvicorn.Config(app, factory=True, log_level="warning", server_header=False)
        _PairServer(config, pair).run()
    except KeyboardInterrupt:  # Ctrl-C before uvicorn took the signals: the supervisor stops
        pass


def serve_from_processes(
    app: str, listener: socket.socket, workers: int, imports: Sequence[str] = ()
) -> int:
    """Serve `app` (an import string naming an app factory) from `workers` processes, on the
    connections `listener` accepts, until a stop signal (0) or until one of them fails (1,
    said on stderr). `imports`: modules the processes import, imported once before they fork.

    The fork server starts with the first process, once the caller has set the environment the
    processes read (`wfx serve`: its session key, the step user), and forks every one of them in
    that environment: a process of this interpreter serves from one call only."""
    stop = threading.Event()

    def stop_on(signum: int, frame: FrameType | None) -> None:
        stop.set()

    # a signal it was started ignoring (nohup's SIGHUP, a background job's SIGINT) stays so
    previous = {number: signal.signal(number, stop_on) for number in not_ignored(_STOP_SIGNALS)}
    forked = multiprocessing.get_context("forkserver")
    forked.set_forkserver_preload([__name__, *imports])
    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(workers)]
    processes = [
        forked.Process(
            target=_serve_here,
            args=(app, theirs, signal.SIGINT in previous),
            name=f"wfx-serve-{index}",
        )
        for index, (_, theirs) in enumerate(pairs)
    ]
    balancer = _Balancer(listener, [_Worker(ours) for ours, _ in pairs])
    dealing = threading.Thread(target=balancer.run, name="wfx-serve-balancer", daemon=True)
    try:
        _start_holding_ctrl_c(processes, pairs)
        dealing.start()
        lost_dealer, failed = _watch(stop, dealing, processes)
    finally:
        _stop_serving(balancer, dealing, listener, processes, pairs)
        for number, handler in previous.items():
            signal.signal(number, handler)
    if lost_dealer:
        print("wfx: the connections' dealer failed; stopped the serving processes", file=sys.stderr)
        return 1
    if failed is not None:
        print(
            f"wfx: serving process {failed.pid} ended with exit code {failed.exitcode}; "
            "stopped the others",
            file=sys.stderr,
        )
        return 1
    return 0


def _start_holding_ctrl_c(
    processes: list[ForkServerProcess], pairs: list[tuple[socket.socket, socket.socket]]
) -> None:
    """Start the serving processes with Ctrl-C held back until they have started: blocked here
    (pending, not lost) and ignored, both of which a started program inherits, so that the fork
    server they are forked from cannot die of a Ctrl-C to the terminal's group, with a
    traceback, while it loads. This process's stop handler then takes the held Ctrl-C; each
    serving process takes Ctrl-C back (`_serve_here`)."""
    # started first: its own start unblocks Ctrl-C on the way out, which would end the hold
    resource_tracker.ensure_running()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for process, (_, theirs) in zip(processes, pairs, strict=True):
            process.start()
            theirs.close()  # so the process's end closing is seen as its end
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _watch(
    stop: threading.Event, dealing: threading.Thread, processes: list[ForkServerProcess]
) -> tuple[bool, ForkServerProcess | None]:
    """Until a stop signal, the dealer's failure (True) or a process's end (the first that
    failed, if any): what ended the serving."""
    while not stop.wait(0.2):
        if not dealing.is_alive():  # its traceback is on stderr: no connection is served
            return True, None
        # a process ends by itself only on a stop signal (0) or a failure
        ended = [p for p in processes if p.exitcode is not None]
        if ended:
            return False, next((p for p in ended if p.exitcode != 0), None)
    return False, None


def _stop_serving(
    balancer: _Balancer,
    dealing: threading.Thread,
    listener: socket.socket,
    processes: list[ForkServerProcess],
    pairs: list[tuple[socket.socket, socket.socket]],
) -> None:
    """No new connection from here; those in hand are finished by their process, each given
    the grace before it is killed."""
    balancer.stop.set()
    if dealing.is_alive():
        dealing.join()
    listener.close()
    for process in processes:
        if process.exitcode is None and process.pid is not None:
            process.terminate()  # SIGTERM: uvicorn finishes the requests in hand
    for process in processes:
        if process.pid is None:
            continue  # never started: the starts were cut short
        process.join(STOP_GRACE_SECONDS)
        if process.exitcode is None:
            process.kill()
            process.join()
    for ours, theirs in pairs:
        ours.close()
        theirs.close()
