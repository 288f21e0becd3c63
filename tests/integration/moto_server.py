"""moto's server on a free local port, for the tests that reach AWS over real HTTP: one server
per test process, started by the first test that asks, shared by the rest.

moto's backends take no lock: two requests served at once by its threads can both pass one
item's condition before either writes, and a TransactWriteItems that is cancelled puts back a
copy of every table it took before it began (moto 5, `transact_write_items`), wiping what
another request wrote meanwhile (an abort's end undone, the run RUNNING again), none of which
DynamoDB lets happen. A test racing two processes on one item asks for the requests one
at a time (`moto_server(one_request_at_a_time=True)`): each request then happens whole, as
DynamoDB makes each conditional write and each transaction happen, and the processes still
interleave at every request between them."""

from __future__ import annotations

import collections
import logging
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3

from tests.e2e.cli import FAKE_AWS

_started: str | None = None
_starting = threading.Lock()


class _OneAtATime:
    """moto's WSGI app, serving one request at a time while `on` is set (the body is built
    inside the turn: moto answers with a list, never a stream)."""

    def __init__(self, app: Any) -> None:
        self._app = app
        self._turn = threading.Lock()
        self.on = False
        # (host, its requests by operation) while a test counts them (`requests_from`)
        self.counted: tuple[str, collections.Counter[str]] | None = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        counted = self.counted
        if counted is not None and environ.get("HTTP_HOST", "").startswith(counted[0] + ":"):
            counted[1][str(environ.get("HTTP_X_AMZ_TARGET", "?")).rpartition(".")[2]] += 1
        if not self.on:
            return self._app(environ, start_response)
        with self._turn:
            return list(self._app(environ, start_response))


_app: _OneAtATime | None = None


def _reset(url: str) -> None:
    """Empty moto's backends: they are this process's, shared by the server and every
    mock_aws() of it, so what an earlier test made would still be there."""
    request = urllib.request.Request(f"{url}/moto-api/reset", method="POST")
    with urllib.request.urlopen(request, timeout=10):
        pass


def _backend_found_once_per_host(dispatcher: Any) -> Any:
    """moto's dispatcher, finding each host's backend once: moto 5 looks for it on every
    request, listing moto's package folder and asking `isdir` of each entry until the name
    comes (~0.9 ms of a 3-4 ms DynamoDB request on this machine). The backend follows from the
    host alone (the folder's names and moto's URL patterns never change while it runs); the
    app is still the one moto builds for that backend."""

    class FoundOncePerHost(dispatcher):  # type: ignore[misc,valid-type]
        def __init__(self, create_app: Any) -> None:
            super().__init__(create_app)
            self._backends: dict[str | None, Any] = {}

        def get_backend_for_host(self, host: str | None) -> Any:
            # called under the dispatcher's own lock (get_application)
            if host not in self._backends:
                self._backends[host] = super().get_backend_for_host(host)
            return self._backends[host]

    return FoundOncePerHost


def _server_url() -> str:
    """The process's server, started once: a start and a stop cost a second where a reset costs
    milliseconds, and the server keeps each service's app, built on its first request. Its
    thread is a daemon, which ends with the process (moto's ThreadedMotoServer, but for the
    app it serves, which `_OneAtATime` wraps)."""
    global _started, _app
    with _starting:
        if _started is None:
            from moto.moto_server.werkzeug_app import (
                DomainDispatcherApplication,
                MotoRequestHandler,
                create_backend_app,
            )
            from werkzeug.serving import make_server

            logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line a request otherwise
            _app = _OneAtATime(
                _backend_found_once_per_host(DomainDispatcherApplication)(create_backend_app)
            )
            server = make_server(
                "127.0.0.1", 0, _app, threaded=True, request_handler=MotoRequestHandler
            )
            threading.Thread(target=server.serve_forever, daemon=True).start()
            host, port = str(server.host), server.port
            _started = f"http://{host}:{port}"
        return _started


@contextmanager
def moto_server(one_request_at_a_time: bool = False) -> Iterator[str]:
    """The running server's endpoint URL (`http://127.0.0.1:PORT`), on empty backends. An
    in-process mock_aws() empties them too, when it starts and stops: use the server inside one
    fixture or test, never across tests. `one_request_at_a_time`: for a race (the module's
    docstring)."""
    url = _server_url()
    _reset(url)
    assert _app is not None
    _app.on = one_request_at_a_time
    try:
        yield url
    finally:
        _app.on = False


@contextmanager
def requests_from(host: str) -> Iterator[collections.Counter[str]]:
    """The requests the server serves, inside the block, to clients that name it `host`
    (`localhost` for one process, `127.0.0.1` for the others: its own requests alone), by
    operation (X-Amz-Target's, e.g. Query)."""
    assert _app is not None  # inside moto_server()
    counts: collections.Counter[str] = collections.Counter()
    _app.counted = (host, counts)
    try:
        yield counts
    finally:
        _app.counted = None


def served_client(service: str, endpoint: str) -> Any:
    """A boto3 client of `service` on the moto server at `endpoint`, with the fake credentials
    the `wfx` processes under test are given."""
    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=endpoint,
        region_name=FAKE_AWS["AWS_DEFAULT_REGION"],
        aws_access_key_id=FAKE_AWS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=FAKE_AWS["AWS_SECRET_ACCESS_KEY"],
    )
