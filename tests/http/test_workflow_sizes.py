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


LAMBDA_ANSWER_LIMIT = 6 * 1024 * 1024  # what a Lambda behind API Gateway may return


def test_a_page_of_large_versions_stops_within_what_one_answer_holds_and_pages_on(
    service: Service,
) -> None:
    """Each version holds about 1 MB of steps: a page of 100 of them would be 8 MB, past what
    a Lambda may answer; the page stops early, and its token goes on to the rest."""
    from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
    from application.workflow_documents import parse_workflow_document

    for number in range(8):
        document = {
            "databaseId": DATABASE,
            "workflowId": "heavy",
            "description": f"v{number}",
            "steps": [_step(f"s{index}", 125) for index in range(4)],
        }
        command = PublishWorkflowVersionCommand(document=parse_workflow_document(document))
        service.container.publish_workflow_version().execute(command)
    admin = service.as_user(ADMIN, ("admin",))
    route = f"/database/{DATABASE}/workflows/heavy"
    seen: list[int] = []
    params: dict[str, Any] = {"maxItems": 100}
    for _ in range(8):
        answer = service.client.get(route, params=params, headers=admin)
        assert answer.status_code == 200, answer.text[:300]
        assert len(answer.content) < LAMBDA_ANSWER_LIMIT, len(answer.content)
        body = answer.json()
        seen += [item["workflowVersion"] for item in body["Items"]]
        if body["NextToken"] is None:
            break
        params = {"maxItems": 100, "startingToken": body["NextToken"]}
    assert seen == list(range(8, 0, -1))
