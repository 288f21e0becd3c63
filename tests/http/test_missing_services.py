"""A service whose store or identity provider is not there answers 503 with what to do, in the
one error shape, naming no table and quoting no token."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from adapters.identity.jwks import JwksTokenVerifier
from conftest import FAKE_AWS_ENVIRONMENT
from entrypoints.container import build_container, create_all_tables
from entrypoints.http.app import create_app
from entrypoints.http.identity import verified_by
from entrypoints.settings import Settings
from tests.home_settings import home_settings


def _settings(home: Path) -> Settings:
    return home_settings(home)


def test_a_store_without_tables_says_to_create_them(tmp_path: Path) -> None:
    container = build_container(_settings(tmp_path))  # no `wfx tables create`
    app = create_app(container, verified_by(container.token_verifier()))
    token = container.token_issuer().issue("alice", timedelta(minutes=5))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/workflows/executions", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 503
    message = answer.json()["message"]
    assert "wfx tables create" in message
    assert "Table" not in message and "sqlite" not in message.lower()


def test_an_unreachable_jwks_is_a_503_not_a_401(tmp_path: Path) -> None:
    container = build_container(_settings(tmp_path))
    verifier = JwksTokenVerifier("http://127.0.0.1:9/jwks.json", "https://idp.example", None)
    app = create_app(container, verified_by(verifier))
    # a well-formed token naming a key id, so the verifier must fetch the keys
    token = (
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0."
        "eyJzdWIiOiJhbGljZSIsImlzcyI6Imh0dHBzOi8vaWRwLmV4YW1wbGUifQ.c2ln"
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/workflows/executions", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 503, answer.text
    assert "WFX_JWT_JWKS" in answer.json()["message"]
    assert token not in answer.text


def test_a_bucket_that_cannot_be_used_is_a_503_naming_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9")  # nothing answers
    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    settings = replace(_settings(tmp_path), object_store="s3", s3_bucket="team-assets")
    container = build_container(settings)
    create_all_tables(container)
    app = create_app(container, verified_by(container.token_verifier()))
    token = container.token_issuer().issue("alice", timedelta(minutes=5), ("admin",))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.request(
            "DELETE",
            "/workflows/executions/0b9e2f4c-6a1d-4e0b-9a57-3f2c1d0e8b71/permanent",
            json={"confirmDelete": True},
            headers={"Authorization": f"Bearer {token}"},
        )
    assert answer.status_code == 503, answer.text
    assert "WFX_S3_BUCKET" in answer.json()["message"]
    assert "team-assets" not in answer.text  # as for tables: the service names no resource


def test_a_dynamodb_store_without_aws_credentials_is_a_503_saying_to_set_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A DynamoDB Local or moto endpoint still needs credentials to sign with; without any,
    every request met botocore's NoCredentialsError and answered a 500."""
    import os

    import boto3

    # the default session keeps the credentials an earlier test of this process resolved
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    for name in [name for name in os.environ if name.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    settings = replace(
        _settings(tmp_path), store="dynamodb", dynamodb_endpoint="http://127.0.0.1:9"
    )
    container = build_container(settings)
    app = create_app(container, verified_by(container.token_verifier()))
    token = container.token_issuer().issue("alice", timedelta(minutes=5), roles=("admin",))

    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/workflows/executions", headers={"Authorization": f"Bearer {token}"})

    assert answer.status_code == 503, answer.text
    assert "AWS_ACCESS_KEY_ID" in answer.json()["message"]


def test_a_start_step_functions_denies_the_service_s_role_is_a_503_naming_no_resource(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version deployed outside the stack's prefix (WFX_STATE_MACHINE_PREFIX unset at deploy,
    or an upgraded stack without EarlierStateMachinePattern): its role may not start the machine.
    The caller can do nothing about it: a 503 saying so, not a 500."""
    import boto3
    from botocore.stub import Stubber

    from domain.workflow import ExecutionType, InputFileArity, StepDefinition
    from tests.contract.builders import a_version, publish

    for name, value in FAKE_AWS_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    container = build_container(replace(_settings(tmp_path), runner="stepfunctions"))
    create_all_tables(container)
    machine = "arn:aws:states:us-east-1:123456789012:stateMachine:wfx-db1-wf1-v1"
    steps = (
        StepDefinition(
            pipeline_id="convert",
            pipeline_database_id="db1",
            execution_type=ExecutionType.LAMBDA,
            function_name="mesh-convert",
            input_file_arity=InputFileArity.NONE,
        ),
    )
    publish(container.workflow_definitions(), a_version(1).model_copy(update={"steps": steps}))
    container.workflow_catalog().record_deployment("db1", "wf1", 1, machine)
    client = boto3.client("stepfunctions", region_name="us-east-1")
    stubber = Stubber(client)
    stubber.add_client_error(
        "start_execution",
        service_error_code="AccessDeniedException",
        service_message=f"User: arn:aws:sts::123456789012:assumed-role/api is not authorized to "
        f"perform: states:StartExecution on resource: {machine}",
        http_status_code=400,
    )
    stubber.activate()
    container.stepfunctions_client.override(client)
    app = create_app(container, verified_by(container.token_verifier()))
    token = container.token_issuer().issue("alice", timedelta(minutes=5), ("admin",))
    with TestClient(app, raise_server_exceptions=False) as client_of_app:
        answer = client_of_app.post(
            "/workflows/executions",
            json={"workflowDatabaseId": "db1", "workflowId": "wf1"},
            headers={"Authorization": f"Bearer {token}"},
        )
    assert answer.status_code == 503, answer.text
    message = answer.json()["message"]
    assert "StartExecution" in message and "denied" in message, message
    assert "wfx-db1-wf1-v1" not in message and "123456789012" not in message
