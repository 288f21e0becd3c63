"""`wfx executions describe` of local runs: DescribeExecution's fields (seed 001), computed."""

from __future__ import annotations

import json
import time
from datetime import datetime

from tests.e2e.cli import FAILING_WORKFLOW, TRIVIAL_WORKFLOW, Wfx

SEED_001_FIELDS = {
    "name",
    "status",
    "startDate",
    "stopDate",
    "error",
    "cause",
    "input",
    "output",
    "inputDetails",
    "outputDetails",
    "executionArn",
    "stateMachineArn",
    "stateMachineVersionArn",
    "stateMachineAliasArn",
    "mapRunArn",
    "redriveCount",
    "redriveDate",
    "redriveStatus",
    "redriveStatusReason",
    "traceHeader",
}


def test_a_succeeded_local_run_is_described_with_its_input_output_and_local_arns(
    wfx: Wfx,
) -> None:
    wfx.ok("workflows", "publish", str(TRIVIAL_WORKFLOW))
    execution_id = wfx.run_id("demo/trivial")
    steps = wfx.json("executions", "show", execution_id)["pipelines"]

    described = wfx.json("executions", "describe", execution_id)

    assert set(described) <= SEED_001_FIELDS
    assert described["name"] == execution_id
    assert described["status"] == "SUCCEEDED"
    assert described["executionArn"] == f"arn:wfx:local:execution:demo/trivial:{execution_id}"
    assert described["stateMachineArn"] == "arn:wfx:local:stateMachine:demo/trivial"
    assert described["stateMachineVersionArn"] == "arn:wfx:local:stateMachine:demo/trivial:1"
    document = json.loads(described["input"])
    assert document["workflowExecutionId"] == execution_id
    assert document["pipelineExecutionIds"] == [s["pipelineExecutionId"] for s in steps]
    assert json.loads(described["output"]) == {
        "workflowExecutionId": execution_id,
        "status": "SUCCEEDED",
        "outputFiles": [],
    }
    assert described["inputDetails"] == described["outputDetails"] == {"included": True}
    assert described["redriveStatus"] == "NOT_REDRIVABLE"
    assert described["redriveStatusReason"] == "Execution is SUCCEEDED and cannot be redriven."
    assert "error" not in described and "cause" not in described
    printed = wfx.ok("executions", "describe", execution_id).stdout
    assert f"name                    {execution_id}\n" in printed
    assert "redriveStatus           NOT_REDRIVABLE\n" in printed


def test_a_failed_local_run_has_no_output_and_can_be_redriven(wfx: Wfx) -> None:
    wfx.ok("workflows", "publish", str(FAILING_WORKFLOW))
    execution_id = wfx.run_id("demo/failing", expect_code=1)
    row = wfx.json("executions", "show", execution_id)

    described = wfx.json("executions", "describe", execution_id)

    assert described["status"] == "FAILED"
    assert "output" not in described
    assert described["error"] == row["executionError"]
    assert described["redriveStatus"] == "REDRIVABLE"
    # the same moment, each in its document's format
    stopped = datetime.fromisoformat(row["executionStopDate"])
    assert datetime.fromisoformat(described["stopDate"]) == stopped


def test_an_aborted_run_keeps_its_error_and_cause_apart(wfx: Wfx) -> None:
    wfx.publish_command_step("slow", "import time; time.sleep(60)")
    execution_id = wfx("run", "demo/slow", "--no-wait").stdout.strip()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        show = wfx.json("executions", "show", execution_id)
        if show["pipelines"][0]["executionStatus"] == "RUNNING":
            break
        time.sleep(0.1)

    wfx.ok("executions", "abort", execution_id)
    described = wfx.json("executions", "describe", execution_id)
    row = wfx.json("executions", "show", execution_id)

    assert described["status"] == "ABORTED"
    assert (described["error"], described["cause"]) == ("wfx.Aborted", "Aborted on request")
    # seed 000: the row keeps no executionError for an abort; why it stopped is abortCause
    assert row["executionError"] == "" and "executionCause" not in row
    assert row["abortCause"] == "Aborted on request"
