"""A run VAMS 2.6 launched (its rows exactly as VAMS writes them, tests/vams_items.py) is listed,
shown, aborted and deleted by `wfx` on DynamoDB, with its Step Functions execution: moto's
server in this process, the CLI as subprocesses."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.dynamodb.codec import to_wire
from adapters.tables import ResourceKeys, TableNames
from conftest import restore_dynamodb_tables
from tests import vams_items as vams
from tests.e2e.cli import FAKE_AWS, Wfx
from tests.integration.moto_server import moto_server, served_client

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("cli-on-vams-rows")]

WAITING = {"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 600, "End": True}}}


@pytest.fixture(scope="module")
def endpoint(_pristine_dynamodb_tables: dict[str, Any]) -> Iterator[str]:
    # the tables taken first: made the first time in a mock_aws(), which empties the server's
    # backends
    with moto_server() as url:
        # every table, empty, as `wfx tables create` makes them (and VAMS's stack made them)
        restore_dynamodb_tables(_pristine_dynamodb_tables)
        yield url


def test_wfx_lists_shows_aborts_and_deletes_a_run_vams_launched(
    endpoint: str, tmp_path: Path
) -> None:
    wfx = Wfx(
        tmp_path / "home",
        WFX_STORE="dynamodb",
        WFX_DYNAMODB_ENDPOINT=endpoint,
        AWS_ENDPOINT_URL_SFN=endpoint,
        **FAKE_AWS,
    )
    sfn = served_client("stepfunctions", endpoint)
    machine = sfn.create_state_machine(
        name="vams-wf-vams",
        definition=json.dumps(WAITING),
        roleArn="arn:aws:iam::123456789012:role/vams-sfn",
    )["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=machine, name=vams.EXECUTION_ID)["executionArn"]
    items = vams.vams_run("RUNNING", ("SUCCEEDED", "RUNNING", "NEW"))
    items[ResourceKeys.WORKFLOW_EXECUTIONS][0] |= {
        "workflow_arn": machine,
        "workflow_execution_arn": arn,
    }
    dynamodb, names = served_client("dynamodb", endpoint), TableNames()
    for key, rows in items.items():
        for row in rows:
            dynamodb.put_item(TableName=names.get_table_name(key), Item=to_wire(row))

    listed = wfx.json("executions", "list", "--workflow", "vamsdb/wf-vams")
    shown = wfx.json("executions", "show", vams.EXECUTION_ID)
    main = dynamodb.get_item(
        TableName=names.get_table_name(ResourceKeys.WORKFLOW_EXECUTIONS),
        Key=to_wire(
            {
                "workflowExecutionId": vams.EXECUTION_ID,
                "workflowDatabaseId:workflowId": "vamsdb:wf-vams",
            }
        ),
    )["Item"]
    aborted = wfx("executions", "abort", vams.EXECUTION_ID)
    after_abort = wfx.json("executions", "show", vams.EXECUTION_ID)
    deleted = wfx("executions", "delete", vams.EXECUTION_ID)
    after_delete = wfx("executions", "show", vams.EXECUTION_ID)

    assert [row["workflowExecutionId"] for row in listed["Items"]] == [vams.EXECUTION_ID]
    assert shown["executionStatus"] == "RUNNING"
    steps = shown["pipelines"]
    assert [s["pipelineExecutionId"] for s in steps] == list(vams.STEPS)
    assert [s["executionStatus"] for s in steps] == [
        "SUCCEEDED",
        "RUNNING",
        "NEW",
    ]
    # the read asked Step Functions and stamped the row as VAMS reads it: whole seconds
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", main["lastSfnSyncCheckDate"]["S"])
    assert aborted.code == 0, aborted.stderr
    assert after_abort["executionStatus"] == "ABORTED"
    assert [s["executionStatus"] for s in after_abort["pipelines"]] == [
        "SUCCEEDED",
        "ABORTED",
        "ABORTED",
    ]
    assert sfn.describe_execution(executionArn=arn)["status"] == "ABORTED"
    assert deleted.code == 0, deleted.stderr
    assert after_delete.code != 0 and "not found" in after_delete.stderr
    left = dynamodb.query(
        TableName=names.get_table_name(ResourceKeys.PIPELINE_EXECUTIONS),
        IndexName="PipelineExecByWorkflowExecGSI",
        KeyConditionExpression="workflowExecutionId = :id",
        ExpressionAttributeValues={":id": {"S": vams.EXECUTION_ID}},
    )["Items"]
    assert left == []
