"""DynamoDB throttling that outlasts botocore's retries: the real `wfx` says to try again
(exit 3), never a traceback. moto never throttles, so the endpoint here answers every request as
DynamoDB does when throttled (HTTP 400, `ProvisionedThroughputExceededException`), and the
process goes through botocore's own retries. The HTTP service's answer: tests/http/
test_throttled_store.py."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import FAKE_AWS, Wfx

THROTTLED = {
    "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
    "message": "The level of configured provisioned throughput for the table was exceeded.",
}


class _Throttling(BaseHTTPRequestHandler):
    calls = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).calls += 1
        body = json.dumps(THROTTLED).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/x-amz-json-1.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def throttling_endpoint() -> Iterator[str]:
    _Throttling.calls = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Throttling)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_cli_on_a_throttled_table_says_to_try_again(
    throttling_endpoint: str, tmp_path: Path
) -> None:
    wfx = Wfx(
        tmp_path / "home",
        WFX_STORE="dynamodb",
        WFX_DYNAMODB_ENDPOINT=throttling_endpoint,
        **FAKE_AWS,
    )

    outcome = wfx("executions", "list")

    assert outcome.code == 3, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith("error: ") and "throttl" in line and "try again" in line, line
    assert "Traceback" not in outcome.stderr
    assert 1 < _Throttling.calls <= 10  # botocore retried, within its bound
