"""The workflow routes answer from the definitions: the list gives each workflow's owner, latest
version and creation; one workflow gives its definition, a version's step definitions and its
versions newest first; a publish is owned by the caller who made version 1."""

from __future__ import annotations

import pytest

from tests.http.conftest import ADMIN, DATABASE, WORKFLOW, Service

ADMIN_ROLE = ("admin",)
WORKFLOW_ID = WORKFLOW["workflowId"]
# The layer's answers, whatever the store: SQLite (the permission matrix runs on both).
pytestmark = pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)


def test_a_second_publish_moves_the_definition_and_keeps_the_first_version(
    service: Service,
) -> None:
    admin = service.as_user(ADMIN, ADMIN_ROLE)
    changed = {**WORKFLOW, "steps": WORKFLOW["steps"][:1], "description": "one step"}
    assert service.client.put("/workflows", json=changed, headers=admin).status_code == 201

    listed = service.client.get("/workflows", headers=admin).json()
    shown = service.client.get(f"/database/{DATABASE}/workflows/{WORKFLOW_ID}", headers=admin)
    first = service.client.get(
        f"/database/{DATABASE}/workflows/{WORKFLOW_ID}", params={"version": 1}, headers=admin
    ).json()

    (definition,) = listed["Items"]
    assert definition["latestVersion"] == 2 and definition["description"] == "one step"
    assert set(definition) >= {"createdDate", "workflowDatabaseId", "workflowId"}
    answer = shown.json()
    assert shown.status_code == 200
    assert [v["workflowVersion"] for v in answer["Items"]] == [2, 1]
    assert answer["version"]["workflowVersion"] == 2
    assert [s["stepDefinitionId"] for s in first["version"]["steps"]] == [
        f"{DATABASE}:{WORKFLOW_ID}:1:{i}" for i in range(len(WORKFLOW["steps"]))
    ]
    assert answer["NextToken"] is None


def test_the_first_publisher_owns_the_workflow(service: Service) -> None:
    admin = service.as_user("carol", ADMIN_ROLE)
    document = {**WORKFLOW, "workflowId": "owned"}
    assert service.client.put("/workflows", json=document, headers=admin).status_code == 201
    again = {**document, "description": "second"}
    assert service.client.put("/workflows", json=again, headers=service.as_user(ADMIN, ADMIN_ROLE))

    answer = service.client.get(f"/database/{DATABASE}/workflows/owned", headers=admin).json()

    assert (answer["ownerUserId"], answer["latestVersion"]) == ("carol", 2)


def test_an_unknown_workflow_or_version_is_a_404(service: Service) -> None:
    admin = service.as_user(ADMIN, ADMIN_ROLE)
    unknown = service.client.get(f"/database/{DATABASE}/workflows/nope", headers=admin)
    no_version = service.client.get(
        f"/database/{DATABASE}/workflows/{WORKFLOW_ID}", params={"version": 9}, headers=admin
    )

    assert unknown.status_code == 404 and unknown.json() == {
        "message": f"workflow {DATABASE}/nope not found"
    }
    assert no_version.status_code == 404


def test_a_relative_handler_path_is_refused_naming_the_step_and_nothing_is_published(
    service: Service,
) -> None:
    admin = service.as_user(ADMIN, ADMIN_ROLE)
    step = {
        "pipelineId": "local-handler",
        "executionType": "python",
        "handler": "steps:run",
        "handlerPath": "handlers",
        "inputFileArity": "none",
    }
    document = {**WORKFLOW, "workflowId": "relative", "steps": [step]}

    answer = service.client.put("/workflows", json=document, headers=admin)

    assert answer.status_code == 400, answer.text
    message = answer.json()["message"]
    assert "steps[0].handlerPath (local-handler): must be an absolute folder" in message
    unknown = service.client.get(f"/database/{DATABASE}/workflows/relative", headers=admin)
    assert unknown.status_code == 404


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("/database/a b/workflows/x", "path parameter databaseId"),
        ("/database/x/workflows/a b", "path parameter workflowId"),
        ("/workflows?databaseId=a b", "query parameter databaseId"),
    ],
)
def test_an_identifier_that_breaks_the_rule_is_refused_by_the_name_sent(
    service: Service, url: str, named: str
) -> None:
    """The use case's query said `database_id: ...`, a name no client sends."""
    answer = service.client.get(url, headers=service.as_user(ADMIN, ("admin",)))

    assert answer.status_code == 400, answer.text
    assert answer.json()["message"].startswith(f"{named}: String should match pattern")
