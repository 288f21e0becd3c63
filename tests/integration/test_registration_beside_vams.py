"""wfx's registration and VAMS's own registerPipelineExecution Lambda on one step row (DynamoDB
on moto). VAMS appends to `registeredSubExecutions` / `registeredLogs` with an atomic
`list_append` and knows nothing of wfx's `registrationVersion`; wfx reads the row, merges in
the domain and writes the lists whole. A VAMS append landing between wfx's read and its write
must survive: an abort stops what the lists name, and a child dropped from them runs on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.dynamodb.codec import to_wire
from adapters.dynamodb.execution_store import DynamoDbExecutionStore
from adapters.local.object_store import FilesystemObjectStore
from adapters.tables import ResourceKeys, TableNames
from application.use_cases.register_pipeline_execution import RegisterPipelineExecutionCommand
from tests.contract.builders import a_launch, a_registrar, step_id, write_launch

RUN = "e1"
STEP = step_id(RUN, 0)
VAMS_JOB = "arn:aws:states:us-east-1:123456789012:execution:vams-inner:vams-1"
WFX_JOB = "arn:aws:states:us-east-1:123456789012:execution:inner:wfx-1"


def _vams_appends(client: Any, tables: TableNames) -> None:
    """What VAMS's registerPipelineExecution writes for one event (its UpdateExpression)."""
    client.update_item(
        TableName=tables.get_table_name(ResourceKeys.PIPELINE_EXECUTIONS),
        Key=to_wire({"pipelineExecutionId": STEP, "workflowExecutionId": RUN}),
        UpdateExpression=(
            "SET registeredSubExecutions = list_append(if_not_exists(registeredSubExecutions, "
            ":empty), :s), registeredLogs = list_append(if_not_exists(registeredLogs, :empty), :l)"
        ),
        ExpressionAttributeValues=to_wire(
            {
                ":s": [{"resourceType": "stepFunctionsExecution", "executionArn": VAMS_JOB}],
                ":l": [{"logGroupName": "/vams/inner", "logStreamName": "s-1"}],
                ":empty": [],
            }
        ),
    )


class _VamsAppendsAfterTheRead(DynamoDbExecutionStore):
    def __init__(self, client: Any, tables: TableNames, appends: int, objects: Any = None) -> None:
        super().__init__(client, tables, objects=objects)
        self._vams, self._appends = (client, tables), appends

    def get_versioned_step(self, workflow_execution_id: str, pipeline_execution_id: str) -> Any:
        read = super().get_versioned_step(workflow_execution_id, pipeline_execution_id)
        if self._appends:
            self._appends -= 1
            _vams_appends(*self._vams)
        return read


@pytest.mark.parametrize("appends", [1, 3], ids=["once", "at each of three reads"])
def test_a_vams_registration_between_wfx_s_read_and_write_is_kept(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames, appends: int
) -> None:
    store = DynamoDbExecutionStore(moto_dynamodb_client, dynamodb_table_names)
    write_launch(store, a_launch(RUN))
    raced = _VamsAppendsAfterTheRead(moto_dynamodb_client, dynamodb_table_names, appends)
    event = {
        "source": f"wfx.execution.{RUN}.pipeline.{STEP}",
        "detail": {
            "pipelineExecutionId": STEP,
            "subExecutions": [{"resourceType": "stepFunctionsExecution", "executionArn": WFX_JOB}],
            "logs": [{"logGroupName": "/wfx/inner", "logStreamName": "s-1"}],
        },
    }

    result = a_registrar(raced).execute(RegisterPipelineExecutionCommand.model_validate(event))

    assert result.accepted
    step = store.get_step(STEP)
    jobs = [sub.identity for sub in step.registered_sub_executions]
    assert any(VAMS_JOB in str(job) for job in jobs), jobs
    assert any(WFX_JOB in str(job) for job in jobs), jobs
    groups = {log.log_group_name for log in step.registered_logs}
    assert {"/vams/inner", "/wfx/inner"} <= groups, groups


def _big_sub_execution(n: int) -> dict[str, str]:
    """A sub-execution with every ARN locator near its bound: 50 of them outgrow a row."""
    arn = f"arn:aws:states:us-east-1:123456789012:execution:inner:{n:04}-" + "x" * 1800
    keys = ("stateMachineArn", "executionArn", "jobArn", "taskArn", "clusterArn", "arn")
    return {"resourceType": "stepFunctionsExecution"} | {key: f"{arn}-{key}" for key in keys}


def test_a_cut_list_is_not_counted_and_the_registration_lands(
    moto_dynamodb_client: Any, dynamodb_table_names: TableNames, tmp_path: Path
) -> None:
    """The row keeps part of a list too big for it (the object the whole of it): its stored
    size says nothing of what was read, so only the uncut list is held to its size."""
    objects = FilesystemObjectStore(tmp_path / "objects")
    store = DynamoDbExecutionStore(moto_dynamodb_client, dynamodb_table_names, objects=objects)
    write_launch(store, a_launch(RUN))
    register = a_registrar(store)
    big = {  # in one event: moto refuses an update whose old and new item together pass 400 KB
        "source": f"wfx.execution.{RUN}.pipeline.{STEP}",
        "detail": {
            "pipelineExecutionId": STEP,
            "subExecutions": [_big_sub_execution(n) for n in range(50)],
        },
    }
    assert register.execute(RegisterPipelineExecutionCommand.model_validate(big)).accepted
    raw = moto_dynamodb_client.get_item(
        TableName=dynamodb_table_names.get_table_name(ResourceKeys.PIPELINE_EXECUTIONS),
        Key=to_wire({"pipelineExecutionId": STEP, "workflowExecutionId": RUN}),
    )["Item"]
    assert raw["registeredSubExecutionsTruncated"] == {"BOOL": True}
    raced = _VamsAppendsAfterTheRead(moto_dynamodb_client, dynamodb_table_names, 1, objects)
    event = {
        "source": f"wfx.execution.{RUN}.pipeline.{STEP}",
        "detail": {
            "pipelineExecutionId": STEP,
            "logs": [{"logGroupName": "/wfx/inner", "logStreamName": "s-1"}],
        },
    }

    assert a_registrar(raced).execute(RegisterPipelineExecutionCommand.model_validate(event))

    step = store.get_step(STEP)
    assert len(step.registered_sub_executions) == 50
    assert {log.log_group_name for log in step.registered_logs} >= {"/vams/inner", "/wfx/inner"}
