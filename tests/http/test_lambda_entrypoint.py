"""The service in Lambda: `entrypoints.http.lambda_handler` driven with API Gateway HTTP API
(payload 2.0) events whose JWT authorizer claims name the caller, on DynamoDB (moto)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import entrypoints.http.aws_lambda as aws_lambda
from conftest import FAKE_AWS_ENVIRONMENT, dynamodb_tables_snapshot, restore_dynamodb_tables
from entrypoints import http

USER = "ana"
# one worker runs the module (`-n 2 --dist loadgroup`): its stored run is made once, not twice
pytestmark = pytest.mark.xdist_group("lambda-entrypoint")


def _event(
    method: str, path: str, claims: dict[str, Any] | None, query: str = ""
) -> dict[str, Any]:
    context: dict[str, Any] = {
        "accountId": "123456789012",
        "apiId": "api1234567",
        "domainName": "api1234567.execute-api.us-east-1.amazonaws.com",
        "domainPrefix": "api1234567",
        "http": {
            "method": method,
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": "192.0.2.10",
            "userAgent": "curl/8.5.0",
        },
        "requestId": "JKJaXmPLvHcESHA=",
        "routeKey": f"{method} {path}",
        "stage": "$default",
        "time": "01/Dec/2026:12:00:00 +0000",
        "timeEpoch": 1796126400000,
    }
    if claims is not None:
        context["authorizer"] = {"jwt": {"claims": claims, "scopes": None}}
    return {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": query,
        "headers": {"accept": "application/json", "host": context["domainName"]},
        "requestContext": context,
        "isBase64Encoded": False,
    }


@pytest.fixture(scope="module")
def _stored_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, Any]]:
    """A run stored on DynamoDB by the CLI's container, made once for the module: its home, its
    id and moto's tables as the run left them, which each test gets back as they were."""
    from moto import mock_aws

    from application.use_cases.import_asset_files import ImportAssetFilesCommand, ImportedFile
    from application.use_cases.launch_execution import LaunchExecutionCommand
    from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
    from application.workflow_documents import parse_workflow_document
    from entrypoints.container import build_container, create_all_tables
    from tests.http.conftest import WORKFLOW

    home = tmp_path_factory.mktemp("lambda-home")
    with pytest.MonkeyPatch.context() as patch, mock_aws():
        _on_the_store(patch, home)
        container = build_container(runner_mode="inline")
        create_all_tables(container)
        source = home / "a.obj"
        source.write_text("v 0 0 0\n", encoding="utf-8")
        container.import_asset_files().execute(
            ImportAssetFilesCommand(
                database_id=WORKFLOW["databaseId"],
                asset_id="inputs",
                files=(ImportedFile(file_key="a.obj", path=source),),
            )
        )
        container.publish_workflow_version().execute(
            PublishWorkflowVersionCommand(document=parse_workflow_document(WORKFLOW))
        )
        launched = container.launch_execution().execute(
            LaunchExecutionCommand(
                workflow_database_id=WORKFLOW["databaseId"],
                workflow_id=WORKFLOW["workflowId"],
                inputs=(f"{WORKFLOW['databaseId']}/inputs",),
                user_id=USER,
            )
        )
        return home, launched.execution.workflow_execution_id, dynamodb_tables_snapshot()


def _on_the_store(patch: pytest.MonkeyPatch, home: Path) -> None:
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        patch.setenv(name, value)
    patch.setenv("WFX_STORE", "dynamodb")
    patch.setenv("WFX_HOME", str(home))
    patch.delenv("WFX_DYNAMODB_ENDPOINT", raising=False)


