"""The approval routes on each store: a gate's request is seen by who may read its run and by
its approvers, decided only by an approver (the admin role does not bypass it), and a decision
carries the run on; a closed one is a 409, an unknown one a 404, a bad body a 400."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.authorization import ADMIN_ROLE, Action
from domain.constraints import Operator
from tests.http.conftest import ADMIN, DATABASE, Service, allow

GATED = {
    "databaseId": DATABASE,
    "workflowId": "gated",
    "steps": [
        {"pipelineId": "sign-off", "executionType": "approval", "approvers": ["carol"]},
        {
            "pipelineId": "report",
            "executionType": "python",
            "handler": "features.workflows.steps:generate",
            "inputFileArity": "none",
        },
    ],
}


@pytest.fixture
def gated(service: Service) -> tuple[str, str]:
    """A run parked at its gate: (execution id, approval id)."""
    document = parse_workflow_document(yaml.safe_load(yaml.safe_dump(GATED)))
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=document, published_by=ADMIN)
    )
    launched = service.container.launch_execution().execute(
        LaunchExecutionCommand(workflow_database_id=DATABASE, workflow_id="gated", user_id=ADMIN)
    )
    execution_id = launched.execution.workflow_execution_id
    (request,) = service.container.approvals().list_for_execution(execution_id)
    return execution_id, request.approval_id


def _routes(service: Service, user: str) -> None:
    """Tier 1 for every approval route, nothing more."""
    role = f"{user}-routes"
    service.grant(
        user,
        role,
        [
            allow(role, "list", "api", Action.GET, route__path="/approvals"),
            allow(role, "one", "api", Action.GET, Operator.STARTS_WITH, route__path="/approvals/"),
            allow(
                role, "decide", "api", Action.POST, Operator.STARTS_WITH, route__path="/approvals/"
            ),
        ],
    )


def _decide(
    service: Service, approval_id: str, user: str, body: Any, roles: tuple[str, ...] = ()
) -> Any:
    return service.client.post(
        f"/approvals/{approval_id}/decision", json=body, headers=service.as_user(user, roles)
    )


def test_an_approver_sees_and_decides_and_the_run_goes_on(
    service: Service, gated: tuple[str, str]
) -> None:
    execution_id, approval_id = gated
    _routes(service, "carol")
    listed = service.client.get(
        "/approvals", params={"pending": "true"}, headers=service.as_user("carol")
    )
    assert listed.status_code == 200, listed.text
    assert [a["approvalId"] for a in listed.json()["Items"]] == [approval_id]
    assert "taskToken" not in listed.json()["Items"][0]
    one = service.client.get(f"/approvals/{approval_id}", headers=service.as_user("carol"))
    assert one.status_code == 200 and one.json()["status"] == "PENDING", one.text

    answer = _decide(service, approval_id, "carol", {"decision": "approve", "reason": "fine"})
    assert answer.status_code == 200, answer.text
    assert (answer.json()["status"], answer.json()["decidedBy"]) == ("APPROVED", "carol")
    execution = service.container.execution_store().get_execution(execution_id)
    assert execution.status.value == "SUCCEEDED"  # the service's runner carried it on
    again = _decide(service, approval_id, "carol", {"decision": "reject", "reason": "no"})
    assert again.status_code == 409 and "APPROVED by carol" in again.json()["message"]


def test_the_admin_role_does_not_bypass_a_gate(service: Service, gated: tuple[str, str]) -> None:
    _, approval_id = gated
    answer = _decide(service, approval_id, ADMIN, {"decision": "approve"}, (ADMIN_ROLE,))
    assert answer.status_code == 403, answer.text
    assert "only its approvers" in answer.json()["message"]
    request = service.container.approvals().get(approval_id)
    assert request.is_pending


def test_a_caller_neither_reading_the_run_nor_approving_sees_nothing_of_it(
    service: Service, gated: tuple[str, str]
) -> None:
    _, approval_id = gated
    _routes(service, "mallory")
    listed = service.client.get("/approvals", headers=service.as_user("mallory"))
    assert listed.status_code == 200 and listed.json()["Items"] == [], listed.text
    one = service.client.get(f"/approvals/{approval_id}", headers=service.as_user("mallory"))
    assert one.status_code == 403, one.text
    refused = _decide(service, approval_id, "mallory", {"decision": "approve"})
    assert refused.status_code == 403
    assert service.container.approvals().get(approval_id).is_pending


def test_bad_decisions_name_the_field_and_change_nothing(
    service: Service, gated: tuple[str, str]
) -> None:
    _, approval_id = gated
    _routes(service, "carol")
    for body, field in (
        ({"decision": "maybe"}, "decision"),
        ({"decision": "approve", "extra": 1}, "extra"),
        ({"decision": "reject"}, "reason"),
        ({"decision": "approve", "reason": "x" * 2001}, "reason"),
    ):
        answer = _decide(service, approval_id, "carol", body)
        assert answer.status_code == 400, (body, answer.text)
        assert field in answer.json()["message"], answer.text
    assert service.container.approvals().get(approval_id).is_pending
    missing = _decide(service, "no-such-approval", "carol", {"decision": "approve"})
    assert missing.status_code == 404


def test_a_rejection_without_a_reason_names_the_body_field_not_a_cli_option(
    service: Service, gated: tuple[str, str]
) -> None:
    _, approval_id = gated
    _routes(service, "carol")
    answer = _decide(service, approval_id, "carol", {"decision": "reject", "reason": " "})
    assert answer.status_code == 400, answer.text
    assert answer.json()["message"].startswith("reason: a rejection says why"), answer.text
    assert "--reason" not in answer.text
