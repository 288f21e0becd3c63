"""A local HTTP endpoint that gives every request one fixed answer and counts them: an AWS
service refusing every call with one of its error shapes, or a server holding one document (a
JWKS). Tests start it where a library must really connect (no stub in the client)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Endpoint:
    url: str  # http://127.0.0.1:PORT, no path
    calls: int = 0


@contextmanager
def answering(status: int, body: bytes, headers: Mapping[str, str]) -> Iterator[Endpoint]:
    """The endpoint, serving until the block ends; its `calls` counts the requests answered."""
    endpoint = Endpoint(url="")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            endpoint.calls += 1
            self.send_response(status)
            for name, value in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            self._answer()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
