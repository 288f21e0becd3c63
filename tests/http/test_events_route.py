"""GET /workflows/executions/{id}/events on both stores: 404 for a run that does not exist, 403
for a caller who may not read the run's workflow, and the run's event log, oldest first, paged
by sequence number, for one who may."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain.authorization import Action
from domain.constraints import Constraint, Operator
from tests.http.conftest import ADMIN, DATABASE, INPUTS, RESULTS, WORKFLOW, Service, allow

ROLE = "event-reader"
USER = "erin"


def _path(execution_id: str) -> str:
    return f"/workflows/executions/{execution_id}/events"


def _grants(service: Service, *, workflow: bool = True) -> list[Constraint]:
    """Everything reading the service's run takes: the route, its workflow (unless not), the
    assets it read and wrote, the databases it took metadata from."""
    facts = service.container.execution_store().access_facts([service.execution_id])
    databases: Sequence[str] = facts[service.execution_id].metadata_databases
    return [
        # the events route of any run
        allow(ROLE, "route", "api", Action.GET, Operator.ENDS_WITH, route__path="/events"),
        *(
            [
                allow(
                    ROLE,
                    "workflow",
                    "workflow",
                    Action.GET,
                    databaseId=DATABASE,
                    workflowId=WORKFLOW["workflowId"],
                )
            ]
            if workflow
            else []
        ),
        *(
            allow(ROLE, asset, "asset", Action.GET, databaseId=DATABASE, assetName=asset)
            for asset in (INPUTS, RESULTS)
        ),
        *(allow(ROLE, f"metadata-{db}", "database", Action.GET, databaseId=db) for db in databases),
    ]


@pytest.mark.parametrize("caller", ["admin", "reader"])
def test_the_events_of_a_run_that_does_not_exist_are_a_404(service: Service, caller: str) -> None:
    if caller == "admin":
        headers = service.as_user(ADMIN, ("admin",))
    else:
        service.grant(USER, ROLE, _grants(service))
        headers = service.as_user(USER)

    answer = service.client.get(_path("no-such-run"), headers=headers)

    assert answer.status_code == 404, answer.text
    assert set(answer.json()) == {"message"}


def test_a_caller_who_may_not_read_the_runs_workflow_gets_a_403(service: Service) -> None:
    service.grant(USER, ROLE, _grants(service, workflow=False))

    answer = service.client.get(_path(service.execution_id), headers=service.as_user(USER))

    assert answer.status_code == 403, answer.text
    assert set(answer.json()) == {"message"}
    assert "Items" not in answer.text


def test_a_caller_who_may_read_the_run_gets_its_events_oldest_first(service: Service) -> None:
    service.grant(USER, ROLE, _grants(service))
    headers = service.as_user(USER)

    answer = service.client.get(_path(service.execution_id), headers=headers)

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["workflowExecutionId"] == service.execution_id
    events = body["Items"]
    numbers = [event["sequenceNumber"] for event in events]
    assert numbers == list(range(1, len(events) + 1))  # gap-free, from the first
    assert events[0]["eventType"] == "ExecutionLaunched"
    assert events[-1]["eventType"] == "ExecutionCompleted"
    assert events[-1]["status"] == "SUCCEEDED"
    assert body["NextToken"] is None

    first = service.client.get(
        _path(service.execution_id), params={"maxItems": 2}, headers=headers
    ).json()
    rest = service.client.get(
        _path(service.execution_id),
        params={"afterSequence": first["NextToken"]},
        headers=headers,
    ).json()
    assert [e["sequenceNumber"] for e in first["Items"]] == [1, 2]
    assert first["Items"] + rest["Items"] == events