@pytest.fixture
def on_dynamodb(
    moto_dynamodb_client: Any,
    _stored_run: tuple[Path, str, dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """The module's run, its tables as the run left them in a fresh moto, and a fresh Lambda."""
    home, execution_id, tables = _stored_run
    restore_dynamodb_tables(tables)
    _on_the_store(monkeypatch, home)
    monkeypatch.setattr(aws_lambda, "_HANDLER", None)
    return execution_id


def test_claims_of_an_admin_list_the_run(on_dynamodb: str) -> None:
    claims = {"sub": "root", "cognito:groups": "[admin]", "iss": "https://idp.example"}
    answer = http.lambda_handler(_event("GET", "/workflows/executions", claims, "maxItems=5"), None)
    assert answer["statusCode"] == 200, answer
    body = json.loads(answer["body"])["message"]
    assert [item["workflowExecutionId"] for item in body["Items"]] == [on_dynamodb]
    one = http.lambda_handler(_event("GET", f"/workflows/executions/{on_dynamodb}", claims), None)
    assert json.loads(one["body"])["message"]["triggeredByUserId"] == USER


def test_no_claims_is_a_401_and_a_user_with_no_role_a_403(on_dynamodb: str) -> None:
    unverified = http.lambda_handler(_event("GET", "/workflows/executions", None), None)
    assert unverified["statusCode"] == 401
    assert "JWT authorizer" in json.loads(unverified["body"])["message"]
    stranger = http.lambda_handler(
        _event("GET", f"/workflows/executions/{on_dynamodb}", {"sub": "stranger"}), None
    )
    assert stranger["statusCode"] == 403
    assert set(json.loads(stranger["body"])) == {"message"}


@pytest.mark.parametrize(
    "authorizer",
    ["jwt", {"jwt": "claims"}, {"jwt": {"claims": "sub=root"}}, ["jwt"]],
    ids=["authorizer-a-string", "jwt-a-string", "claims-a-string", "authorizer-a-list"],
)
def test_an_authorizer_context_of_the_wrong_shape_is_a_401_not_a_500(
    on_dynamodb: str, authorizer: Any
) -> None:
    # a direct invoke, or an authorizer of another kind, may put anything there
    event = _event("GET", f"/workflows/executions/{on_dynamodb}", None)
    event["requestContext"]["authorizer"] = authorizer
    answer = http.lambda_handler(event, None)
    assert answer["statusCode"] == 401, answer
    assert "JWT authorizer" in json.loads(answer["body"])["message"]


@pytest.mark.parametrize("sub", [{"name": "root"}, ["root"], True], ids=["object", "list", "bool"])
def test_a_user_claim_that_is_no_string_names_no_user(on_dynamodb: str, sub: Any) -> None:
    claims = {"sub": sub, "cognito:groups": "[admin]"}
    event = _event("GET", f"/workflows/executions/{on_dynamodb}", claims)
    answer = http.lambda_handler(event, None)
    assert answer["statusCode"] == 401, answer
    assert "sub" in json.loads(answer["body"])["message"]


@pytest.mark.parametrize(
    "groups", ['["admin", "reader"]', "[admin reader]", "admin,reader", ["admin", "reader"]]
)
def test_the_groups_claim_reads_the_same_in_every_rendering(on_dynamodb: str, groups: Any) -> None:
    # API Gateway renders a list claim `[a b]`; a mapping template may pass it JSON-encoded
    claims = {"sub": "root", "cognito:groups": groups}
    event = _event("GET", f"/workflows/executions/{on_dynamodb}", claims)
    answer = http.lambda_handler(event, None)
    assert answer["statusCode"] == 200, answer


def _without(key: str) -> Any:
    def change(event: dict[str, Any]) -> None:
        del event[key]

    return change


def _set(value: Any, *path: str) -> Any:
    def change(event: dict[str, Any]) -> None:
        target = event
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _not_base64(event: dict[str, Any]) -> None:
    event.update(body="!!! not base64", isBase64Encoded=True)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_without("requestContext"), "requestContext"),
        (_set("ctx", "requestContext"), "requestContext"),
        (_without("version"), "version"),
        (_set("1.0", "version"), "version"),
        (_set(None, "headers"), "headers"),
        (_set(5, "headers", "x-n"), "headers.x-n"),
        (_set(None, "rawQueryString"), "rawQueryString"),
        (_set(None, "requestContext", "http"), "requestContext.http"),
        (_set(["a", 1], "cookies"), "cookies[1]"),
        (_not_base64, "body"),
        # JSON carries a lone surrogate (`"\ud800"`); Mangum encodes these as UTF-8
        (_set("maxItems=\ud800", "rawQueryString"), "rawQueryString"),
        (_set("\ud800", "headers", "x-n"), "headers.x-n"),
        (_set(["a=\ud800"], "cookies"), "cookies[0]"),
        (_set("\ud800", "body"), "body"),
        # Mangum reads the server's port from these as numbers
        (_set("api.example.com:https", "headers", "host"), "headers.host"),
        (_set("a:1:2", "headers", "host"), "headers.host"),
        (_set("four", "headers", "x-forwarded-port"), "headers.x-forwarded-port"),
    ],
    ids=[
        "no-requestContext",
        "requestContext-a-string",
        "no-version",
        "version-1.0-shape-2.0",
        "headers-null",
        "header-a-number",
        "query-null",
        "http-null",
        "cookie-a-number",
        "body-not-base64",
        "query-a-surrogate",
        "header-a-surrogate",
        "cookie-a-surrogate",
        "body-a-surrogate",
        "host-port-no-number",
        "host-two-ports",
        "forwarded-port-no-number",
    ],
)
def test_an_event_api_gateway_would_never_send_is_a_400_naming_its_field(
    on_dynamodb: str, change: Any, field: str
) -> None:
    # a direct invoke or a misconfigured integration: answered, never raised out of the Lambda
    event = _event("GET", f"/workflows/executions/{on_dynamodb}", {"sub": "root"})
    change(event)
    answer = http.lambda_handler(event, None)
    assert answer["statusCode"] == 400, answer
    assert answer["headers"]["content-type"] == "application/json"
    text = json.loads(answer["body"])["message"]
    assert text.startswith(f"event {field}: "), text


