"""moto's server on a free local port, for the tests that reach AWS over real HTTP: one server
per test process, started by the first test that asks, shared by the rest."""

from __future__ import annotations

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


def _reset(url: str) -> None:
    """Empty moto's backends: they are this process's, shared by the server and every
    mock_aws() of it, so what an earlier test made would still be there."""
    request = urllib.request.Request(f"{url}/moto-api/reset", method="POST")
    with urllib.request.urlopen(request, timeout=10):
        pass


def _server_url() -> str:
    """The process's server, started once: a start and a stop cost a second where a reset costs
    milliseconds, and the server keeps each service's app, built on its first request. Its
    thread is a daemon, which ends with the process."""
    global _started
    with _starting:
        if _started is None:
            from moto.server import ThreadedMotoServer

            logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line a request otherwise
            server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
            server.start()
            host, port = server.get_host_and_port()
            _started = f"http://{host}:{port}"
        return _started


@contextmanager
def moto_server() -> Iterator[str]:
    """The running server's endpoint URL (`http://127.0.0.1:PORT`), on empty backends. An
    in-process mock_aws() empties them too, when it starts and stops: use the server inside one
    fixture or test, never across tests."""
    url = _server_url()
    _reset(url)
    yield url


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
