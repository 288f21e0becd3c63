"""A page token a client made up - JSON nested past what Python's decoder recurses into, inside
the 4096 characters a token may have - is a 400 naming the parameter on every paged route and
store, never a 500 (with a RecursionError traceback in the service's log)."""

from __future__ import annotations

import base64

import pytest

from tests.http.conftest import ADMIN, DATABASE, INPUTS, WORKFLOW, Service

NESTED = base64.urlsafe_b64encode(b"[" * 1500 + b"]" * 1500).decode().rstrip("=")
WORKFLOW_ID = WORKFLOW["workflowId"]
PAGED = [
    "/workflows/executions?startingToken={token}",
    "/workflows/executions?NextToken={token}",
    f"/workflows/executions?workflowId={WORKFLOW_ID}&startingToken={{token}}",
    f"/workflows/executions?workflowDatabaseId={DATABASE}&startingToken={{token}}",
    "/workflows/executions?groupId=nightly&startingToken={token}",
    "/workflows/executions?status=SUCCEEDED&startingToken={token}",
    f"/workflows/executions?triggeredByUserId={ADMIN}&startingToken={{token}}",
    f"/database/{DATABASE}/assets/{INPUTS}/workflows/executions?startingToken={{token}}",
    f"/database/{DATABASE}/assets/{INPUTS}/workflows/executions/{WORKFLOW_ID}"
    "?startingToken={token}",
    "/workflows/executions/{execution}/details/metadata?startingToken={token}",
    "/workflows?startingToken={token}",
    f"/database/{DATABASE}/workflows/{WORKFLOW_ID}?startingToken={{token}}",
    "/approvals?startingToken={token}",
]


@pytest.mark.parametrize("route", PAGED)
def test_a_token_nested_past_the_decoder_is_a_400_naming_it(service: Service, route: str) -> None:
    assert len(NESTED) <= 4096  # within the bound: what the token's reader itself must refuse
    url = route.format(token=NESTED, execution=service.execution_id)

    answer = service.client.get(url, headers=service.as_user(ADMIN, ("admin",)))

    assert answer.status_code == 400, answer.text
    assert "Token" in answer.json()["message"], answer.text


@pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)
@pytest.mark.parametrize("token", ["\u00b2", "\u0661\u0662", "12\u00b3"])
def test_a_log_token_of_digits_that_are_not_ascii_is_refused(service: Service, token: str) -> None:
    """str.isdigit() holds for a superscript two, which int() refuses: the local log reader
    answered a 500 for `nextToken=²` (and read Arabic-Indic digits as an offset)."""
    admin = service.as_user(ADMIN, ("admin",))
    logs = f"/workflows/executions/{service.execution_id}/logs"
    log_id = service.client.get(logs, headers=admin).json()["message"]["logSources"][0]["logId"]

    answer = service.client.get(logs, params={"logId": log_id, "nextToken": token}, headers=admin)

    assert answer.status_code == 400, answer.text
    assert "nextToken" in answer.json()["message"], answer.text