def test_an_event_that_is_no_object_is_a_400(on_dynamodb: str) -> None:
    answer = http.lambda_handler(["GET", "/workflows/executions"], None)  # type: ignore[arg-type]
    assert answer["statusCode"] == 400, answer
    assert "API Gateway HTTP API" in json.loads(answer["body"])["message"]


def test_the_path_api_gateway_decoded_is_not_decoded_again(on_dynamodb: str) -> None:
    """An HTTP API hands the function its path decoded already (`%2530` arrives as `%30`); a
    second decode read `%30…` as `0…`, another run than the one asked for."""
    claims = {"sub": "root", "cognito:groups": "[admin]"}
    asked = f"%{ord(on_dynamodb[0]):02X}{on_dynamodb[1:]}"  # as API Gateway passes it on
    answer = http.lambda_handler(_event("GET", f"/workflows/executions/{asked}", claims), None)
    assert answer["statusCode"] == 404, answer
    assert json.loads(answer["body"]) == {"message": f"execution {asked} not found"}
    plain = http.lambda_handler(_event("GET", f"/workflows/executions/{on_dynamodb}", claims), None)
    assert plain["statusCode"] == 200, plain


def test_a_body_is_base64_decoded_once(on_dynamodb: str) -> None:
    """`isBase64Encoded` says one encoding: a body encoded twice reaches the app as base64 text,
    a 400 naming the body, never decoded again into something else nor a 500."""
    import base64

    claims = {"sub": "root", "cognito:groups": "[admin]"}
    once = base64.b64encode(b'{"cause": "stop + go"}').decode()
    answers = []
    for body in (base64.b64encode(once.encode()).decode(), once):
        event = _event("POST", f"/workflows/executions/{on_dynamodb}/abort", claims)
        event["headers"]["content-type"] = "application/json"
        event.update(body=body, isBase64Encoded=True)
        answers.append(http.lambda_handler(event, None))
    twice, right = answers
    assert twice["statusCode"] == 400, twice
    assert json.loads(twice["body"])["message"].startswith("body"), twice
    assert right["statusCode"] == 200, right
