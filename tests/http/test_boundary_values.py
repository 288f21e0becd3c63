"""Boundary values at the HTTP edge, on both stores: every integer and string parameter of the
service's own OpenAPI schema, and the integer and text fields of each body, sent at and past
what a store can hold (2^63 and above, -1, 0, a huge string). Each is answered - a 400 naming
the field, or a page - and never a 500. The cases are built by schemathesis from the schema, so
a route added later is covered without a line here."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from schemathesis.core import NOT_SET

from tests.http.conftest import ADMIN, DATABASE, WORKFLOW, Service

INTEGERS = (2**63, 2**64, 10**40, 2**63 - 1, -1, 0)
HUGE = "x" * 100_000
STRINGS = ("", "x" * 20_000)  # a query string past 64 KiB is no URL a client sends


def _path_values(service: Service) -> dict[str, str]:
    return {
        "executionId": service.execution_id,
        "databaseId": DATABASE,
        "assetId": "inputs",
        "workflowDatabaseId": DATABASE,
        "workflowId": WORKFLOW["workflowId"],
        "approvalId": "none",
    }


def _parameters(operation: Any) -> list[dict[str, Any]]:
    return [p.definition for p in operation.iter_parameters() if p.location in ("query", "path")]


def _bodies() -> dict[tuple[str, str], list[tuple[str, dict[str, Any]]]]:
    launch = {"workflowDatabaseId": DATABASE, "workflowId": WORKFLOW["workflowId"]}
    step = dict(WORKFLOW["steps"][0])
    whole = {"databaseId": DATABASE, "assetId": "inputs", "relativeFileKey": "/"}
    bodies: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {
        ("POST", "/workflows/executions"): [
            *((f"workflowVersion={n}", {**launch, "workflowVersion": n}) for n in INTEGERS),
            ("executionGroupId huge", {**launch, "executionGroupId": HUGE}),
            ("clientToken huge", {**launch, "clientToken": HUGE}),
        ],
        ("POST", "/workflows/executions/{executionId}/abort"): [("cause huge", {"cause": HUGE})],
        ("POST", "/workflows/{workflowDatabaseId}/{workflowId}/execute"): [
            ("executionGroupId huge", {"executionGroupId": HUGE}),
            ("relativeFileKey huge", {"inputFiles": [{**whole, "relativeFileKey": "/" + HUGE}]}),
            ("versionId huge", {"inputFiles": [{**whole, "versionId": HUGE}]}),
            ("outputAssetId huge", {"outputDatabaseId": DATABASE, "outputAssetId": HUGE}),
            ("pipelineExecutionParameters huge", {"pipelineExecutionParameters": {"p": {HUGE: 1}}}),
        ],
        ("POST", "/approvals/{approvalId}/decision"): [
            ("reason huge", {"decision": "approve", "reason": HUGE})
        ],
        ("PUT", "/workflows"): [
            ("description huge", {**WORKFLOW, "description": HUGE * 20}),
            *(
                (f"retry.intervalSeconds={n}", {**WORKFLOW, "steps": [step_with]})
                for n in INTEGERS
                for step_with in ({**step, "retry": {"intervalSeconds": n}},)
            ),
            *(
                (f"retry.backoffRate={n}", {**WORKFLOW, "steps": [step_with]})
                for n in (2**63, 10**40, 1e308)
                for step_with in ({**step, "retry": {"backoffRate": n}},)
            ),
            *(
                (f"{key} huge", {**WORKFLOW, "steps": [{**step, key: value}]})
                for key, value in (
                    ("handler", HUGE),
                    ("handlerPath", HUGE),
                    ("metadataInputs", [HUGE]),
                    ("metadataInputs", ["m"] * 100_000),
                )
            ),
        ],
    }
    return bodies


def test_no_boundary_value_of_a_parameter_or_body_field_is_a_500(service: Service) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", service.app)
    headers = service.as_user(ADMIN, ("admin",))
    defaults = _path_values(service)
    bodies = _bodies()
    failures: list[str] = []
    tried = 0
    for result in schema.get_all_operations():
        operation = result.ok()  # type: ignore[union-attr]
        path_parameters = {
            p.name: defaults[p.name]
            for p in operation.path_parameters  # type: ignore[attr-defined]
        }
        body_cases = bodies.get((operation.method.upper(), operation.path), [])
        cases: list[tuple[str, Any]] = []
        for parameter in _parameters(operation):
            kind = parameter.get("schema", {})
            types = {kind.get("type")} | {o.get("type") for o in kind.get("anyOf", [])}
            values: tuple[Any, ...] = (
                INTEGERS if "integer" in types else STRINGS if "string" in types else ()
            )
            for value in values:
                where = parameter["in"]
                name = parameter["name"]
                query = {name: value} if where == "query" else {}
                path = {**path_parameters, **({name: value} if where == "path" else {})}
                if where == "path" and value == "":
                    continue  # an empty path segment is another route
                case = operation.Case(path_parameters=path, query=query)
                if body_cases:
                    case.body = body_cases[0][1]
                cases.append((f"{where} {name}={str(value)[:24]}", case))
        for label, body in body_cases:
            cases.append((label, operation.Case(path_parameters=path_parameters, body=body)))
        for label, case in cases:
            tried += 1
            # sent by the service's own client: the 500 is what the caller sees, not a raise
            response = service.client.request(
                case.method,
                case.formatted_path,
                params=case.query,
                json=None if case.body is NOT_SET else case.body,
                headers=headers,
            )
            if response.status_code >= 500:
                failures.append(
                    f"{operation.method.upper()} {operation.path} {label}: "
                    f"{response.status_code} {response.text[:200]}"
                )
            elif response.status_code == 400:
                assert response.json()["message"], label
    assert tried > 60
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    ("route", "field"),
    [
        (f"/database/{DATABASE}/workflows/{WORKFLOW['workflowId']}?version={2**63}", "version"),
        ("/workflows/executions/{id}/events?afterSequence=" + str(2**63), "afterSequence"),
    ],
)
def test_an_integer_past_the_store_is_a_400_naming_the_parameter(
    service: Service, route: str, field: str
) -> None:
    answer = service.client.get(
        route.replace("{id}", service.execution_id), headers=service.as_user(ADMIN, ("admin",))
    )
    assert answer.status_code == 400
    assert field in answer.json()["message"]


def test_a_launch_of_a_version_past_the_store_is_a_400_naming_the_field(service: Service) -> None:
    answer = service.client.post(
        "/workflows/executions",
        json={"workflowDatabaseId": DATABASE, "workflowId": WORKFLOW["workflowId"]}
        | {"workflowVersion": 2**63},
        headers=service.as_user(ADMIN, ("admin",)),
    )
    assert answer.status_code == 400
    assert "workflowVersion" in answer.json()["message"]


def test_an_asset_whose_key_passes_2048_bytes_is_a_400_naming_the_rule(service: Service) -> None:
    """Two 256-character ids of 4-byte characters: within each id's bound, a 2049-byte
    `databaseId:assetId` partition key DynamoDB refuses."""
    wide = "\U00010000" * 256
    answer = service.client.get(
        f"/database/{wide}/assets/{wide}/workflows/executions",
        headers=service.as_user(ADMIN, ("admin",)),
    )
    assert answer.status_code == 400, answer.text[:500]
    assert "2048 bytes" in answer.json()["message"]
