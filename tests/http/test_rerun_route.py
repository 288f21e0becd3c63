"""POST /workflows/executions/{executionId}/rerun as VAMS's web client calls it (an empty body, or
one naming a group), on each store: VAMS's answer, the new run linked to the one it reruns, and
a reader refused with nothing written. The route x permission matrix checks each permission."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.authz.shipped_templates import load_template
from domain.authorization import Subject
from domain.constraints import RoleAssignment
from tests.http.conftest import ADMIN, DATABASE, INPUTS, WORKFLOW, Service
from tests.http.snapshots import snapshot


def _rerun(service: Service, execution_id: str, body: Any, user: str = ADMIN) -> Any:
    headers = service.as_user(user, ("admin",) if user == ADMIN else ())
    return service.client.post(
        f"/workflows/executions/{execution_id}/rerun", json=body, headers=headers
    )


def _details(service: Service, execution_id: str) -> dict[str, Any]:
    answer = service.client.get(
        f"/workflows/executions/{execution_id}/details", headers=service.as_user(ADMIN, ("admin",))
    )
    assert answer.status_code == 200, answer.text
    details: dict[str, Any] = answer.json()["message"]
    return details


def test_a_rerun_answers_as_vams_and_the_new_run_names_the_one_it_reruns(service: Service) -> None:
    before = _details(service, service.execution_id)

    answer = _rerun(service, service.execution_id, {"executionGroupId": "retry-1"})

    assert answer.status_code == 200, answer.text
    message = answer.json()["message"]
    assert set(message) == {"executionId", "executionGroupId", "warnings"}
    assert message["executionGroupId"] == "retry-1"
    assert message["warnings"] is None
    new_id = message["executionId"]
    assert new_id != service.execution_id
    rerun = _details(service, new_id)
    assert rerun["rerunOfExecutionId"] == service.execution_id
    assert rerun["executionGroupId"] == "retry-1"
    assert (rerun["workflowDatabaseId"], rerun["workflowId"]) == (
        DATABASE,
        WORKFLOW["workflowId"],
    )
    assert rerun["executionStatus"] == "SUCCEEDED"  # the service runs inline here

    def selected(details: dict[str, Any]) -> list[tuple[str, str, str]]:
        return [
            (i["databaseId"], i["assetId"], i["inputAssetFileKey"]) for i in details["inputFiles"]
        ]

    assert selected(rerun) == selected(before)
    assert {(i[0], i[1]) for i in selected(rerun)} == {(DATABASE, INPUTS)}
    shown = service.client.get(
        f"/workflows/executions/{new_id}", headers=service.as_user(ADMIN, ("admin",))
    ).json()["message"]
    assert shown["rerunOfExecutionId"] == service.execution_id
    # the run it reruns is as it was
    assert _details(service, service.execution_id) == before


def test_an_empty_body_reruns_outside_any_group_and_unknown_keys_are_ignored(
    service: Service,
) -> None:
    for body in ({}, None, {"somethingElse": 1}):
        answer = _rerun(service, service.execution_id, body)
        assert answer.status_code == 200, (body, answer.text)
        message = answer.json()["message"]
        assert message["executionGroupId"] is None
        assert "executionGroupId" not in _details(service, message["executionId"])


@pytest.mark.parametrize("group", ["ab", "a" * 64, "has space", "semi;colon"])
def test_a_group_id_breaking_vams_id_rule_is_refused_naming_it(
    service: Service, group: str
) -> None:
    service.as_user(ADMIN)  # the first token makes the service's signing key: not the route's
    before = snapshot(service.container)

    answer = _rerun(service, service.execution_id, {"executionGroupId": group})

    assert answer.status_code == 400, answer.text
    assert "executionGroupId" in answer.json()["message"]
    assert snapshot(service.container) == before


@pytest.mark.parametrize(("token", "rule"), [("", "at least 1"), ("x" * 81, "at most 80")])
def test_a_client_token_out_of_bounds_is_refused_saying_its_bound(
    service: Service, token: str, rule: str
) -> None:
    """The launch route's rule (entrypoints.http.requests.ClientToken), said as a string's."""
    service.as_user(ADMIN)  # the first token makes the service's signing key: not the route's
    before = snapshot(service.container)

    answer = _rerun(service, service.execution_id, {"clientToken": token})

    assert answer.status_code == 400, answer.text
    message = answer.json()["message"]
    assert "clientToken: " in message and f"{rule} character" in message, message
    assert snapshot(service.container) == before


def test_an_unknown_run_is_not_found(service: Service) -> None:
    answer = _rerun(service, "0" * 32, {})

    assert answer.status_code == 404, answer.text
    assert set(answer.json()) == {"message"}


def test_a_reader_cannot_rerun_and_nothing_is_written(service: Service) -> None:
    admin = Subject(user_id=ADMIN, roles=("admin",))
    roles = service.container.administer_roles()
    roles.apply_template(
        admin, load_template("Database Read-Only"), "reader-role", database_id=DATABASE
    )
    roles.assign(admin, RoleAssignment(user_id="reader", role="reader-role"))
    headers = service.as_user("reader")
    run = f"/workflows/executions/{service.execution_id}"
    assert service.client.get(run, headers=headers).status_code == 200  # a reader indeed
    before = snapshot(service.container)

    answer = service.client.post(f"{run}/rerun", json={}, headers=headers)

    assert answer.status_code == 403, answer.text
    assert snapshot(service.container) == before
