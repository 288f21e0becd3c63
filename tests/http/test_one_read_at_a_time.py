"""`wfx serve` on SQLite answers a process's reads one at a time (one_read_at_a_time): reads never
overlap, writes still do, and a read gives its turn back when its answer starts or fails, so
neither a slow download nor a failing route holds the others up."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
from fastapi import FastAPI
from fastapi.responses import StreamingResponse

from entrypoints.cli.serve import _app
from entrypoints.container import build_container
from entrypoints.http.one_read_at_a_time import OneReadAtATime
from tests.home_settings import home_settings


class _Overlap:
    """How many route bodies ran at once, at most."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._now = 0
        self.most = 0

    def work(self) -> None:
        with self._lock:
            self._now += 1
            self.most = max(self.most, self._now)
        time.sleep(0.05)  # long enough for the other requests' threads to start
        with self._lock:
            self._now -= 1


def _app_in_turn(overlap: _Overlap, second_read_done: asyncio.Event) -> FastAPI:
    app = FastAPI()
    app.add_middleware(OneReadAtATime)

    @app.get("/read")
    def read() -> dict[str, str]:
        overlap.work()
        return {"read": "ok"}

    @app.post("/write")
    def write() -> dict[str, str]:
        overlap.work()
        return {"write": "ok"}

    @app.get("/fails")
    def fails() -> None:
        raise RuntimeError("the route failed")

    @app.get("/slow-download")
    async def slow_download() -> StreamingResponse:
        async def body() -> AsyncIterator[bytes]:
            yield b"first part"
            await second_read_done.wait()  # a client that has not read the rest yet
            yield b"rest"

        return StreamingResponse(body())

    @app.get("/second-read")
    async def second_read() -> dict[str, str]:
        second_read_done.set()
        return {"read": "ok"}

    return app


def _concurrently(
    calls: Callable[[httpx.AsyncClient], list[Awaitable[httpx.Response]]],
) -> tuple[list[httpx.Response], _Overlap]:
    overlap = _Overlap()

    async def go() -> list[httpx.Response]:
        app = _app_in_turn(overlap, asyncio.Event())
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://wfx") as client:
            return list(await asyncio.wait_for(asyncio.gather(*calls(client)), timeout=10))

    return asyncio.run(go()), overlap


def test_reads_of_one_process_never_overlap() -> None:
    answers, overlap = _concurrently(lambda client: [client.get("/read") for _ in range(4)])

    assert [answer.status_code for answer in answers] == [200] * 4
    assert overlap.most == 1


def test_writes_are_not_held_to_one_at_a_time() -> None:
    answers, overlap = _concurrently(lambda client: [client.post("/write") for _ in range(4)])

    assert [answer.status_code for answer in answers] == [200] * 4
    assert overlap.most > 1


def test_a_read_gives_its_turn_back_when_its_answer_starts() -> None:
    """The download's body waits for the second read: were the turn held to the answer's end,
    the two would wait for each other until the timeout."""
    answers, _ = _concurrently(
        lambda client: [client.get("/slow-download"), client.get("/second-read")]
    )

    assert answers[0].content == b"first partrest"
    assert answers[1].json() == {"read": "ok"}


def test_a_read_that_fails_gives_its_turn_back() -> None:
    answers, _ = _concurrently(
        lambda client: [client.get("/fails"), client.get("/read"), client.get("/fails")]
    )

    assert [answer.status_code for answer in answers] == [500, 200, 500]


def _middleware_of(store: str, home: Path) -> list[type]:
    settings = home_settings(
        home, store=store, dynamodb_endpoint="http://127.0.0.1:9" if store == "dynamodb" else None
    )
    app = _app(build_container(settings), settings, session_key=None)
    return [middleware.cls for middleware in app.user_middleware]  # type: ignore[misc]


def test_the_service_takes_turns_on_sqlite_and_not_on_dynamodb(tmp_path: Path) -> None:
    assert OneReadAtATime in _middleware_of("sqlite", tmp_path)
    assert OneReadAtATime not in _middleware_of("dynamodb", tmp_path)
