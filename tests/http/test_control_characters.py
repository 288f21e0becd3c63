"""Control characters refused at the HTTP edge, on both stores: in a launch's ids, a filter, a
path, an abort's cause and a decision's reason, a 400 naming the field and the character
(escaped), and nothing stored."""

from __future__ import annotations

import pytest

from tests.http.conftest import ADMIN, DATABASE, WORKFLOW, Service

HOSTILE = ("g\x1b]0;owned\x07", "g\x00", "g\nh", "g\u202eevil", "g\x9b31m")
LAUNCH = {"workflowDatabaseId": DATABASE, "workflowId": WORKFLOW["workflowId"]}


def _listed(service: Service) -> list[str]:
    page = service.client.get("/workflows/executions", headers=service.as_user(ADMIN, ("admin",)))
    return [row["workflowExecutionId"] for row in page.json()["message"]["Items"]]


@pytest.mark.parametrize(
    ("field", "value"),
    zip(
        ["executionGroupId", "clientToken", "workflowId", "executionGroupId", "clientToken"],
        HOSTILE,
        strict=True,
    ),
)
def test_a_launch_id_with_a_control_character_is_a_400_naming_it(
    service: Service, field: str, value: str
) -> None:
    before = _listed(service)
    answer = service.client.post(
        "/workflows/executions",
        json=LAUNCH | {field: value},
        headers=service.as_user(ADMIN, ("admin",)),
    )
    assert answer.status_code == 400, answer.text
    message = answer.json()["message"]
    assert field in message and "control character" in message
    assert not any(c in message for c in "\x1b\x00\u202e\x9b")
    assert _listed(service) == before


@pytest.mark.parametrize(
    ("route", "named"),
    [
        ("/workflows/executions?executionGroupId=g%1B%5D0%3Bx%07", "executionGroupId"),
        ("/workflows/executions?status=%E2%80%AE", "status"),
        ("/workflows?databaseId=a%00", "databaseId"),
        ("/workflows/executions/a%1Bb", "path"),
        ("/costs?group=g%0Ah", "group"),
    ],
)
def test_a_query_or_path_with_a_control_character_is_a_400_naming_it(
    service: Service, route: str, named: str
) -> None:
    answer = service.client.get(route, headers=service.as_user(ADMIN, ("admin",)))
    assert answer.status_code == 400, answer.text
    assert named in answer.json()["message"]


def test_free_text_keeps_its_lines_but_not_an_escape(service: Service) -> None:
    headers = service.as_user(ADMIN, ("admin",))
    running = service.launch()
    refused = service.client.post(
        f"/workflows/executions/{running}/abort", json={"cause": "x\x1b[2J"}, headers=headers
    )
    assert refused.status_code == 400
    assert "cause" in refused.json()["message"]
    kept = service.client.post(
        f"/workflows/executions/{running}/abort", json={"cause": "two\nlines"}, headers=headers
    )
    assert kept.status_code == 200, kept.text


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"description": "nice\u202eevil"}, "description"),
        ({"steps": [{**WORKFLOW["steps"][0], "handler": "mod:f\x1b]0;x"}]}, "handler"),
    ],
)
def test_a_workflow_document_with_a_control_character_is_a_400_naming_it(
    service: Service, change: dict[str, object], named: str
) -> None:
    answer = service.client.put(
        "/workflows", json=WORKFLOW | change, headers=service.as_user(ADMIN, ("admin",))
    )
    assert answer.status_code == 400, answer.text
    assert named in answer.json()["message"]
    assert "control character" in answer.json()["message"]
