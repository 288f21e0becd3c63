"""The route x permission matrix, generated from the route table: for every route and every
permission it needs, a caller holding all the others but that one gets 403, and nothing stored
changed (every table scanned, every file under the home read, before the denials and after
each); holding them all, the route answers. Each caller is a user of its own, holding a role of
its own: no role is deleted between them (a delete on DynamoDB was six requests, a third of each
caller's).

The permissions a route needs are derived from the table's tier-2 kind and the world's run
(the workflow, the asset it read, the asset it wrote, the databases it took metadata from).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from domain.authorization import Action
from domain.constraints import Constraint, Operator
from entrypoints.http.route_table import EXECUTE, ROUTES, RouteRule, Tier2
from tests.http.conftest import DATABASE, INPUTS, RESULTS, WORKFLOW, Service, allow
from tests.http.snapshots import snapshot

ROLE = "matrix"
USER = "mallory"


@dataclass(frozen=True)
class Needed:
    """One permission: a name for the test id, and the constraint that grants it."""

    name: str
    object_type: str
    action: Action
    fields: tuple[tuple[str, str], ...]

    def constraint(self, role: str) -> Constraint:
        return allow(
            role, self.name, self.object_type, self.action, Operator.EQUALS, **dict(self.fields)
        )


def _request(rule: RouteRule, execution_id: str) -> tuple[str, str, dict[str, Any]]:
    path = rule.path.replace("{executionId}", execution_id)
    path = (
        path.replace("{databaseId}", DATABASE)
        .replace("{assetId}", INPUTS)
        .replace("{workflowDatabaseId}", DATABASE)
        .replace("{workflowId}", WORKFLOW["workflowId"])
    )
    # the world's run reached no gate: an approval route answers 404 once let through tier 1
    # (tests/http/test_approval_routes.py holds tier 2 to its rule)
    path = path.replace("{approvalId}", "no-such-approval")
    options: dict[str, Any] = {}
    if rule.path.endswith("/details/metadata"):
        options["params"] = {"collection": "inputs"}
    if rule.path == "/costs":
        options["params"] = {"execution": execution_id}
    if rule.tier2 is Tier2.LAUNCH:
        options["json"] = {
            "workflowDatabaseId": DATABASE,
            "workflowId": WORKFLOW["workflowId"],
            "inputs": [{"databaseId": DATABASE, "assetId": INPUTS}],
            "outputAsset": {"databaseId": DATABASE, "assetId": RESULTS},
        }
    if rule.tier2 is Tier2.RERUN:
        options["json"] = {}  # VAMS's web client sends an empty body without a group
    if rule.path.endswith("/execute"):
        options["json"] = {
            "inputFiles": [{"databaseId": DATABASE, "assetId": INPUTS, "relativeFileKey": "/"}],
            "outputDatabaseId": DATABASE,
            "outputAssetId": RESULTS,
        }
    if rule.path.endswith("/permanent"):
        options["json"] = {"confirmDelete": True}
    if rule.path.endswith("/decision"):
        options["json"] = {"decision": "approve"}
    if rule.method is Action.PUT:
        options["json"] = {**WORKFLOW, "description": "a second version"}
    return rule.method.value, path, options


def _needed(rule: RouteRule, path: str, metadata_databases: Sequence[str]) -> list[Needed]:
    route = Needed("route", "api", rule.method, (("route__path", path),))
    workflow = (("databaseId", DATABASE), ("workflowId", WORKFLOW["workflowId"]))
    if rule.tier2 in (Tier2.FILTER, Tier2.APPROVAL):
        return [route]
    if rule.tier2 is Tier2.WORKFLOW:
        return [route, Needed("workflow", "workflow", rule.action, workflow)]
    if rule.tier2 is Tier2.PUBLISH:  # the world's workflow has python steps: code on the host
        return [
            route,
            Needed("workflow", "workflow", Action.PUT, workflow),
            Needed("host-code", "hostCode", Action.PUT, (("databaseId", DATABASE),)),
        ]
    if rule.tier2 is Tier2.LAUNCH:
        return [
            route,
            Needed("workflow", "workflow", Action.POST, workflow),
            Needed(
                "input", "asset", Action.POST, (("databaseId", DATABASE), ("assetName", INPUTS))
            ),
            Needed(
                "output", "asset", Action.PUT, (("databaseId", DATABASE), ("assetName", RESULTS))
            ),
        ]
    if rule.tier2 is Tier2.RERUN:  # a read of the run, and a launch of what it ran again
        read = RouteRule(rule.method, rule.path, Tier2.EXECUTION, Action.GET)
        launch = RouteRule(rule.method, rule.path, Tier2.LAUNCH, Action.POST)
        launched = _needed(launch, path, metadata_databases)[1:]  # the route is asked once
        execute = EXECUTE.replace("{workflowDatabaseId}", DATABASE).replace(
            "{workflowId}", WORKFLOW["workflowId"]
        )
        return [
            *_needed(read, path, metadata_databases),
            Needed("execute-route", "api", Action.POST, (("route__path", execute),)),
            *(replace(need, name=f"launch-{need.name}") for need in launched),
        ]
    # seed 000: an abort asks GET of the workflow, as a read does; the assets get the action
    workflow_action = Action.GET if rule.tier2 is Tier2.ABORT else rule.action
    return [
        route,
        Needed("workflow", "workflow", workflow_action, workflow),
        Needed("read", "asset", rule.action, (("databaseId", DATABASE), ("assetName", INPUTS))),
        Needed("wrote", "asset", rule.action, (("databaseId", DATABASE), ("assetName", RESULTS))),
        *(
            Needed(f"metadata-{db}", "database", Action.GET, (("databaseId", db),))
            for db in metadata_databases
        ),
    ]


@pytest.mark.parametrize("rule", ROUTES, ids=lambda rule: f"{rule.method.value} {rule.path}")
def test_each_permission_a_route_needs_is_needed(service: Service, rule: RouteRule) -> None:
    method, path, options = _request(rule, service.execution_id)
    facts = service.container.execution_store().access_facts([service.execution_id])
    needed = _needed(rule, path, facts[service.execution_id].metadata_databases)

    # Every caller's role granted and token issued first (the first token makes the home's key):
    # then one snapshot, which each denial must leave as it is, and one policy for the service
    # to load, not a store scan after each grant.
    callers: dict[str, dict[str, str]] = {}
    for missing in needed:
        user, role = f"{USER}-{missing.name}", f"{ROLE}-{missing.name}"
        service.grant(user, role, [need.constraint(role) for need in needed if need is not missing])
        callers[missing.name] = service.as_user(user)
    service.grant(USER, ROLE, [need.constraint(ROLE) for need in needed])
    allowed = service.as_user(USER)
    before = snapshot(service.container)

    for missing in needed:
        answer = service.client.request(method, path, headers=callers[missing.name], **options)
        assert answer.status_code == 403, (missing.name, answer.text)
        assert set(answer.json()) == {"message"}
        assert snapshot(service.container) == before, f"{method} {path} without {missing.name}"

    answer = service.client.request(method, path, headers=allowed, **options)
    # authorized: what the route says is its own (a redrive of a succeeded run is a 409)
    assert answer.status_code not in (401, 403), answer.text
    assert answer.status_code < 500, answer.text


def test_the_table_names_every_route_of_the_app(service: Service) -> None:
    paths = service.client.get("/openapi.json").json()["paths"]
    served = {(method.upper(), path) for path, operations in paths.items() for method in operations}
    assert served == {rule.key for rule in ROUTES}
