"""A local run whose step registered a CloudWatch log group by name (`/aws/lambda/...`): the
log is read on CloudWatch, not looked for among the local runner's files. CloudWatch Logs is
moto's server over real HTTP, reached through AWS_ENDPOINT_URL."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from tests.e2e.cli import FAKE_AWS, Wfx
from tests.integration.moto_server import moto_server

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-local-run-cloudwatch-log")]
GROUP = "/aws/lambda/mesh-tool"
STREAM = "2026/11/30/[$LATEST]run-1"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


def test_a_rooted_log_group_of_a_local_run_is_read_on_cloudwatch(
    endpoint: str, tmp_path: Path
) -> None:
    logs = boto3.client(
        "logs",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    logs.create_log_group(logGroupName=GROUP)
    logs.create_log_stream(logGroupName=GROUP, logStreamName=STREAM)
    now = int(time.time() * 1000)
    logs.put_log_events(
        logGroupName=GROUP,
        logStreamName=STREAM,
        logEvents=[{"timestamp": now, "message": "tool: converted 3 meshes"}],
    )
    wfx = Wfx(tmp_path / "home", **FAKE_AWS, AWS_ENDPOINT_URL=endpoint)
    execution_id, registered = wfx.run_registering_log(
        "one-step", GROUP, STREAM, "print('handed to the tool')"
    )

    read = wfx.json("executions", "logs", execution_id, "--log-id", registered["logId"])

    (source,) = [s for s in read["logSources"] if s["logId"] == registered["logId"]]
    assert source["readStatus"] == "read", source
    assert source["executionFiltered"] is False  # the step registered this very stream
    assert [event["message"] for event in read["events"]] == ["tool: converted 3 meshes"]
