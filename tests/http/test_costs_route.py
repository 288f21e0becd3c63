"""GET /costs: the ledger's totals over HTTP, on both stores; a wider scope than one execution
counts only the runs the caller may read."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from application.use_cases.record_cost import RecordCostCommand, ReportedUsage
from domain.authorization import Action
from tests.http.conftest import ADMIN, DATABASE, INPUTS, RESULTS, WORKFLOW, Service, allow

WORKFLOW_KEY = f"{DATABASE}/{WORKFLOW['workflowId']}"


def _report(service: Service, quantity: str, unit: str) -> None:
    step = service.container.execution_store().list_steps(service.execution_id)[0]
    service.container.record_cost().execute(
        RecordCostCommand(
            workflow_execution_id=service.execution_id,
            pipeline_execution_id=step.pipeline_execution_id,
            usages=(ReportedUsage(quantity=Decimal(quantity), unit=unit),),
        )
    )


def _totals(body: dict[str, Any]) -> dict[tuple[str, str], Decimal]:
    (row,) = body["rows"]
    return {(t["currency"], t["basis"]): Decimal(t["amount"]) for t in row["amounts"]}


def _reader(service: Service, user: str) -> dict[str, str]:
    """A user who may read the service's run: the route, the workflow and both assets."""
    service.grant(
        user,
        "cost-reader",
        [
            allow("cost-reader", "route", "api", Action.GET, route__path="/costs"),
            allow(
                "cost-reader",
                "workflow",
                "workflow",
                Action.GET,
                databaseId=DATABASE,
                workflowId=WORKFLOW["workflowId"],
            ),
            *(
                allow("cost-reader", a, "asset", Action.GET, databaseId=DATABASE, assetName=a)
                for a in (INPUTS, RESULTS)
            ),
        ],
    )
    return service.as_user(user)


def test_a_runs_summary_has_its_duration_per_attempt_and_its_priced_usage(
    service: Service,
) -> None:
    _report(service, "200", "lambda-GB-seconds")  # by hand: 200 x 0.0000166667 = 0.00333334

    answer = service.client.get(
        "/costs",
        params={"execution": service.execution_id},
        headers=service.as_user(ADMIN, ("admin",)),
    )

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["scope"] == "execution" and body["key"] == service.execution_id
    assert _totals(body) == {("USD", "estimate"): Decimal("0.00333334")}
    units = {q["unit"]: q for q in body["rows"][0]["quantities"]}
    assert units["seconds"]["entries"] == 3  # three steps, one attempt each
    assert body["entries"] == 4 and body["superseded"] == 0


def test_a_workflow_summary_counts_only_runs_the_caller_may_read(service: Service) -> None:
    _report(service, "100", "lambda-GB-seconds")
    service.grant(
        "mallory", "route-only", [allow("route-only", "r", "api", Action.GET, route__path="/costs")]
    )

    readable = service.client.get(
        "/costs", params={"workflow": WORKFLOW_KEY}, headers=_reader(service, "rita")
    )
    hidden = service.client.get(
        "/costs", params={"workflow": WORKFLOW_KEY}, headers=service.as_user("mallory")
    )
    refused = service.client.get(
        "/costs", params={"execution": service.execution_id}, headers=service.as_user("mallory")
    )

    assert readable.status_code == 200 and readable.json()["entries"] == 4
    assert hidden.status_code == 200 and hidden.json()["entries"] == 0
    assert refused.status_code == 403


def test_by_day_the_asset_and_the_group_scopes_answer_from_their_indexes(
    service: Service,
) -> None:
    _report(service, "100", "lambda-GB-seconds")
    headers = service.as_user(ADMIN, ("admin",))

    by_asset = service.client.get(
        "/costs", params={"asset": f"{DATABASE}/{RESULTS}", "by": "day"}, headers=headers
    ).json()
    by_group = service.client.get("/costs", params={"group": "none"}, headers=headers).json()

    assert by_asset["by"] == "day" and len(by_asset["rows"]) == 1 and by_asset["rows"][0]["day"]
    assert by_asset["entries"] == 4
    assert by_group["entries"] == 0


def test_two_scopes_or_an_unknown_grouping_are_a_bad_request(service: Service) -> None:
    headers = service.as_user(ADMIN, ("admin",))
    both = {"execution": service.execution_id, "group": "g"}

    two = service.client.get("/costs", params=both, headers=headers)
    weekly = service.client.get("/costs", params={"by": "week"}, headers=headers)
    no_workflow_id = service.client.get("/costs", params={"workflow": DATABASE}, headers=headers)

    assert two.status_code == 400 and "at most one" in two.json()["message"]
    assert weekly.status_code == 400
    assert no_workflow_id.status_code == 400, no_workflow_id.text


def test_a_summary_of_a_run_that_is_not_there_is_a_404_for_the_admin_too(
    service: Service,
) -> None:
    """Tier 2 lets the admin through without reading the run; the summary must still say the
    run is not there, as every other read by id does, rather than total nothing."""
    missing = "01a243cfe943af57c5f2cd319ec58f00"
    for headers in (service.as_user(ADMIN, ("admin",)), _reader(service, "rita")):
        answer = service.client.get("/costs", params={"execution": missing}, headers=headers)

        assert answer.status_code == 404, answer.text
        assert missing in answer.json()["message"]


def test_a_scope_missing_half_its_key_is_refused_quoting_what_was_sent(service: Service) -> None:
    """The route joins DATABASE_ID/ID with a colon for the store; the refusal quoted the joined
    key (`got 'http:'`), which the caller never sent."""
    headers = service.as_user(ADMIN, ("admin",))
    for scope, sent in (("workflow", f"{DATABASE}/"), ("asset", f"/{INPUTS}")):
        answer = service.client.get("/costs", params={scope: sent}, headers=headers)

        assert answer.status_code == 400, answer.text
        assert answer.json()["message"] == f"{scope}: must be DATABASE_ID/ID, got {sent!r}"
