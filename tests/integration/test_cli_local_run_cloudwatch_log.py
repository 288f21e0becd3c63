"""A local run whose step registered a CloudWatch log group by name (`/aws/lambda/...`): the
log is read on CloudWatch, not looked for among the local runner's files. CloudWatch Logs is
moto's server over real HTTP, reached through AWS_ENDPOINT_URL."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
import yaml
from moto.server import ThreadedMotoServer

from tests.e2e.cli import FAKE_AWS, Wfx

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-local-run-cloudwatch-log")]
GROUP = "/aws/lambda/mesh-tool"
STREAM = "2026/11/30/[$LATEST]run-1"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def _publish_one_step(wfx: Wfx) -> None:
    document = {
        "databaseId": "demo",
        "workflowId": "one-step",
        "steps": [
            {
                "pipelineId": "tool",
                "executionType": "command",
                "command": [sys.executable, "-c", "print('handed to the tool')"],
                "inputFileArity": "none",
            }
        ],
    }
    path = wfx.home / "one-step.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


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
    _publish_one_step(wfx)
    execution_id = wfx.run_id("demo/one-step")
    (step,) = wfx.json("executions", "show", execution_id)["pipelineExecutions"]
    step_id = step["pipelineExecution"]["pipelineExecutionId"]
    wfx.ok(
        "pipelines", "register", "--execution-id", execution_id,
        "--pipeline-execution-id", step_id, "--log-group-name", GROUP, "--log-stream-name", STREAM,
    )  # fmt: skip
    (step,) = wfx.json("executions", "show", execution_id)["pipelineExecutions"]
    (registered,) = [log for log in step["availableLogs"] if log["kind"] == "registered"]

    read = wfx.json("executions", "logs", execution_id, "--log-id", registered["logId"])

    (source,) = [s for s in read["logSources"] if s["logId"] == registered["logId"]]
    assert source["readStatus"] == "read", source
    assert source["executionFiltered"] is False  # the step registered this very stream
    assert [event["message"] for event in read["events"]] == ["tool: converted 3 meshes"]
