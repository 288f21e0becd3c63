"""moto's server on a free local port, for the tests that reach AWS over real HTTP."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from moto.server import ThreadedMotoServer


@contextmanager
def moto_server() -> Iterator[str]:
    """A running server's endpoint URL (`http://127.0.0.1:PORT`); stopped on the way out."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line a request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        yield f"http://{host}:{port}"
    finally:
        server.stop()
