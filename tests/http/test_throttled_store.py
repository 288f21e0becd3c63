"""A throttled DynamoDB table answers 503 with "try again", never a 500. moto never throttles: a
`before-call` handler on the moto client answers one operation with DynamoDB's real error shape,
as botocore raises it once its retries are spent (or at once, for a transaction cancelled with
a `ThrottlingError` reason, which botocore does not retry)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.http.conftest import ADMIN, DATABASE, INPUTS, WORKFLOW, Service

pytestmark = pytest.mark.parametrize("inline_container", ["dynamodb"], indirect=True)


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ThrottlingException"])
def test_the_service_on_a_throttled_table_answers_503(service: Service, code: str) -> None:
    client = service.container.dynamodb_client()

    def throttled(**_: Any) -> tuple[Any, dict[str, Any]]:
        from botocore.awsrequest import AWSResponse, HTTPHeaders

        answer = AWSResponse("", 400, HTTPHeaders(), None)
        return answer, {"Error": {"Code": code, "Message": "Rate exceeded"}}

    client.meta.events.register("before-call.dynamodb.Query", throttled)
    try:
        answer = service.client.get(
            "/workflows/executions", headers=service.as_user(ADMIN, ("admin",))
        )
    finally:
        client.meta.events.unregister("before-call.dynamodb.Query", throttled)

    assert answer.status_code == 503, answer.text
    assert "try again" in answer.json()["message"]


def test_a_transaction_cancelled_for_throttling_answers_503(service: Service) -> None:
    """A launch's TransactWriteItems cancelled with a `ThrottlingError` reason, which botocore
    does not retry: 503 and no run stored."""
    client = service.container.dynamodb_client()
    headers = service.as_user(ADMIN, ("admin",))
    before = service.client.get("/workflows/executions", headers=headers).json()["message"]

    def throttled(**_: Any) -> tuple[Any, dict[str, Any]]:
        from botocore.awsrequest import AWSResponse, HTTPHeaders

        answer = AWSResponse("", 400, HTTPHeaders(), None)
        return answer, {
            "Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
            "CancellationReasons": [
                {"Code": "None"},
                {"Code": "ThrottlingError", "Message": "Throughput exceeds the current capacity"},
            ],
        }

    client.meta.events.register("before-call.dynamodb.TransactWriteItems", throttled)
    try:
        launched = service.client.post(
            "/workflows/executions",
            json={
                "workflowDatabaseId": DATABASE,
                "workflowId": WORKFLOW["workflowId"],
                "inputs": [{"databaseId": DATABASE, "assetId": INPUTS}],
            },
            headers=headers,
        )
    finally:
        client.meta.events.unregister("before-call.dynamodb.TransactWriteItems", throttled)

    assert launched.status_code == 503, launched.text
    assert "try again" in launched.json()["message"]
    after = service.client.get("/workflows/executions", headers=headers).json()["message"]
    assert len(after["Items"]) == len(before["Items"])
