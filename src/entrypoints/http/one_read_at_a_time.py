"""Each process of `wfx serve` on SQLite answers its reads (GET, HEAD) one at a time.

A read on SQLite is CPU work in Python from its first byte to its answer's first byte: no
network, and WAL readers never wait for a writer. FastAPI runs each request's route in a thread
of its own, and threads of one process share one core through the GIL: reads in threads at once
take turns in slices, so each answer waits for the others' slices, and the turn-taking itself
costs CPU (on one process, 8 clients: 3.6 ms of CPU a list request against 2.4 ms for one
client; docs/performance.md, "Reads one at a time"). In turn instead, each read has the core to
itself and its answer leaves as soon as it is ready.

The turn is given back when the answer starts, so a slow client reading a large download holds
no other read up. Writes are not in turn: an abort may wait seconds for its run's runner to
stop, and must not hold the reads up while it does. On DynamoDB, reads wait on the network,
where overlapping them is what uses that time: the service does not take turns there.
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_READS = frozenset({"GET", "HEAD"})


class OneReadAtATime:
    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._turn = asyncio.Semaphore(1)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _READS:
            await self._app(scope, receive, send)
            return
        await self._turn.acquire()
        holding = True

        async def send_after_the_turn(message: Message) -> None:
            nonlocal holding
            if holding and message["type"] == "http.response.start":
                holding = False
                self._turn.release()
            await send(message)

        try:
            await self._app(scope, receive, send_after_the_turn)
        finally:
            if holding:
                self._turn.release()
