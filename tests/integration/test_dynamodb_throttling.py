"""DynamoDB throttling that outlasts botocore's retries: the real `wfx` says to try again
(exit 3), never a traceback. moto never throttles, so the endpoint here answers every request as
DynamoDB does when throttled (HTTP 400, `ProvisionedThroughputExceededException`), and the
process goes through botocore's own retries. The HTTP service's answer: tests/http/
test_throttled_store.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.cli import FAKE_AWS, Wfx
from tests.one_answer_server import Endpoint, answering

THROTTLED = {
    "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
    "message": "The level of configured provisioned throughput for the table was exceeded.",
}


@pytest.fixture
def throttling_endpoint() -> Iterator[Endpoint]:
    body = json.dumps(THROTTLED).encode()
    with answering(400, body, {"Content-Type": "application/x-amz-json-1.0"}) as endpoint:
        yield endpoint


def test_the_cli_on_a_throttled_table_says_to_try_again(
    throttling_endpoint: Endpoint, tmp_path: Path
) -> None:
    wfx = Wfx(
        tmp_path / "home",
        WFX_STORE="dynamodb",
        WFX_DYNAMODB_ENDPOINT=throttling_endpoint.url,
        **FAKE_AWS,
    )

    outcome = wfx("executions", "list")

    assert outcome.code == 3, str(outcome)
    [line] = outcome.stderr_lines
    assert line.startswith("error: ") and "throttl" in line and "try again" in line, line
    assert "Traceback" not in outcome.stderr
    assert 1 < throttling_endpoint.calls <= 10  # botocore retried, within its bound
