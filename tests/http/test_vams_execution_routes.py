"""VAMS 2.6's execution routes as its clients call them, on both stores: the bare DELETE aborts
(a group's with `?groupId=`), the permanent delete has its own path and wants a confirmation.
The expected documents are written here from VAMS's handlers and models, not from wfx."""

from __future__ import annotations

from typing import Any

import yaml

from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.authorization import Action
from domain.constraints import Operator
from tests.http.conftest import ADMIN, DATABASE, WORKFLOW_FILE, Service, allow

GATED = {
    **yaml.safe_load((WORKFLOW_FILE.parent / "gated.yaml").read_text()),
    "databaseId": DATABASE,
}
RUNS = "/workflows/executions"


def _admin(service: Service) -> dict[str, str]:
    return service.as_user(ADMIN, ("admin",))


def _status(service: Service, execution_id: str) -> str:
    query = GetExecutionQuery(workflow_execution_id=execution_id)
    return str(service.container.get_execution().execute(query).status.value)


def _open_run(service: Service, group: str | None = None, user: str = ADMIN) -> str:
    """A run parked RUNNING at its approval gate."""
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=parse_workflow_document(GATED))
    )
    command = LaunchExecutionCommand(
        workflow_database_id=DATABASE,
        workflow_id=GATED["workflowId"],
        inputs=(f"{DATABASE}/inputs",),
        execution_group_id=group,
        user_id=user,
    )
    launched = service.container.launch_execution().execute(command)
    execution_id = str(launched.execution.workflow_execution_id)
    assert _status(service, execution_id) == "RUNNING"
    return execution_id


def _delete(service: Service, path: str, **options: Any) -> Any:
    return service.client.request("DELETE", path, headers=_admin(service), **options)


def test_a_vams_abort_of_a_finished_run_leaves_it_stored(service: Service) -> None:
    finished = service.execution_id
    before = _status(service, finished)

    answer = _delete(service, f"{RUNS}/{finished}")

    assert (answer.status_code, answer.json()) == (200, {"message": "Execution aborted"})
    assert _status(service, finished) == before  # not deleted, not changed
    read = service.client.get(f"{RUNS}/{finished}/details", headers=_admin(service))
    assert read.status_code == 200


def test_a_vams_abort_of_an_open_run_aborts_it(service: Service) -> None:
    running = _open_run(service)
    answer = _delete(service, f"{RUNS}/{running}")
    assert (answer.status_code, answer.json()) == (200, {"message": "Execution aborted"})
    assert _status(service, running) == "ABORTED"


def test_an_abort_of_an_unknown_run_is_a_404(service: Service) -> None:
    answer = _delete(service, f"{RUNS}/0b9e2f4c6a1d4e0b9a573f2c1d0e8b71")
    assert answer.status_code == 404
    assert set(answer.json()) == {"message"}


def test_a_group_abort_stops_the_open_members_and_names_the_ended(service: Service) -> None:
    first, second = _open_run(service, "batch-7"), _open_run(service, "batch-7")
    answer = _delete(service, f"{RUNS}/{first}", params={"groupId": "batch-7"})
    assert answer.status_code == 200, answer.text
    message = answer.json()["message"]
    assert message["groupId"] == "batch-7"
    assert sorted(message["results"], key=lambda r: r["executionId"]) == sorted(
        [
            {"executionId": first, "status": "aborted"},
            {"executionId": second, "status": "aborted"},
        ],
        key=lambda r: r["executionId"],
    )
    assert "skippedInaccessibleCount" not in message and "moreRemaining" not in message
    assert {_status(service, first), _status(service, second)} == {"ABORTED"}

    again = _delete(service, f"{RUNS}/{first}", params={"groupId": "batch-7"}).json()["message"]
    assert {r["status"] for r in again["results"]} == {"skipped-terminal"}


def test_a_group_abort_counts_but_never_names_a_member_the_caller_may_not_abort(
    service: Service,
) -> None:
    mine = _open_run(service, "shared", user="carol")
    other = _open_run(service, "shared")
    # carol may call the route and read everything, but abort (POST on assets) nothing
    service.grant(
        "carol",
        "reader",
        [
            allow("reader", "routes", "api", Action.DELETE, Operator.STARTS_WITH, route__path="/"),
            allow("reader", "wf", "workflow", Action.GET, Operator.STARTS_WITH, databaseId=""),
            allow("reader", "assets", "asset", Action.GET, Operator.STARTS_WITH, databaseId=""),
        ],
    )
    answer = service.client.delete(
        f"{RUNS}/{mine}", params={"groupId": "shared"}, headers=service.as_user("carol")
    )
    assert answer.status_code == 200, answer.text
    message = answer.json()["message"]
    assert message["results"] == [] and message["skippedInaccessibleCount"] == 2
    assert mine not in answer.text and other not in answer.text
    assert {_status(service, mine), _status(service, other)} == {"RUNNING"}


def test_a_group_with_no_run_is_a_404(service: Service) -> None:
    answer = _delete(service, f"{RUNS}/{service.execution_id}", params={"groupId": "nobody"})
    assert (answer.status_code, answer.json()) == (
        404,
        {"message": "No executions found for group"},
    )


def test_a_permanent_delete_without_its_confirmation_is_a_400_and_deletes_nothing(
    service: Service,
) -> None:
    path = f"{RUNS}/{service.execution_id}/permanent"
    sent: list[dict[str, Any]] = [{}, {"json": {}}, {"json": {"confirmDelete": False}}]
    for options in sent:
        answer = _delete(service, path, **options)
        assert answer.status_code == 400, answer.text
        assert "confirmDelete" in answer.json()["message"]
    assert _status(service, service.execution_id) == "SUCCEEDED"


def test_a_permanent_delete_of_an_open_run_is_refused_unless_forced(service: Service) -> None:
    running = _open_run(service)
    path = f"{RUNS}/{running}/permanent"
    refused = _delete(service, path, json={"confirmDelete": True})
    assert refused.status_code == 409, refused.text
    forced = _delete(service, path, json={"confirmDelete": True}, params={"force": "true"})
    assert forced.json() == {"message": "Execution records permanently deleted"}
    assert service.client.get(f"{RUNS}/{running}", headers=_admin(service)).status_code == 404
