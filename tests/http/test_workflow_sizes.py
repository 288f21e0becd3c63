"""A workflow version is stored as one item per step, all in one transaction (DynamoDB: 400 KB an
item, 4 MB a transaction). A document whose step, or whose steps together, could not be stored
so is refused as bad input on both stores, naming the step and the rule, and nothing is stored;
before, DynamoDB's own refusal escaped as a 500 and SQLite kept what DynamoDB could not."""

from __future__ import annotations

from typing import Any

from tests.http.conftest import ADMIN, DATABASE, Service

ARGUMENT = "x" * 2000  # the longest an argument may be is 2048 characters


def _step(name: str, arguments: int) -> dict[str, Any]:
    return {
        "pipelineId": name,
        "executionType": "command",
        "command": ["echo", *[ARGUMENT] * (arguments - 1)],
    }


def _publish(service: Service, document: dict[str, Any]) -> Any:
    admin = service.as_user(ADMIN, ("admin",))
    return service.client.put("/workflows", json=document, headers=admin)


def _stored(service: Service, workflow_id: str) -> Any:
    admin = service.as_user(ADMIN, ("admin",))
    return service.client.get(f"/database/{DATABASE}/workflows/{workflow_id}", headers=admin)


def test_a_step_larger_than_one_stored_item_is_refused_naming_it(service: Service) -> None:
    document = {"databaseId": DATABASE, "workflowId": "wide", "steps": [_step("wide", 256)]}
    answer = _publish(service, document)
    assert answer.status_code == 400, answer.text[:300]
    message = answer.json()["message"]
    assert message.startswith("steps[0]: "), message
    assert "bytes" in message and "one stored item" in message, message
    assert _stored(service, "wide").status_code == 404


def test_a_step_just_under_the_bound_is_published(service: Service) -> None:
    document = {"databaseId": DATABASE, "workflowId": "fits", "steps": [_step("fits", 120)]}
    assert _publish(service, document).status_code == 201
    shown = _stored(service, "fits").json()
    assert shown["version"]["steps"][0]["command"] == ["echo", *[ARGUMENT] * 119]


def test_a_lone_surrogate_is_refused_by_its_field_not_by_the_size_rule(service: Service) -> None:
    admin = service.as_user(ADMIN, ("admin",)) | {"Content-Type": "application/json"}
    body = (
        f'{{"databaseId": "{DATABASE}", "workflowId": "odd", "steps": [{{"pipelineId": "gate", '
        '"executionType": "approval", "approvers": ["bob"], "message": "\\ud800"}]}'
    )
    answer = service.client.put("/workflows", content=body, headers=admin)
    assert answer.status_code == 400, answer.text[:300]
    message = answer.json()["message"]
    assert message.startswith("message: ") and "codec" not in message, message
