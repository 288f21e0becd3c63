"""moto's server on a free local port, for the tests that reach AWS over real HTTP."""

from __future__ import annotations

import logging
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from moto.server import ThreadedMotoServer


def _reset(url: str) -> None:
    """Empty moto's backends: they are this process's, shared by every server and mock_aws() of
    it, so a module that made tables would hand them to the next one."""
    request = urllib.request.Request(f"{url}/moto-api/reset", method="POST")
    with urllib.request.urlopen(request, timeout=10):
        pass


@contextmanager
def moto_server() -> Iterator[str]:
    """A running server's endpoint URL (`http://127.0.0.1:PORT`), on empty backends; emptied
    again and stopped on the way out."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line a request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        url = f"http://{host}:{port}"
        _reset(url)
        yield url
        _reset(url)
    finally:
        server.stop()
