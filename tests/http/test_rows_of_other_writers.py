"""A run whose main row another writer left with a status wfx has no name for, read over HTTP
on each store: the run's routes answer 409 naming the row, the list leaves it out; never a 500."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.http.conftest import ADMIN, Service

pytestmark = pytest.mark.parametrize("inline_container", ["sqlite", "dynamodb"], indirect=True)


def status_stored_as(service: Service, store: str, database: Path, status: str) -> None:
    container: Any = service.container
    if store == "dynamodb":
        client = container.dynamodb_client()
        table = "WorkflowExecutionsStorageTableV2"
        [item] = client.scan(TableName=table)["Items"]
        key = {
            name: item[name] for name in ("workflowExecutionId", "workflowDatabaseId:workflowId")
        }
        client.update_item(
            TableName=table,
            Key=key,
            UpdateExpression="SET executionStatus = :s",
            ExpressionAttributeValues={":s": {"S": status}},
        )
        return
    with sqlite3.connect(database) as connection:
        [(text,)] = connection.execute('SELECT item FROM "WorkflowExecutionsStorageTableV2"')
        connection.execute(
            'UPDATE "WorkflowExecutionsStorageTableV2" SET item = ?',
            (json.dumps({**json.loads(text), "executionStatus": status}),),
        )


def test_a_run_whose_status_wfx_cannot_read_is_a_409_naming_its_row_and_left_out_of_lists(
    service: Service, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    store = request.node.callspec.params["inline_container"]
    status_stored_as(service, store, tmp_path / "wfx.db", "CANCELLED")
    headers = service.as_user(ADMIN, ["admin"])

    for route in ("", "/details"):
        answer = service.client.get(
            f"/workflows/executions/{service.execution_id}{route}", headers=headers
        )
        assert answer.status_code == 409, answer.text
        assert answer.json()["message"].startswith(
            f"WorkflowExecutionsStorageTableV2 row {service.execution_id} cannot be read: "
            "executionStatus holds the text 'CANCELLED'; wfx expects 'NEW', "
        )
    readable = service.launch()
    listed = service.client.get("/workflows/executions", headers=headers)
    assert listed.status_code == 200, listed.text
    items = listed.json()["message"]["Items"]
    assert [item["workflowExecutionId"] for item in items] == [readable]
